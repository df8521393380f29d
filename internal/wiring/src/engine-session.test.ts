// The Codex thread a member id names is core's rule (codexThreadOf), read once: the session a down
// member is resumed with is the thread every other door reads from the same id.
import { codexThreadOf } from "@muster/core";
import { describe, expect, it } from "vitest";
import { sessionOfMember } from "./engine-session.ts";

const THREAD = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";

describe("sessionOfMember", () => {
  it.each([
    `codex-${THREAD}`,
    `codex-${THREAD.toUpperCase()}`,
    "codex-0199a1b2c3d4",
    "codex-../../etc",
    "codex-",
    `claude-${THREAD}`,
    "shell-42-99",
  ])("reads %s as core's codexThreadOf does", (memberId) => {
    expect(sessionOfMember("codex", memberId)).toBe(codexThreadOf(memberId));
  });

  it("names no session for an engine whose member is not its session", () => {
    expect(sessionOfMember("claude", `codex-${THREAD}`)).toBeUndefined();
  });
});
