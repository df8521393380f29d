// The capability table of docs/architecture.md, read from the doors' own rows: for each capability
// (core's CAPABILITIES), how each door serves it, or "—" where it does not.
import { CAPABILITIES, type Capability, type Serves } from "@muster/core";

export type Door = {
  name: string;
  rows: readonly { name: string; serves?: Serves | undefined }[];
  /** Capabilities the door serves with no row of its own, and how (MCP joins on any call). */
  without?: Partial<Record<Capability, string>>;
};

/** The table's cells: a header row, then one row per capability. */
export function capabilityCells(doors: readonly Door[]): string[][] {
  const header = ["capability", ...doors.map((door) => door.name)];
  const rows = (Object.keys(CAPABILITIES) as Capability[]).map((capability) => [
    CAPABILITIES[capability],
    ...doors.map((door) => {
      const forms = door.rows.flatMap((row) => {
        const form = row.serves?.[capability];
        if (form === undefined) return [];
        const ways = form === true ? [row.name] : [form].flat().map((way) => `${row.name} ${way}`);
        return ways.map((way) => `\`${way}\``);
      });
      const without = door.without?.[capability];
      return [...forms, ...(without ? [without] : [])].join(", ") || "—";
    }),
  ]);
  return [header, ...rows];
}

/** The cells as a Markdown table, padded as the formatter pads it. */
export function markdownTable(cells: readonly string[][]): string {
  const widths = cells[0]!.map((_, column) =>
    Math.max(3, ...cells.map((row) => [...row[column]!].length)),
  );
  const line = (row: readonly string[]) =>
    `| ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(" | ")} |`;
  return [
    line(cells[0]!),
    `| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`,
    ...cells.slice(1).map(line),
  ].join("\n");
}

/** A Markdown table's cells, whatever its padding. */
export const tableCells = (table: string): string[][] =>
  table
    .trim()
    .split("\n")
    .filter((line, index) => index !== 1 && line.startsWith("|"))
    .map((line) =>
      line
        .slice(1, -1)
        .split(" | ")
        .map((cell) => cell.trim()),
    );
