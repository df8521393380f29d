// Where a real Codex 0.171.0 TUI runs its notify from, and whether muster believes it (core's
// notifyOrigin): a notify program logs its own chain of processes up to Codex (the home's
// app-server daemon, or the thread's own Codex); with each process's argv and environment and the
// member's record, notifyOrigin answers yes.
// Whole real Codex session: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type ChainProcess, notifyOrigin } from "@muster/core";
import { processEnviron, processPlace } from "@muster/node";
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
      script: [
        { call: { name: "team_roster", namespace: "mcp__muster", arguments: {} } },
        { text: "Listed." },
      ],
    });
    cleanups.push(() => codex.close());
    // Codex's notify, as muster's install wrote it, replaced by a program that logs its own chain
    // of processes (itself first, alive while it reads), nearest first: the chain muster's notify
    // has under Codex. (Read from the program muster chains, it races muster's own exit.) Each run
    // writes its own file and moves it whole: Codex may run notify twice at once, and two runs
    // appending to one file gave a chain that began at the daemon (CI of 54af41c).
    chainLog = path.join(codex.home, "chain.log");
    const walker = path.join(codex.bin, "notify-chain");
    writeFileSync(
      walker,
      [
        "#!/bin/sh",
        "p=$$",
        'while [ "$p" -gt 1 ]; do',
        `  printf '%s\\t%s\\t%s\\n' "$p" "$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f20)" "$(tr '\\0' '\\001' < /proc/$p/cmdline)" >> "${chainLog}.$$.tmp"`,
        "  p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)",
        "done",
        `mv "${chainLog}.$$.tmp" "${chainLog}"`,
      ].join("\n"),
      { mode: 0o755 },
    );
    const config = path.join(codex.home, ".codex", "config.toml");
    writeFileSync(
      config,
      readFileSync(config, "utf8").replace(/^notify = .*$/m, `notify = ["${walker}"]`),
    );
    expect(readFileSync(config, "utf8")).toContain(`notify = ["${walker}"]`);
    await codex.start();
    await codex.submit("list the team");
    const log = await eventually(
      () => (existsSync(chainLog) ? readFileSync(chainLog, "utf8") : ""),
      (text) => text !== "",
      "the chained notify program's chain",
      { attempts: 400 },
    ).catch((error: Error) => {
      const partial = readdirSync(codex.home)
        .filter((name) => name.endsWith(".tmp"))
        .map((name) => readFileSync(path.join(codex.home, name), "utf8"))
        .join("\n");
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
    expect(chain[0]?.argv.join(" ")).toContain("notify-chain");
    // Under the daemon, or (when the TUI ran the thread in process) under the member's own Codex.
    const origin = notifyOrigin(member!, processPlace(), chain);
    expect(origin, `${JSON.stringify(member)}\n${log}`).toMatchObject({ ok: true });
  },
  180_000,
);
