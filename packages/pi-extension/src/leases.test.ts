// Path leases inside the real pi host (RPC, faux model, throwaway HOME): one session leases a file
// through its model's team_lease call; the other session's model then calls pi's own edit tool on
// that file (blocked, the holder named) and on another file (allowed, and the file changes).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PiRecord } from "../test/pi-rpc.js";
import { joined, removeScratch, team, toolEnd } from "../test/team.js";

afterAll(removeScratch);

const text = (record: PiRecord) => JSON.stringify(record.result);

describe("path leases in pi", () => {
  it("blocks another member's edit of a leased file, names the holder, and allows the rest", async (test) => {
    const shared = team(test);
    const repo = shared.cwd;
    const start = (label: string, script: unknown[]) => shared.start({ label, script });
    mkdirSync(path.join(repo, "src"), { recursive: true });
    writeFileSync(path.join(repo, "src", "a.ts"), "export const a = 1;\n");
    writeFileSync(path.join(repo, "src", "b.ts"), "export const b = 1;\n");
    execFileSync("git", ["init", "-q"], { cwd: repo });

    const alice = start("alice", [
      { tool: "team_lease", args: { paths: ["src/a.ts"], reason: "renaming a" } },
      { text: "leased" },
    ]);
    const bob = start("bob", [
      { tool: "edit", args: { path: "src/a.ts", edits: [{ oldText: "a = 1", newText: "a = 2" }] } },
      { tool: "edit", args: { path: "src/b.ts", edits: [{ oldText: "b = 1", newText: "b = 2" }] } },
      { text: "done" },
    ]);
    await Promise.all([joined(alice), joined(bob)]);

    await alice.prompt("lease a");
    expect(text(await toolEnd(alice, "team_lease"))).toMatch(
      /Leased src\/a\.ts \(exclusive\) until \d\d:\d\d\./,
    );

    await alice.waitFor(
      (record) =>
        record.method === "setStatus" &&
        record.statusKey === "muster-lease" &&
        record.statusText === "✎ src/a.ts",
      "alice's footer to show her lease",
    );

    await bob.prompt("edit both");
    const blocked = await toolEnd(bob, "edit", 0);
    expect(blocked.isError).toBe(true);
    expect(text(blocked)).toMatch(
      /src\/a\.ts is leased \(src\/a\.ts\), held by alice \(renaming a\) until \d\d:\d\d; ask alice to release it \(team_send to \\+"alice\\+"\)/,
    );
    const allowed = await toolEnd(bob, "edit", 1);
    expect(allowed.isError).toBe(false);
    expect(readFileSync(path.join(repo, "src", "a.ts"), "utf8")).toBe("export const a = 1;\n");
    expect(readFileSync(path.join(repo, "src", "b.ts"), "utf8")).toBe("export const b = 2;\n");
  });
});
