// Path leases inside the real pi host (RPC, faux model, throwaway HOME): one session leases a file
// through its model's team_lease call; the other session's model then calls pi's own edit tool on
// that file (blocked, the holder named) and on another file (allowed, and the file changes).
// Whole real pi sessions: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { LONG_TESTS } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import type { PiRecord } from "../test/pi-rpc.js";
import { joined, removeScratch, team, toolEnd } from "../test/team.js";

afterAll(removeScratch);

const text = (record: PiRecord) => JSON.stringify(record.result);

describe.skipIf(!LONG_TESTS)("path leases in pi", () => {
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

  it("reads the path as pi's tools do (@, file://) and through symlinks: each leased write is blocked", async (test) => {
    const shared = team(test);
    const repo = shared.cwd;
    mkdirSync(path.join(repo, "src"), { recursive: true });
    writeFileSync(path.join(repo, "src", "a.ts"), "export const a = 1;\n");
    writeFileSync(path.join(repo, "AGENTS.md"), "rules\n");
    symlinkSync("AGENTS.md", path.join(repo, "CLAUDE.md"));
    execFileSync("git", ["init", "-q"], { cwd: repo });
    const alice = shared.start({
      label: "alice",
      script: [
        { tool: "team_lease", args: { paths: ["src/a.ts", "AGENTS.md"] } },
        { text: "leased" },
      ],
    });
    const edit = { oldText: "a = 1", newText: "a = 2" };
    const bob = shared.start({
      label: "bob",
      script: [
        { tool: "edit", args: { path: "@src/a.ts", edits: [edit] } },
        { tool: "write", args: { path: `file://${repo}/src/a.ts`, content: "gone\n" } },
        { tool: "write", args: { path: "CLAUDE.md", content: "overwritten\n" } },
        { text: "done" },
      ],
    });
    await Promise.all([joined(alice), joined(bob)]);
    await alice.prompt("lease");
    await toolEnd(alice, "team_lease");
    await bob.prompt("write them");
    for (const [index, tool, leased] of [
      [0, "edit", "src/a.ts"],
      [1, "write", "src/a.ts"],
      [2, "write", "AGENTS.md"],
    ] as const) {
      const blocked = await toolEnd(bob, tool, index === 0 ? 0 : index - 1);
      expect(blocked.isError, `${tool} #${index}`).toBe(true);
      expect(text(blocked)).toContain(`${leased} is leased (${leased}), held by alice`);
    }
    expect(readFileSync(path.join(repo, "src", "a.ts"), "utf8")).toBe("export const a = 1;\n");
    expect(readFileSync(path.join(repo, "AGENTS.md"), "utf8")).toBe("rules\n");
  });

  it("a team whose leases cannot be read blocks the edit, saying why", async (test) => {
    const shared = team(test);
    const repo = shared.cwd;
    writeFileSync(path.join(repo, "free.ts"), "x\n");
    const bob = shared.start({
      label: "bob",
      script: [{ tool: "write", args: { path: "free.ts", content: "y\n" } }, { text: "done" }],
    });
    await joined(bob);
    const leases = path.join(shared.dir, "leases");
    rmSync(leases, { recursive: true, force: true });
    writeFileSync(leases, "not a folder");
    await bob.prompt("write it");
    const blocked = await toolEnd(bob, "write");
    expect(blocked.isError).toBe(true);
    expect(text(blocked)).toMatch(/free\.ts is refused: muster could not check it/);
    expect(readFileSync(path.join(repo, "free.ts"), "utf8")).toBe("x\n");
  });
});
