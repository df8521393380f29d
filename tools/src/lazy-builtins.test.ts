// The stand-in a bundle takes a Node builtin through: what the code reads of it is the builtin's,
// methods a builtin object inherits included (Ink calls `process.off`, an EventEmitter's).
import { describe, expect, it } from "vitest";
import { lazyModule } from "./lazy-builtins.ts";

/** The stand-in's module.exports, evaluated as a bundle evaluates it. */
const standIn = (specifier: string) => {
  const module = { exports: {} as Record<string, unknown> };
  new Function("module", "process", lazyModule(specifier))(module, process);
  return module.exports;
};

describe("a builtin taken lazily", () => {
  it("node:process is the process, with the methods it inherits", () => {
    const taken = standIn("node:process");
    expect(taken).toBe(process);
    expect(typeof taken.off).toBe("function");
  });

  it("a module's exports are read from the builtin when used", () => {
    const path = standIn("node:path") as { join: (...parts: string[]) => string };
    expect(path.join("a", "b")).toBe("a/b");
  });

  it("is made without taking the builtin, nor a function per export", () => {
    const source = lazyModule("node:fs");
    // One list of names: `node:fs` made as a getter per export was ~100 closures at every start.
    expect(source.match(/=>/g)?.length ?? 0).toBeLessThan(10);
    let taken = 0;
    const counting = {
      getBuiltinModule: (name: string) => {
        taken += 1;
        return process.getBuiltinModule(name);
      },
    };
    const module = { exports: {} as Record<string, unknown> };
    new Function("module", "process", source)(module, counting);
    // What esbuild's interop and an await read of a module: not exports, so nothing is taken.
    const fs = Object.create(Object.getPrototypeOf(module.exports)) as Record<string, unknown>;
    expect([fs.__esModule, fs.then, "then" in fs]).toEqual([undefined, undefined, false]);
    expect(taken).toBe(0);
    expect(fs.readFileSync).toBe(process.getBuiltinModule("node:fs").readFileSync);
    expect("existsSync" in fs).toBe(true);
    expect(taken).toBe(1);
  });
});
