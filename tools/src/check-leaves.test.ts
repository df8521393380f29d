import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import {
  checkLeafManifest,
  checkLeafPackage,
  checkLeafSource,
  checkLeaves,
  LEAF_PACKAGES,
} from "./check-leaves.ts";

const fixtures = path.resolve(import.meta.dirname, "..", "fixtures");
const repoRoot = path.resolve(import.meta.dirname, "..", "..");
const dirty = path.join(fixtures, "dirty-leaf");
const dirtySource = path.join(dirty, "src", "index.ts");

/** The fixture marks each offending line with `// VIOLATION <what the report must say>`. */
function expectedMarkers(file: string) {
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line, index) => {
      const match = /\/\/ VIOLATION (.+)$/.exec(line);
      return match?.[1] ? [{ line: index + 1, says: match[1].trim() }] : [];
    });
}

describe("checkLeafSource", () => {
  const markers = expectedMarkers(dirtySource);
  const found = checkLeafSource(dirtySource, readFileSync(dirtySource, "utf8"), dirty);

  it("reports exactly the marked lines of the dirty fixture, once each", () => {
    expect(markers.length).toBeGreaterThanOrEqual(25);
    expect(found.map((violation) => violation.line)).toEqual(markers.map((marker) => marker.line));
  });

  it.each(expectedMarkers(dirtySource))("line $line: reports $says", ({ line, says }) => {
    const violation = found.find((candidate) => candidate.line === line);
    expect(violation?.what).toContain(says.replace(/ of .*$/, ""));
    expect(violation?.what).toMatch(/, and a leaf reaches nothing outside its own folder/);
  });

  it("reports nothing for the clean fixture", () => {
    const clean = path.join(fixtures, "clean-leaf");
    expect(checkLeafPackage(clean)).toEqual([]);
  });

  it("skips test files", () => {
    const all = checkLeafPackage(dirty);
    expect(all.some((violation) => violation.file.endsWith(".test.ts"))).toBe(false);
  });

  it("allows a relative import that stays inside the package", () => {
    const file = path.join(dirty, "src", "deep", "a.ts");
    expect(checkLeafSource(file, 'import { x } from "../inner/ok.js";', dirty)).toEqual([]);
    expect(checkLeafSource(file, 'import { x } from "../../../x.js";', dirty)).toHaveLength(1);
  });
});

describe("checkLeafManifest", () => {
  it("reports each dependency field with its line, never devDependencies", () => {
    const manifestPath = path.join(dirty, "package.json");
    const found = checkLeafManifest(manifestPath, readFileSync(manifestPath, "utf8"));
    expect(found.map((violation) => [violation.line, violation.what.split(",")[0]])).toEqual([
      [4, "declares dependencies"],
      [7, "declares peerDependencies"],
      [10, "declares optionalDependencies"],
      [13, "declares bundledDependencies"],
    ]);
  });

  it("accepts empty dependency objects", () => {
    expect(checkLeafManifest("p.json", '{"dependencies": {}, "peerDependencies": {}}')).toEqual([]);
  });

  it("reports a manifest that does not parse", () => {
    expect(checkLeafManifest("p.json", "{")[0]?.what).toMatch(/does not parse/);
  });
});

describe("the leaves of this repository", () => {
  it("are clean", () => {
    const { checked, violations } = checkLeaves(repoRoot);
    expect(checked.length).toBeGreaterThan(0);
    expect(violations).toEqual([]);
  });

  it("the command exits 1 with one line per violation on a dirty tree", () => {
    const script = path.join(import.meta.dirname, "check-leaves-cli.ts");
    const clean = spawnSync(process.execPath, [script], { encoding: "utf8" });
    expect(clean.status).toBe(0);
    const output = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { checkLeafPackage, formatViolation } from ${JSON.stringify(path.join(import.meta.dirname, "check-leaves.ts"))};
         for (const v of checkLeafPackage(${JSON.stringify(dirty)})) console.log(formatViolation(v, ${JSON.stringify(fixtures)}));`,
      ],
      { encoding: "utf8" },
    );
    const lines = output.trim().split("\n");
    expect(lines[0]).toMatch(/^dirty-leaf\/package\.json:4 {2}declares dependencies, and /);
    expect(
      lines.some((line) => /^dirty-leaf\/src\/index\.ts:6 {2}import of node builtin/.test(line)),
    ).toBe(true);
  });

  // A leaf's tsconfig has no host types, so host globals do not compile.
  it.each(
    LEAF_PACKAGES.filter((leaf) => {
      try {
        readFileSync(path.join(repoRoot, "packages", leaf, "tsconfig.json"));
        return true;
      } catch {
        return false;
      }
    }),
  )("%s's tsconfig rejects process, setTimeout, Buffer and console", (leaf) => {
    const configPath = path.join(repoRoot, "packages", leaf, "tsconfig.json");
    const config = ts.readConfigFile(configPath, ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, path.dirname(configPath));
    const program = ts.createProgram([path.join(fixtures, "host-globals.ts")], {
      ...parsed.options,
      noEmit: true,
    });
    const messages = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    for (const name of ["process", "setTimeout", "Buffer", "console"]) {
      expect(messages.some((message) => message.includes(`'${name}'`))).toBe(true);
    }
  });
});
