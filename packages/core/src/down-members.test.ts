import { describe, expect, it } from "vitest";
import { downMembers } from "./index.js";

const declared = [{ label: "bob" }, { label: "Carol" }, { label: "dan" }];
const SESSION = "019b0000-aaaa-7bbb-8ccc-ddddeeeeffff";

describe("downMembers: a declared member that is down keeps its label and its mail", () => {
  it("keeps a declared pi member's mail under its session, a Codex's under its thread", () => {
    expect(
      downMembers(declared, [
        { label: "bob", engine: "pi", session: SESSION, down: "t1" },
        { label: "carol", engine: "codex", session: SESSION, down: "t2" },
      ]),
    ).toEqual([
      { label: "bob", id: SESSION, since: "t1" },
      { label: "carol", id: `codex-${SESSION}`, since: "t2" },
    ]);
  });

  it("prefers the member id down recorded (a Claude Code member comes back under a new one)", () => {
    const record = { label: "dan", engine: "claude", session: SESSION, down: "t", member: "m-1" };
    expect(downMembers(declared, [record])).toEqual([{ label: "dan", id: "m-1", since: "t" }]);
    // Without it there is no mailbox to keep mail in: nothing is kept.
    expect(downMembers(declared, [{ ...record, member: undefined }])).toEqual([]);
  });

  it("keeps nothing for a member up is starting, or one the team file does not name", () => {
    expect(
      downMembers(declared, [
        { label: "bob", engine: "pi", session: SESSION },
        { label: "eve", engine: "pi", session: SESSION, down: "t" },
      ]),
    ).toEqual([]);
  });
});
