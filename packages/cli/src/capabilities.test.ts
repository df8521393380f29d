// The capability table in docs/architecture.md is read from the doors' own rows: the CLI's command
// table, the MCP server's tools, pi's tools and pi's /team command. When a row is added or a door
// gains a capability, the document must say so: this test fails until it does.
// `MUSTER_WRITE_DOCS=1 pnpm exec vitest run packages/cli/src/capabilities.test.ts` rewrites it.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MCP_TOOLS } from "@muster/mcp";
import { describe, expect, it } from "vitest";
import { TEAM_COMMANDS } from "../../pi-extension/src/_commands.ts";
import { TOOLS as PI_TOOLS } from "../../pi-extension/src/_tools.ts";
import { capabilityCells, type Door, markdownTable, tableCells } from "../test/capability-table.ts";
import { COMMANDS } from "./_commands.js";

const DOCUMENT = path.resolve(import.meta.dirname, "..", "..", "..", "docs", "architecture.md");
const BEGIN =
  "<!-- capabilities: generated from the door tables; see packages/cli/src/capabilities.test.ts -->";
const END = "<!-- /capabilities -->";

const DOORS: Door[] = [
  {
    name: "CLI",
    rows: Object.entries(COMMANDS).map(([name, row]) => ({
      name: `muster ${name}`,
      serves: row.serves,
    })),
  },
  { name: "MCP", rows: MCP_TOOLS, without: { join: "any tool (joins its caller)" } },
  { name: "pi tools", rows: PI_TOOLS, without: { join: "pi's start (joins the session)" } },
  {
    name: "pi commands",
    rows: Object.entries(TEAM_COMMANDS).map(([name, row]) => ({
      name: `/team ${name}`,
      serves: row.serves,
    })),
  },
];

/** The table between the markers, and where it sits. */
function documented(text: string) {
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  expect(begin, `docs/architecture.md has ${BEGIN}`).toBeGreaterThan(-1);
  expect(end, `docs/architecture.md has ${END}`).toBeGreaterThan(begin);
  return { begin: begin + BEGIN.length, end, table: text.slice(begin + BEGIN.length, end) };
}

describe("the capability table", () => {
  it("docs/architecture.md shows what the doors' rows serve", () => {
    const text = readFileSync(DOCUMENT, "utf8");
    const { begin, end, table } = documented(text);
    const cells = capabilityCells(DOORS);
    if (process.env.MUSTER_WRITE_DOCS === "1")
      return writeFileSync(
        DOCUMENT,
        `${text.slice(0, begin)}\n\n${markdownTable(cells)}\n\n${text.slice(end)}`,
      );
    expect(tableCells(table), "rewrite it with MUSTER_WRITE_DOCS=1").toEqual(cells);
  });

  it("notices a door that gains or loses a capability", () => {
    const cells = capabilityCells(DOORS);
    const fewer = DOORS.map((door) =>
      door.name === "MCP"
        ? { ...door, rows: door.rows.filter((row) => row.name !== "team_add") }
        : door,
    );
    expect(capabilityCells(fewer)).not.toEqual(cells);
    const more = [
      ...DOORS,
      { name: "elsewhere", rows: [{ name: "x", serves: { stop: true as const } }] },
    ];
    expect(capabilityCells(more)).not.toEqual(cells);
  });

  it("every door's row names are its own: no two rows of a door share a name", () => {
    for (const door of DOORS) {
      const names = door.rows.map((row) => row.name);
      expect(new Set(names).size, door.name).toBe(names.length);
    }
  });
});
