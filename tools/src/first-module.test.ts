// The Node version the CLI's first module checks comes from package.json's `engines`, in the one
// form the check compares; any other form stops the build instead of checking the wrong thing.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nodeNeeded } from "./first-module.ts";

describe("the Node the first module needs", () => {
  it.each([
    [">=22.19", "22.19"],
    [">= 22", "22"],
    [">=22.19.1", "22.19.1"],
  ])("%s is %s", (range, needed) => {
    expect(nodeNeeded(range)).toBe(needed);
  });

  it.each(["^22.19", ">=22.19 <25", "22.x", "", undefined])("%s stops the build", (range) => {
    expect(() => nodeNeeded(range)).toThrow(/engines\.node is .*>=MAJOR/);
  });

  it("reads the CLI's engines as they are written today", () => {
    const cli = path.resolve(import.meta.dirname, "..", "..", "packages", "cli", "package.json");
    const { engines } = JSON.parse(readFileSync(cli, "utf8")) as { engines: { node: string } };
    expect(nodeNeeded(engines.node)).toMatch(/^\d+(\.\d+){0,2}$/);
  });
});
