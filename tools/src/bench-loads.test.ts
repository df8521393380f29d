// `pnpm bench` runs tools/bench/*.ts under plain Node, not under Vitest: a module that only a
// bundler or Vitest can resolve (a `.js` specifier naming a `.ts` file in a workspace package
// exported as source) loads in every test and fails there. Five benchmarks did, through
// @muster/test-team → @muster/wiring, and BENCHMARKS.md could not be reproduced. This loads each
// one in a plain Node process, as the runner does (the packages are built first, as `pnpm test`
// and `pnpm bench` both do).
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

const bench = path.resolve(import.meta.dirname, "..", "bench");

it("every benchmark module loads under plain Node, as pnpm bench runs it", () => {
  const files = readdirSync(bench).filter((name) => name.endsWith(".ts"));
  expect(files.length).toBeGreaterThan(10);
  const script = files
    .map(
      (name) =>
        `await import(${JSON.stringify(path.join(bench, name))}).then((m) => { if (typeof m.run !== "function") throw new Error(${JSON.stringify(`${name} has no run()`)}); });`,
    )
    .join("\n");
  const loaded = execFileSync(
    process.execPath,
    ["--input-type=module", "-e", `${script}\nconsole.log("loaded ${files.length}");`],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  expect(loaded.trim()).toBe(`loaded ${files.length}`);
});
