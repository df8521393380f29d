import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkSurfaces, namesImported, SURFACE_PACKAGES } from "./check-exports.ts";
import { entrySources, exportsProgram, unnamedExports } from "./check-readme-names.ts";
import { SMOKE_CALLS } from "./smoke-calls.ts";

const repoRoot = path.resolve(import.meta.dirname, "..", "..");
const fixture = path.resolve(import.meta.dirname, "..", "fixtures", "wide-surface");
const fixtureIndex = path.join(fixture, "packages", "demo", "src", "index.ts");

/** The fixture's index marks each name the check must report with `// UNUSED`. */
const marked = readFileSync(fixtureIndex, "utf8")
  .split("\n")
  .flatMap((line, index) => {
    const match = /^\s*(\w+), \/\/ UNUSED$/.exec(line);
    return match?.[1] ? [{ line: index + 1, name: match[1] }] : [];
  });

/** The smoke calls of `pnpm check:packages` are callers too: they run against the tarball. */
const smokeCallers = Object.entries(SMOKE_CALLS).map(([name, text]) => ({
  file: path.join(repoRoot, "tools", "src", `smoke-${name.replace("/", "-")}.ts`),
  text,
}));

/** The packages whose README must name every value they export (every entry of `exports`). */
const README_PACKAGES = [...SURFACE_PACKAGES, "packages/mcp"];
/**
 * One TypeScript program over the repository's indexes and entries, for both checks: each build
 * costs seconds of CPU, and the two read the same sources.
 */
let program: ReturnType<typeof exportsProgram> | undefined;
const repoProgram = () =>
  (program ??= exportsProgram([
    ...SURFACE_PACKAGES.map((folder) => path.join(repoRoot, folder, "src", "index.ts")),
    ...README_PACKAGES.flatMap((folder) => entrySources(path.join(repoRoot, folder))),
  ]));

let reports: ReturnType<typeof checkSurfaces> | undefined;

describe("the public-surface check", () => {
  it("reports exactly the marked names of the fixture, at their lines", () => {
    const smoke = [{ file: path.join(fixture, "smoke.ts"), text: SMOKE_FIXTURE }];
    const report = checkSurfaces(fixture, ["packages/demo"], smoke).get("packages/demo");
    expect(marked.length).toBe(3);
    expect(report?.unused).toEqual(
      marked.map((entry) => ({ file: fixtureIndex, line: entry.line, name: entry.name })),
    );
    expect(report?.exported).toBe(14);
  }, 60_000);

  it("reads every import form, and not a comment or a string", () => {
    const text = [
      'import { a, b as local } from "@x/one";',
      'import type { T } from "@x/one/sub";',
      'import * as two from "@x/two";',
      'export { c } from "@x/one";',
      'type Q = import("@x/two").Deep.Name;',
      'const { d } = await import("@x/one");',
      '// import { e } from "@x/one";',
      'const s = "import { f } from \\"@x/one\\"";',
      "two.g(two);",
    ].join("\n");
    const found = namesImported("x.ts", text);
    expect([...(found.get("@x/one") ?? [])].sort()).toEqual(["T", "a", "b", "c", "d"]);
    expect([...(found.get("@x/two") ?? [])].sort()).toEqual(["Deep", "g"]);
  });

  it.each(SURFACE_PACKAGES)(
    "%s exports only what callers outside it use",
    (name) => {
      reports ??= checkSurfaces(repoRoot, SURFACE_PACKAGES, smokeCallers, repoProgram());
      const report = reports.get(name);
      expect(report?.used).toBeGreaterThan(0);
      expect(report?.unused.map((entry) => `${entry.name} (index.ts:${entry.line})`)).toEqual([]);
    },
    60_000,
  );
});

let readmes: ReturnType<typeof unnamedExports> | undefined;

describe("the README check", () => {
  it("reports each exported value its README names only outside code, in every entry", () => {
    const fixtureDir = path.resolve(import.meta.dirname, "..", "fixtures", "unnamed-export");
    expect(unnamedExports([fixtureDir]).get(fixtureDir)).toEqual([
      { entry: "src/index.ts", name: "unnamed" },
      { entry: "src/sub.ts", name: "subUnnamed" },
    ]);
  });

  it.each(README_PACKAGES)(
    "%s's README names every value it exports",
    (folder) => {
      readmes ??= unnamedExports(
        README_PACKAGES.map((name) => path.join(repoRoot, name)),
        repoProgram(),
      );
      const unnamed = readmes.get(path.join(repoRoot, folder)) ?? [];
      expect(unnamed.map((entry) => `${entry.name} (${entry.entry})`)).toEqual([]);
    },
    60_000,
  );
});

const SMOKE_FIXTURE = `import { viaSmoke } from "@fixture/demo";\nviaSmoke;`;
