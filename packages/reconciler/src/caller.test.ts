import { describe, expect, it } from "vitest";
import { findCaller } from "./_caller.js";
import { BUILTIN_ENGINES } from "./_engines.js";

type Row = { pid: number; ppid: number; start: string; name: string; argv: string[] };
const row = (pid: number, ppid: number, argv: string[], name = argv[0]?.split("/").at(-1) ?? "") =>
  ({ pid, ppid, start: `t${pid}`, name, argv }) satisfies Row;

const init = row(1, 0, ["/sbin/init"], "systemd");
const tmuxServer = row(10, 1, ["tmux", "new-session", "-d"], "tmux: server");
const bash = row(20, 10, ["-bash"], "bash");
const codex = row(30, 20, ["node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"], "node");

describe("findCaller", () => {
  it.each([
    [
      "pnpm muster join from an interactive shell: through sh -c and pnpm to bash",
      [
        init,
        tmuxServer,
        bash,
        row(40, 20, ["pnpm", "muster", "join", "tester"]),
        row(41, 40, ["/usr/bin/sh", "-c", "node tools/src/muster.ts join tester"], "sh"),
      ],
      41,
      { ok: true, pid: 20, agent: "bash", engine: undefined, via: ["sh -c", "pnpm"] },
    ],
    [
      "npx / npm exec (its title replaces argv) from zsh",
      [
        init,
        tmuxServer,
        row(20, 10, ["/usr/bin/zsh"], "zsh"),
        row(50, 20, ["npm exec"], "npm exec"),
        row(51, 50, ["sh", "-c", "muster join x"], "sh"),
      ],
      51,
      { ok: true, pid: 20, agent: "zsh", via: ["sh -c", "npm"] },
    ],
    [
      "node running npm-cli.js exec, and env",
      [
        init,
        tmuxServer,
        bash,
        row(60, 20, ["node", "/usr/lib/node_modules/npm/bin/npm-cli.js", "exec", "muster"], "node"),
        row(61, 60, ["env", "FOO=1", "muster"], "env"),
      ],
      61,
      { ok: true, pid: 20, agent: "bash", via: ["env", "npm-cli"] },
    ],
    [
      "an agent above wrappers wins: Codex runs pnpm muster",
      [
        init,
        tmuxServer,
        bash,
        codex,
        row(70, 30, ["pnpm", "muster", "join", "x"]),
        row(71, 70, ["sh", "-c", "node m.js"], "sh"),
      ],
      71,
      { ok: true, pid: 30, agent: "codex", engine: "codex", via: ["sh -c", "pnpm"] },
    ],
    [
      "a program that ran muster itself is the caller",
      [init, tmuxServer, bash, row(80, 20, ["python3", "bot.py"], "python3")],
      80,
      { ok: true, pid: 80, agent: "python3", via: [] },
    ],
  ])("%s", (_, rows, from, expected) => {
    expect(findCaller(rows, from, BUILTIN_ENGINES)).toMatchObject(expected);
  });

  it.each([
    [
      "wrappers straight under the tmux server: nobody stays",
      [
        init,
        tmuxServer,
        row(90, 10, ["sh", "-c", "pnpm muster join x"], "sh"),
        row(91, 90, ["pnpm", "muster", "join", "x"]),
      ],
      91,
      /no agent or interactive shell runs this command: above pnpm < sh -c is tmux \(pid 10\)/,
    ],
    [
      "wrappers whose parent is gone (re-parented to init)",
      [init, row(92, 1, ["sh", "-c", "muster join x"], "sh")],
      92,
      /above sh -c is init \(pid 1\)/,
    ],
    [
      "a parent missing from the table",
      [init],
      4242,
      /process 4242, this command's parent, is not in the process table; pass --id/,
    ],
    [
      "a parent loop in a hostile table ends the walk",
      [row(95, 96, ["sh", "-c", "x"], "sh"), row(96, 95, ["pnpm", "x"])],
      95,
      /no agent or interactive shell runs this command/,
    ],
  ])("refused: %s", (_, rows, from, pattern) => {
    const result = findCaller(rows, from, BUILTIN_ENGINES);
    expect(result).toMatchObject({ ok: false, reason: "no-caller" });
    expect(result.ok ? "" : result.error).toMatch(pattern);
  });

  it("a shell running a script is a wrapper; the shell that typed it is the caller", () => {
    const rows = [init, tmuxServer, bash, row(97, 20, ["bash", "./deploy.sh"], "bash")];
    expect(findCaller(rows, 97, BUILTIN_ENGINES)).toMatchObject({ ok: true, pid: 20 });
  });
});
