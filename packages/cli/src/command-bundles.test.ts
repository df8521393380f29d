// Which bundle a command line starts from (_command-bundles.ts): the guard's own bundle serves
// `muster hook claude pre-tool-use` word for word and nothing else (its main holds no command
// table: an option or another event is hook's, whose main parses and answers it).
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandBundle } from "./_command-bundles.ts";

const bundleOf = (...argv: string[]) => {
  const url = commandBundle(argv);
  return url && path.basename(path.dirname(url.pathname));
};

describe("the bundle a command line starts from", () => {
  it("the guard's for Claude Code's PreToolUse line, exactly", () => {
    expect(bundleOf("hook", "claude", "pre-tool-use")).toBe("guard");
  });

  it("hook's for any other hook line, or the guard's with anything more", () => {
    expect(bundleOf("hook", "claude", "stop")).toBe("hook");
    expect(bundleOf("hook", "codex", "notify", "{}")).toBe("hook");
    expect(bundleOf("hook", "claude", "pre-tool-use", "--json")).toBe("hook");
    expect(bundleOf("hook", "claude", "pre-tool-use", "--help")).toBe("hook");
    expect(bundleOf("hook", "--team-dir", "t", "claude", "pre-tool-use")).toBe("hook");
    expect(bundleOf("hook", "claude")).toBe("hook");
  });

  it("agents' for every agents line: its main hands any it does not answer to the CLI's", () => {
    expect(bundleOf("agents")).toBe("agents");
    expect(bundleOf("agents", "--json", "-L", "work")).toBe("agents");
    expect(bundleOf("agents", "--help")).toBe("agents");
  });

  it("the others' as before, and none for the rest", () => {
    expect(bundleOf("status", "--line")).toBe("status-line");
    expect(bundleOf("roster", "--json")).toBe("team");
    expect(bundleOf("mcp")).toBe("mcp");
    expect(bundleOf("status")).toBeUndefined();
    expect(bundleOf()).toBeUndefined();
  });
});
