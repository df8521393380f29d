// The typed nudge against a real program in a real pane: a small `read` loop in
// `bash --norc --noprofile` on a private tmux server, logging every line it is given. The attacks:
// a half-typed user line, a busy agent (printing, or burning CPU behind an idle-looking prompt), a
// pane in copy mode, and keys: the only keys ever sent are the fixed text and Enter.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually, type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { NUDGE_TEXT } from "@muster/tmux";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nudgePane } from "./index.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-nudge-")));
let server: PrivateTmux;
let count = 0;
beforeAll(() => {
  server = startPrivateTmux();
});
afterAll(() => {
  server?.kill();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * A pane running the REPL: each line it reads is appended to the log. `print` prints dots for a
 * few seconds (busy, on screen); `spin` leaves a CPU-burning child behind a fresh prompt.
 */
function repl() {
  count += 1;
  const log = path.join(scratch, `log-${count}`);
  const script = path.join(scratch, `repl-${count}.sh`);
  writeFileSync(log, "");
  writeFileSync(
    script,
    `while IFS= read -r -p "> " line; do
  printf '%s\\n' "$line" >> "${log}"
  case "$line" in
    print) for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do printf .; sleep 0.15; done; echo ;;
    spin) ( end=$((SECONDS + 4)); while [ $SECONDS -lt $end ]; do :; done ) & ;;
  esac
done
`,
  );
  const pane = server
    .tmux(
      "new-window",
      "-d",
      "-P",
      "-F",
      "#{pane_id}",
      "-t",
      "main",
      `bash --norc --noprofile ${script}`,
    )
    .trim();
  const lines = () => readFileSync(log, "utf8").split("\n").slice(0, -1);
  return { pane, lines };
}

/** The real tmux on the private server, with every argument list it was given kept. */
function recorded() {
  const calls: string[][] = [];
  return {
    calls,
    run: (args: string[]) => {
      calls.push(args);
      // The leaf names the server (-L): the guard in run() checks it is the private one.
      return server.run(args);
    },
  };
}

const screen = (pane: string) => server.tmux("capture-pane", "-p", "-t", pane);
const ready = (pane: string) =>
  eventually(
    () => screen(pane),
    (text) => text.trimEnd().endsWith(">"),
    "the prompt",
  );
const nudge = (pane: string, run = recorded()) =>
  nudgePane({ run: run.run, target: { name: server.name }, pane, quietMs: 500 });

describe("the typed nudge in a real pane", () => {
  it("an idle agent at an empty prompt gets the fixed line, submitted once", async () => {
    const { pane, lines } = repl();
    await ready(pane);
    const run = recorded();
    expect(await nudge(pane, run)).toEqual({ ok: true });
    // The nudge is done when the terminal echoed Enter; the shell logs the line a moment later.
    await eventually(lines, (logged) => logged.length > 0, "the shell to read the line");
    expect(lines()).toEqual([NUDGE_TEXT]);
    const keys = run.calls.filter((args) => args.includes("send-keys"));
    expect(keys.map((args) => args.slice(args.indexOf("-t") + 2))).toEqual([
      ["-l", NUDGE_TEXT],
      ["Enter"],
    ]);
  });

  it("a half-typed user line is never appended to or submitted", async () => {
    const { pane, lines } = repl();
    await ready(pane);
    server.tmux("send-keys", "-t", pane, "-l", "git sta");
    await eventually(
      () => screen(pane),
      (text) => text.includes("git sta"),
      "the typing",
    );
    expect(await nudge(pane)).toMatchObject({ ok: false, reason: "input-not-empty" });
    expect(screen(pane)).not.toContain(NUDGE_TEXT);
    server.tmux("send-keys", "-t", pane, "-l", "tus");
    server.tmux("send-keys", "-t", pane, "Enter");
    await eventually(lines, (seen) => seen.length === 1, "the user's line");
    expect(lines()).toEqual(["git status"]);
  });

  it("a busy agent printing output is not nudged", async () => {
    const { pane, lines } = repl();
    await ready(pane);
    server.tmux("send-keys", "-t", pane, "print", "Enter");
    await eventually(
      () => screen(pane),
      (text) => text.includes(".."),
      "the output",
    );
    expect(await nudge(pane)).toMatchObject({ ok: false });
    expect(lines()).toEqual(["print"]);
  });

  it("a prompt with a CPU-burning process behind it is busy, not idle", async () => {
    const { pane, lines } = repl();
    await ready(pane);
    server.tmux("send-keys", "-t", pane, "spin", "Enter");
    await eventually(lines, (seen) => seen.length === 1, "the spin");
    await ready(pane);
    expect(await nudge(pane)).toMatchObject({ ok: false, reason: "busy" });
    expect(lines()).toEqual(["spin"]);
  });

  it("a pane in copy mode is not typed into", async () => {
    const { pane, lines } = repl();
    await ready(pane);
    server.tmux("copy-mode", "-t", pane);
    expect(await nudge(pane)).toMatchObject({ ok: false, reason: "in-mode" });
    server.tmux("send-keys", "-t", pane, "-X", "cancel");
    expect(lines()).toEqual([]);
  });

  it("a pane id that is not one, or a pane that is gone, types nothing", async () => {
    const run = recorded();
    expect(await nudge("%1;kill-server", run)).toMatchObject({ ok: false, reason: "no-pane" });
    expect(await nudge("%99999", run)).toMatchObject({ ok: false, reason: "no-pane" });
    expect(run.calls.filter((args) => args.includes("send-keys"))).toEqual([]);
  });
});
