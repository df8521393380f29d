// `muster install tmux`, run as the user runs it (the built CLI, a throwaway HOME): the status line
// after the user's own status-right, through a dotfiles symlink, idempotent, removed byte for byte
// after the user edited other lines, a broken block refused with nothing changed; and a real
// private tmux server that sources the installed file shows the line and binds prefix+g to muster
// go. (A full disk is not tried here: the shared all-or-nothing write is install-files.test.ts's.)
import { execFile } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { eventually, startPrivateTmux, tmuxEnv } from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { afterEach, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const execute = promisify(execFile);
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function userHome(extra: Record<string, string | undefined> = {}) {
  const home = mkdtempSync(path.join(tmpdir(), "muster-tmux-install-"));
  cleanups.push(() => {
    chmodSync(home, 0o700);
    rmSync(home, { recursive: true, force: true });
  });
  const env = tmuxEnv({
    HOME: home,
    XDG_CONFIG_HOME: undefined,
    MUSTER_TEAM_DIR: path.join(home, "team"),
    MUSTER_STATE_DIR: path.join(home, "state"),
    ...extra,
  });
  const muster = (...args: string[]) =>
    execute(process.execPath, [MUSTER, ...args], { cwd: home, env }).then(
      (done) => ({ code: 0, ...done }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  return { home, env, muster };
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const USER = "# mine\nset -g status-right '#[fg=green]#H %H:%M'\nbind r source-file ~/.tmux.conf\n";

it("adds the line after the user's status-right, once, and removes only muster's lines", async () => {
  const { home, muster } = userHome();
  const conf = path.join(home, ".tmux.conf");
  writeFileSync(conf, USER);
  const dry = await muster("install", "tmux", "--dry-run", "--json");
  expect(JSON.parse(dry.stdout)).toMatchObject({
    ok: true,
    dryRun: true,
    changed: true,
    file: conf,
  });
  expect(JSON.parse(dry.stdout).diff).toContain("+set-option -ga status-right");
  expect(readFileSync(conf, "utf8")).toBe(USER);
  const first = await muster("install", "tmux");
  expect(first.code).toBe(0);
  expect(first.stdout).toContain(`tmux source-file ${conf}`);
  const installed = readFileSync(conf, "utf8");
  expect(installed.startsWith(USER)).toBe(true);
  expect(installed).toContain(`${MUSTER} status --line)'`);
  const again = await muster("install", "tmux", "--json");
  expect(JSON.parse(again.stdout)).toMatchObject({ ok: true, changed: false });
  expect(readFileSync(conf, "utf8")).toBe(installed);
  // The user edits their own lines above and below muster's block; the uninstall keeps them all.
  const edited = `set -g mouse on\n${installed.replace("%H:%M", "%H:%M:%S")}set -g history-limit 9\n`;
  writeFileSync(conf, edited);
  const removed = await muster("install", "tmux", "--uninstall", "--json");
  expect(JSON.parse(removed.stdout)).toMatchObject({ ok: true, changed: true, action: "remove" });
  expect(readFileSync(conf, "utf8")).toBe(
    `set -g mouse on\n${USER.replace("%H:%M", "%H:%M:%S")}set -g history-limit 9\n`,
  );
  expect(readdirSync(home).filter((name) => name.includes(".muster-"))).toEqual([]);
});

it("a Latin-1 config comes back byte for byte after install and uninstall", async () => {
  const { home, muster } = userHome();
  const conf = path.join(home, ".tmux.conf");
  // "# café" and a status-right with "§" in Latin-1: 0xe9 and 0xa7 are not UTF-8 on their own.
  const user = Buffer.concat([
    Buffer.from("# caf\xe9\nset -g status-right '\xa7 %H:%M'\n", "latin1"),
    Buffer.from([0xff, 0xfe, 0x0a]),
  ]);
  writeFileSync(conf, user);
  expect((await muster("install", "tmux")).code).toBe(0);
  const installed = readFileSync(conf);
  expect(installed.subarray(0, user.length).equals(user)).toBe(true);
  expect(installed.toString("latin1")).toContain("status --line)'");
  expect((await muster("install", "tmux", "--uninstall")).code).toBe(0);
  expect(readFileSync(conf).equals(user)).toBe(true);
});

it("writes through a dotfiles symlink, and a file muster made goes away again", async () => {
  const { home, muster } = userHome();
  mkdirSync(path.join(home, "dotfiles"));
  const real = path.join(home, "dotfiles", "tmux.conf");
  writeFileSync(real, USER);
  symlinkSync(real, path.join(home, ".tmux.conf"));
  expect((await muster("install", "tmux")).code).toBe(0);
  expect(lstatSync(path.join(home, ".tmux.conf")).isSymbolicLink()).toBe(true);
  expect(readlinkSync(path.join(home, ".tmux.conf"))).toBe(real);
  expect(readFileSync(real, "utf8")).toContain("status --line");
  expect((await muster("install", "tmux", "--uninstall")).code).toBe(0);
  expect(readFileSync(real, "utf8")).toBe(USER);

  const fresh = userHome();
  const xdg = path.join(fresh.home, ".config", "tmux", "tmux.conf");
  mkdirSync(path.dirname(xdg), { recursive: true });
  writeFileSync(xdg, "set -g mouse on");
  expect(JSON.parse((await fresh.muster("install", "tmux", "--json")).stdout).file).toBe(xdg);
  expect(existsSync(path.join(fresh.home, ".tmux.conf"))).toBe(false);
  await fresh.muster("install", "tmux", "--uninstall");
  expect(readFileSync(xdg, "utf8")).toBe("set -g mouse on");

  const none = userHome();
  await none.muster("install", "tmux");
  expect(existsSync(path.join(none.home, ".tmux.conf"))).toBe(true);
  await none.muster("install", "tmux", "--uninstall");
  expect(existsSync(path.join(none.home, ".tmux.conf"))).toBe(false);
});

it("keeps the user's own prefix+g, in their file or in the running server, and says so", async () => {
  const { home, env, muster } = userHome();
  const conf = path.join(home, ".tmux.conf");
  const mine = `${USER}bind-key g display-message mine\n`;
  writeFileSync(conf, mine);
  const installed = await muster("install", "tmux", "--json");
  expect(JSON.parse(installed.stdout)).toMatchObject({
    ok: true,
    changed: true,
    key: { bound: false, kept: "bind-key g display-message mine" },
  });
  const text = readFileSync(conf, "utf8");
  expect(text.startsWith(mine)).toBe(true);
  expect(text).toContain("status --line");
  expect(text).not.toMatch(/^bind-key g run-shell/m);
  // A real server that sources it runs the user's command on prefix+g, not muster's.
  const server = startPrivateTmux({ env, cwd: home });
  cleanups.unshift(() => server.kill());
  server.tmux("source-file", conf);
  expect(server.tmux("list-keys", "-T", "prefix", "g").trim()).toBe(
    "bind-key -T prefix g display-message mine",
  );
  expect((await muster("install", "tmux", "--uninstall")).code).toBe(0);
  expect(readFileSync(conf, "utf8")).toBe(mine);

  // Bound at run time in the server named (or in a file the config sources): kept too, with a note.
  writeFileSync(conf, USER);
  server.tmux("bind-key", "g", "display-message", "typed");
  const human = await muster("install", "tmux", "-L", server.name);
  expect(human.code).toBe(0);
  expect(human.stdout).toContain(
    "prefix+g is yours (bind-key -T prefix g display-message typed): kept;",
  );
  expect(readFileSync(conf, "utf8")).not.toMatch(/^bind-key g run-shell/m);
  expect((await muster("install", "tmux", "--uninstall")).code).toBe(0);
  expect(readFileSync(conf, "utf8")).toBe(USER);
  // A free key is bound, and muster's own binding loaded in the server is not taken for the user's.
  server.tmux("unbind-key", "g");
  expect((await muster("install", "tmux", "-L", server.name)).code).toBe(0);
  server.tmux("source-file", conf);
  const again = await muster("install", "tmux", "-L", server.name, "--json");
  expect(JSON.parse(again.stdout)).toMatchObject({
    changed: false,
    key: { bound: true, kept: null },
  });
  expect(server.tmux("list-keys", "-T", "prefix", "g")).toContain(`${MUSTER} go`);
}, 60_000);

it("refuses a broken muster block in one line (text and --json), changing nothing", async () => {
  const { home, muster } = userHome();
  const conf = path.join(home, ".tmux.conf");
  writeFileSync(
    conf,
    `${USER}# >>> muster (muster install tmux; muster install tmux --uninstall removes it)\n`,
  );
  const before = readFileSync(conf, "utf8");
  const broken = await muster("install", "tmux", "--uninstall");
  expect(broken.code).not.toBe(0);
  expect(broken.stderr.trim().split("\n")).toHaveLength(1);
  expect(broken.stderr).toContain("fix or delete it by hand");
  expect(readFileSync(conf, "utf8")).toBe(before);
  const json = await muster("install", "tmux", "--json");
  expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, reason: "muster-block-broken" });
  expect(readFileSync(conf, "utf8")).toBe(before);
  expect(readdirSync(home).filter((name) => name.includes(".muster-"))).toEqual([]);
});

const NO_LOCALE = { LANG: undefined, LC_ALL: undefined, LC_CTYPE: undefined };

// Under UTF-8 the client is told so (-u: CI has no locale), and shows the line's glyphs; under the C
// locale tmux draws every non-ASCII character as _, so the line is ASCII and the row shows it whole.
it.each([
  { locale: "UTF-8", vars: { ...NO_LOCALE, LANG: "C.UTF-8" }, client: "tmux -u", ascii: false },
  { locale: "C", vars: NO_LOCALE, client: "tmux", ascii: true },
])(
  "a real tmux server sourcing the installed file shows muster's line ($locale) and binds prefix+g",
  async ({ vars, client, ascii }) => {
    const { home, env, muster } = userHome(vars);
    const conf = path.join(home, ".tmux.conf");
    writeFileSync(conf, USER);
    expect((await muster("install", "tmux")).code).toBe(0);
    const server = startPrivateTmux({ env, cwd: home });
    cleanups.unshift(() => server.kill());
    server.tmux("source-file", conf);
    const right = server.tmux("show-options", "-gv", "status-right").trim();
    expect(right.startsWith("#[fg=green]#H %H:%M #(")).toBe(true);
    expect(right).toContain(`${MUSTER} status --line)`);
    expect(
      Number(server.tmux("show-options", "-gv", "status-right-length")),
    ).toBeGreaterThanOrEqual(100);
    expect(server.tmux("list-keys", "-T", "prefix", "g")).toContain(`${MUSTER} go`);
    // tmux runs the #() job and shows what muster status --line printed.
    const roster = await openTestTeam(path.join(home, "team"));
    await roster.join({
      id: "m1",
      label: "reviewer",
      agent: "pi",
      pid: process.pid,
      watching: { armed: true, wake: false },
      liveness: "heartbeat",
    });
    const at = new Date().toISOString();
    await roster.activity("m1", () => ({
      activity: { state: "needs-you", since: at, at, signal: "pi/confirm" },
    }));
    const line = (await muster("status", "--line")).stdout.trim();
    expect(line).toContain("reviewer");
    expect(/[^\x20-\x7e]/.test(line)).toBe(!ascii);
    // A client attached from a second private server's pane: its status row is what a person sees.
    // tmux runs a #() job again only every status-interval (15 s by default): once a second here, so
    // a job that was slow on a loaded machine is shown within the wait.
    server.tmux("set-option", "-g", "status-interval", "1");
    const viewer = startPrivateTmux({
      env,
      command: `env -u TMUX ${client} -L ${server.name} attach`,
    });
    cleanups.unshift(() => viewer.kill());
    await eventually(
      () => viewer.tmux("capture-pane", "-p", "-t", "main"),
      // The user's own clock (%H:%M) still before muster's line on the same row.
      (screen) =>
        screen.split("\n").some((row) => new RegExp(`\\d\\d:\\d\\d ${literal(line)}`).test(row)),
      "the attached client's status row to show muster status --line",
      { attempts: 200, intervalMs: 100 },
    );
  },
  60_000,
);
