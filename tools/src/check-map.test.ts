import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  DOCUMENT,
  doorDrift,
  packageFolders,
  storeSpaces,
  unnamedPackages,
  unnamedSpaces,
} from "./check-map.ts";

const repoRoot = path.resolve(import.meta.dirname, "..", "..");
const doc = readFileSync(path.join(repoRoot, DOCUMENT), "utf8");

/** The document with every mention of `text` in code spans and links taken out. */
const without = (text: string, from = doc) => from.split(text).join("");

describe("docs/architecture.md names what the code has", () => {
  it("every package under packages/ and internal/", () => {
    expect(packageFolders(repoRoot).length).toBeGreaterThan(10);
    expect(unnamedPackages(repoRoot, doc)).toEqual([]);
  });

  it("fails on a package it does not name", () => {
    const planted = without("@muster/roster-conformance", without("internal/roster-conformance"));
    expect(unnamedPackages(repoRoot, planted)).toEqual(["internal/roster-conformance"]);
  });

  it("every space of the store contract, in its **Spaces** item", () => {
    expect(storeSpaces(repoRoot)).toEqual(expect.arrayContaining(["sessions", "spawns", "locks"]));
    expect(unnamedSpaces(repoRoot, doc)).toEqual([]);
  });

  it("fails on a space the **Spaces** item leaves out", () => {
    const begin = doc.indexOf("- **Spaces**");
    const planted = `${doc.slice(0, begin)}${doc.slice(begin).replace("`listeners`, ", "")}`;
    expect(unnamedSpaces(repoRoot, planted)).toEqual(["listeners"]);
  });

  it("every file that makes a door's rows, and no file that is not there", () => {
    expect(doorDrift(repoRoot, doc)).toEqual({ unnamed: [], missing: [] });
  });

  it("fails on a row file it leaves out, and on a file it names that is gone", () => {
    const planted = doc
      .replace("`_spawn-tool.ts`, ", "")
      .replace("`_board-commands.ts`", "`_board-gone.ts`");
    expect(doorDrift(repoRoot, planted)).toEqual({
      unnamed: ["packages/mcp/src/_spawn-tool.ts"],
      missing: ["packages/pi-extension/src/_board-gone.ts"],
    });
  });
});
