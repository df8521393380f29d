// One Claude Code member, two doors, one activity: `muster roster --json` and MCP's team_roster
// read the same facts (the wiring's memberActivity: the record, and Claude Code's own session
// registry, which says a permission prompt waits when no hook fired). The CLI is the built one.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { processStart } from "@muster/node";
import { describe, expect, it } from "vitest";
import { call, cleanupAfterEach, connect, roster, SERVE, scratchUntil } from "../test/helpers.ts";

const MUSTER = path.resolve(import.meta.dirname, "..", "..", "cli", "dist", "muster.js");
const cleanups = cleanupAfterEach();

describe("a Claude Code member's activity", () => {
  it("is the same in muster roster --json and team_roster, registry included", async () => {
    const work = scratchUntil(cleanups);
    const team = await roster(work.teamDir);
    const pidStart = processStart(process.pid);
    const joined = await team.join({
      id: "claude-member",
      label: "coder",
      agent: "claude",
      pid: process.pid,
      pidStart,
      liveness: "process",
      watching: { armed: true, wake: false },
    });
    expect(joined.ok).toBe(true);
    // Its hooks last said it works; Claude Code's own registry says it waits on the person.
    const at = new Date(Date.now() - 5000).toISOString();
    await team.activity("claude-member", () => ({
      activity: { state: "working", since: at, at, signal: "claude/user-prompt-submit" },
    }));
    const config = path.join(work.dir, "claude-config");
    mkdirSync(path.join(config, "sessions"), { recursive: true });
    writeFileSync(
      path.join(config, "sessions", `${process.pid}.json`),
      JSON.stringify({
        pid: process.pid,
        procStart: pidStart,
        status: "waiting",
        statusUpdatedAt: Date.now(),
      }),
    );
    const env = { MUSTER_TEAM_DIR: work.teamDir, CLAUDE_CONFIG_DIR: config };
    const cli = spawnSync(process.execPath, [MUSTER, "roster", "--json"], {
      env: { PATH: process.env.PATH, HOME: work.dir, ...env },
      encoding: "utf8",
    });
    expect(cli.status).toBe(0);
    const fromCli = JSON.parse(cli.stdout).members.find(
      (member: { label: string }) => member.label === "coder",
    ).activity.state;
    const connected = await connect(process.execPath, [SERVE], env);
    cleanups.push(() => connected.close());
    const listed = await call(connected.client, "team_roster");
    const fromMcp = (listed.structured.members as { label: string; activity: string }[]).find(
      (member) => member.label === "coder",
    )?.activity;
    expect(fromCli).toBe("needs-you");
    expect(fromMcp).toBe(fromCli);
  });
});
