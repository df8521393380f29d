// Where a real Codex 0.171.0 TUI runs its notify from, and whether muster believes it (core's
// notifyOrigin): the user's own notify program, which muster chains, logs its chain of parents
// (muster's notify, then up to Codex); the chain holds the home's app-server daemon, and that
// daemon's argv and environment, with the member's record, make notifyOrigin answer yes.
// Whole real Codex session: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type ChainProcess, notifyOrigin } from "@muster/core";
import { processEnviron, processPlace, processStart } from "@muster/node";
import { eventually, LONG_TESTS, realCodex } from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { afterAll, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const CODEX = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "codex");
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve().then(cleanup);
});

const envOf = (environ: string): Record<string, string> =>
  Object.fromEntries(
    environ
      .split("\0")
      .filter((entry) => entry.includes("="))
      .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
  );

it.skipIf(!LONG_TESTS)(
  "a real Codex runs notify under its daemon, and muster believes it for the thread's member",
  async () => {
    let chainLog = "";
    const codex = await realCodex({
      prefix: "muster-codex-notify-daemon-",
      codex: CODEX,
      muster: MUSTER,
      label: "coder",
      prepare: ({ home, bin }) => {
        chainLog = path.join(home, "chain.log");
        const userNotify = path.join(bin, "user-notify");
        // Each parent's pid, start and argv (NUL-separated, as /proc has it), nearest first.
        writeFileSync(
          userNotify,
          [
            "#!/bin/sh",
            "p=$PPID",
            'while [ "$p" -gt 1 ]; do',
            `  printf '%s\\t%s\\t%s\\n' "$p" "$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f20)" "$(tr '\\0' '\\001' < /proc/$p/cmdline)" >> "${chainLog}.tmp"`,
            "  p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)",
            "done",
            `mv "${chainLog}.tmp" "${chainLog}"`,
          ].join("\n"),
          { mode: 0o755 },
        );
        mkdirSync(path.join(home, ".codex"));
        writeFileSync(path.join(home, ".codex", "config.toml"), `notify = ["${userNotify}"]\n`);
      },
      script: [
        { call: { name: "team_roster", namespace: "mcp__muster", arguments: {} } },
        { text: "Listed." },
      ],
    });
    cleanups.push(() => codex.close());
    await codex.start();
    await codex.submit("list the team");
    const log = await eventually(
      () => (existsSync(chainLog) ? readFileSync(chainLog, "utf8") : ""),
      (text) => text !== "",
      "the chained notify program's chain",
      { attempts: 400 },
    ).catch((error: Error) => {
      const partial = existsSync(`${chainLog}.tmp`) ? readFileSync(`${chainLog}.tmp`, "utf8") : "";
      const config = readFileSync(path.join(codex.home, ".codex", "config.toml"), "utf8");
      throw new Error(`${error.message}\n${partial}\n${config}\n${codex.screen()}`);
    });
    const chain: ChainProcess[] = log
      .trim()
      .split("\n")
      .map((line) => {
        const [pid, start = "", argv = ""] = line.split("\t");
        const row = { pid: Number(pid), start, argv: argv.split("\u0001").filter(Boolean) };
        const read = processEnviron(row.pid);
        const env = read.ok ? envOf(read.environ) : {};
        const home = env.CODEX_HOME ?? (env.HOME ? path.join(env.HOME, ".codex") : undefined);
        return { ...row, home };
      });
    const roster = await openTestTeam(codex.teamDir);
    const read = await roster.read();
    const member = read.ok ? read.members.find((entry) => entry.label === "coder") : undefined;
    expect(member?.id).toMatch(/^codex-/);
    expect(chain[0]?.argv.join(" ")).toContain("hook codex notify");
    expect(chain.some((row) => row.argv.includes("app-server"))).toBe(true);
    expect(chain.find((row) => row.argv.includes("app-server"))?.start).toBe(
      processStart(chain.find((row) => row.argv.includes("app-server"))!.pid),
    );
    expect(notifyOrigin(member!, processPlace(), chain)).toEqual({ ok: true, via: "daemon" });
  },
  180_000,
);
