import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { strayTypeImports } from "./type-imports.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "muster-type-imports-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function fixture(manifest: object, types: string) {
  const dir = mkdtempSync(path.join(scratch, "pkg-"));
  mkdirSync(path.join(dir, "dist", "sub"), { recursive: true });
  writeFileSync(path.join(dir, "package.json"), JSON.stringify(manifest));
  writeFileSync(path.join(dir, "dist", "sub", "index.d.ts"), types);
  return dir;
}

describe("the packages a package's types import", () => {
  it("names a bundled package its types still import, wherever the import is", () => {
    const dir = fixture(
      { name: "@muster/x", dependencies: { "@muster/core": "1" }, peerDependencies: { pi: "*" } },
      [
        "import { z } from 'zod';",
        'import type { T } from "@modelcontextprotocol/sdk/types.js";',
        'export type U = import("ajv").Schema;',
        'import { Serves } from "@muster/core";',
        'import { Pi } from "pi/types";',
        'import { Readable } from "node:stream"; import { EventEmitter } from "events";',
        "import { a } from './chunk.js'; import type { X } from '@muster/x/engines';",
      ].join("\n"),
    );
    expect(strayTypeImports(dir)).toEqual([
      "@modelcontextprotocol/sdk (in dist/sub/index.d.ts)",
      "ajv (in dist/sub/index.d.ts)",
      "zod (in dist/sub/index.d.ts)",
    ]);
  });

  it("passes the published packages as built", () => {
    const packages = path.resolve(import.meta.dirname, "..", "..", "packages");
    for (const name of ["cli", "mcp", "node", "core"])
      expect(strayTypeImports(path.join(packages, name))).toEqual([]);
  });
});
