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
});
