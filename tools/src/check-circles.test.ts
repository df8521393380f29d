import path from "node:path";
import { describe, expect, it } from "vitest";
import { circlesIn, packageCircles, relativeImports } from "./check-circles.ts";

const repoRoot = path.resolve(import.meta.dirname, "..", "..");

describe("the import-circle check", () => {
  it("finds no circle in any package", () => {
    expect(packageCircles(repoRoot)).toEqual([]);
  });

  it("fails on a planted circle: a type import, a dynamic import and a re-export each close one", () => {
    const files = [
      { file: "/p/src/a.ts", text: 'import { b } from "./b.js";\nexport const a = b;' },
      { file: "/p/src/b.ts", text: 'import type { A } from "./a.js";\nexport const b = 1;' },
      { file: "/p/src/c.ts", text: 'export const c = async () => (await import("./d.js")).d;' },
      { file: "/p/src/d.ts", text: 'export { c as d } from "./c.js";' },
      { file: "/p/src/e.ts", text: 'import { a } from "./a.js";\nimport "node:fs";' },
    ];
    expect(circlesIn(files)).toEqual([
      ["/p/src/a.ts", "/p/src/b.ts"],
      ["/p/src/c.ts", "/p/src/d.ts"],
    ]);
  });

  it("reads every import form, relative ones only, `.js` as the `.ts` it is built from", () => {
    const text = [
      'import x from "./x.js";',
      'import type { Y } from "../y.js";',
      'export * from "./z.ts";',
      'const w = import("./w.js");',
      'import { p } from "@muster/core";',
      '// import { q } from "./q.js";',
    ].join("\n");
    expect(relativeImports("/p/src/a.ts", text)).toEqual([
      "/p/src/x.ts",
      "/p/y.ts",
      "/p/src/z.ts",
      "/p/src/w.ts",
    ]);
  });
});
