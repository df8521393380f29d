import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { COMPOSER_PACKAGES, checkComposerSource, checkComposers } from "./check-composers.ts";

const fixtures = path.resolve(import.meta.dirname, "..", "fixtures");
const repoRoot = path.resolve(import.meta.dirname, "..", "..");
const dirtySource = path.join(fixtures, "dirty-composer", "src", "index.ts");

/** The fixture marks each offending line with `// VIOLATION <what the report must say>`. */
const markers = readFileSync(dirtySource, "utf8")
  .split("\n")
  .flatMap((line, index) => {
    const match = /\/\/ VIOLATION (.+)$/.exec(line);
    return match?.[1] ? [{ line: index + 1, says: match[1].trim() }] : [];
  });

describe("checkComposerSource", () => {
  const found = checkComposerSource(dirtySource, readFileSync(dirtySource, "utf8"));

  it("reports exactly the marked lines of the dirty fixture", () => {
    expect(markers.length).toBeGreaterThanOrEqual(12);
    expect([...new Set(found.map((violation) => violation.line))]).toEqual(
      markers.map((marker) => marker.line),
    );
  });

  it.each(markers)("line $line: reports $says", ({ line, says }) => {
    const violation = found.find((candidate) => candidate.line === line);
    expect(violation?.what).toContain(says);
    expect(violation?.what).toMatch(/: .+/);
  });

  it("an aliased import is still the wired name", () => {
    const found = checkComposerSource(
      "x.ts",
      'import { openRoster as open } from "@muster/roster";',
    );
    expect(found.map((violation) => violation.what)).toEqual([
      expect.stringContaining("imports openRoster"),
    ]);
  });

  it("passing a rule's field on, or acting on a leaf's decision, is wiring", () => {
    const source = [
      "const view = { hops: message.hops, holds: member.holdsLabel };",
      "send({ hops: replyHops(replyTo, (id) => known.get(id)) });",
      "send({ hops: replyHops(replyTo, () => answered?.hops) });",
      "const text = delivery.wake ? 'wakes' : 'quiet';",
      "show(result.error);",
    ].join("\n");
    expect(checkComposerSource("x.ts", source)).toEqual([]);
  });
});

describe("the shared wiring", () => {
  it("may import what it wires, but decides nothing and edits no leaf's text", () => {
    const source = [
      'import { openRoster } from "@muster/roster";',
      "if (member.holdsLabel) wake(member);",
      "const parts = result.error.split(';');",
    ].join("\n");
    expect(
      checkComposerSource("wiring.ts", source, { wiring: true }).map((found) => found.line),
    ).toEqual([2, 3]);
  });
});

describe("the composers of this repository", () => {
  it("define no rules and copy no wiring", () => {
    const { checked, violations } = checkComposers(repoRoot);
    expect(checked).toEqual(
      expect.arrayContaining(["cli", "pi-extension", "mcp", "internal/wiring"]),
    );
    expect(COMPOSER_PACKAGES).toContain("cli");
    expect(violations).toEqual([]);
  });
});
