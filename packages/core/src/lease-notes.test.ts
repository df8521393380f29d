import { describe, expect, it } from "vitest";
import { advisoryLine, unmatchedLine, unmatchedPatterns } from "./index.js";

const FILES = ["src/auth/login.ts", "src/auth/token.ts", "README.md", "docs/a b.md"];

describe("unmatchedPatterns: a lease that covers no file today", () => {
  it("names the typo, not the patterns that cover something", () => {
    expect(unmatchedPatterns(["scr/**", "src/auth/**", "*.md", "src/auth"], FILES)).toEqual([
      "scr/**",
    ]);
  });

  it("a literal names a file or a whole folder", () => {
    expect(unmatchedPatterns(["src", "src/auth/login.ts", "src/aut"], FILES)).toEqual(["src/aut"]);
  });

  it("follows the repository's case rule", () => {
    expect(unmatchedPatterns(["SRC/**"], FILES)).toEqual(["SRC/**"]);
    expect(unmatchedPatterns(["SRC/**"], FILES, true)).toEqual([]);
  });

  it("an empty repository: every pattern covers nothing", () => {
    expect(unmatchedPatterns(["**"], [])).toEqual(["**"]);
  });

  it("the lines say what happened and what to do", () => {
    expect(unmatchedLine("scr/**")).toMatch(/no file .* matches scr\/\*\* .*muster release/);
    expect(advisoryLine()).toMatch(/advisory.*muster install git-hook/);
  });
});
