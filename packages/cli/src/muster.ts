#!/usr/bin/env node
// The `muster` executable: the first module of every entry (the command, `muster mcp`, the hooks
// Claude Code, Codex, git and tmux run). It checks Node's version before anything else loads, and
// on a Node older than package.json's `engines` answers in one line what muster needs and how to
// get it, in the terms of whoever started it, instead of a stack trace from code that Node cannot
// run. Else it imports the real start (start.ts). Old Nodes must parse it: no import before the
// check, no top-level await, no syntax newer than ES2018 but the one dynamic import (the build
// targets ES2018; old-node.test.ts checks the built file). It stays tiny: every start reads it.

/** `engines.node` of package.json without its `>=` ("22.19"), put in by the build. */
declare const MUSTER_NODE_NEEDS: string;

const needs = MUSTER_NODE_NEEDS;
const major = needs.split(".")[0];

/** Whether this Node is older than `needs`, compared part by part. */
function tooOld(version: string): boolean {
  const have = version.split(".");
  const want = needs.split(".");
  for (let index = 0; index < 3; index += 1) {
    const mine = Number(have[index]) || 0;
    const wanted = Number(want[index]) || 0;
    if (mine !== wanted) return mine < wanted;
  }
  return false;
}

/** Write `text` to the stream, then end with `code` (once written: a pipe may be asynchronous). */
function say(stream: NodeJS.WriteStream, text: string, code: number, then?: () => void) {
  let done = false;
  // A failed write both calls back and raises 'error': what follows runs once.
  const next = () => {
    if (done) return;
    done = true;
    if (then) then();
    else process.exit(code);
  };
  if (!text) return next();
  stream.on("error", next);
  stream.write(text, next);
}

/** The hook's input read to its end first (Claude Code writes it whole, up to megabytes). */
function afterInput(answer: () => void) {
  const input = process.stdin;
  if (input.isTTY) return answer();
  let answered = false;
  const once = () => {
    if (answered) return;
    answered = true;
    answer();
  };
  setTimeout(once, 5000);
  input.on("data", () => undefined);
  input.on("end", once);
  input.on("error", once);
}

/** The command's word and the positional words after it (the global options' values skipped). */
function commandWords(words: string[]): string[] {
  const valued = ["-L", "-S", "--socket-name", "--socket-path", "--team-dir"];
  const found: string[] = [];
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index] as string;
    if (word === "--") break;
    if (valued.indexOf(word) >= 0) index += 1;
    else if (word.charAt(0) !== "-") found.push(word);
  }
  return found;
}

/** Codex's notify: the user's own program, chained after muster's, still gets the turn. */
function runChained(argv: string[]) {
  let after = argv.slice(argv.indexOf("notify") + 1);
  if (after[0] === "--") after = after.slice(1);
  if (after.length < 2) return Promise.resolve();
  const payload = after[after.length - 1] as string;
  return import("node:child_process").then(
    (child) => {
      const started = child.spawn(after[0] as string, after.slice(1, -1).concat(payload), {
        detached: true,
        stdio: "ignore",
      });
      started.on("error", () => undefined);
      started.unref();
    },
    () => undefined,
  );
}

/** The words of every answer, made only on a Node too old (a start on a newer one makes none). */
function wording() {
  const what = `needs Node >= ${needs}; this is Node ${process.versions.node} (${process.execPath})`;
  const newer = `Node ${needs} or newer (nvm install ${major}, or your package manager)`;
  // A guard that cannot decide refuses, unless the person chose to be warned only.
  const uncheckedFix = `install ${newer}, or set MUSTER_GUARD=warn to let changes through unchecked`;
  return {
    what,
    newer,
    uncheckedFix,
    warnOnly: process.env.MUSTER_GUARD === "warn",
    line: (who: string, then: string) => `${who} ${what}. Install ${newer}, then ${then}.\n`,
    unchecked: (change: string) =>
      `${change} is refused: muster could not check it against the team's leases (muster ${what}); ${uncheckedFix}.\n`,
  };
}
type Wording = ReturnType<typeof wording>;

const systemMessage = (note: string) => `${JSON.stringify({ systemMessage: note })}\n`;

/** Claude Code's hooks: the guard refuses the edit (exit 2); the others leave the session be. */
function claudeHook(event: string | undefined, { what, newer, warnOnly, unchecked }: Wording) {
  afterInput(() => {
    if (event !== "pre-tool-use") {
      const note = `muster ${what}, so its hooks do nothing: install ${newer}.`;
      return say(process.stdout, systemMessage(note), 0);
    }
    // Claude Code blocks a tool call on exit 2, with the reason on stderr.
    if (!warnOnly) return say(process.stderr, unchecked("This edit"), 2);
    const note = `muster guard (warn only): this edit was not checked against the team's leases: muster ${what}; install ${newer}.`;
    say(process.stdout, systemMessage(note), 0);
  });
}

/** Answer the command line in the terms of whoever runs it; exit as its door means it. */
function refuse(argv: string[]) {
  const text = wording();
  const words = commandWords(argv);
  const options = argv.slice(0, argv.indexOf("--") >= 0 ? argv.indexOf("--") : argv.length);
  const has = (option: string) => options.indexOf(option) >= 0;
  if (words[0] === "hook" && words[1] === "claude") return claudeHook(words[2], text);
  if (words[0] === "hook" && words[1] === "codex")
    return runChained(argv).then(() =>
      say(process.stderr, text.line("muster hook codex notify", "restart Codex"), 1),
    );
  if (words[0] === "status" && has("--line"))
    return say(process.stdout, `muster: needs Node >= ${needs}\n`, 1);
  if (words[0] === "mcp")
    return say(process.stderr, text.line("muster mcp", "restart the agent that runs it"), 1);
  const guard = words[0] === "guard" && !has("--install") && !has("--uninstall");
  const json = (fields: object) => (has("--json") ? `${JSON.stringify(fields, null, 2)}\n` : "");
  if (guard && (text.warnOnly || has("--warn"))) {
    const warning = `muster guard: muster ${text.what}; leases were not checked\n`;
    return say(process.stderr, warning, 0, () =>
      say(process.stdout, json({ ok: true, checked: false, blocked: [] }), 0),
    );
  }
  const fix = guard ? text.uncheckedFix : `install ${text.newer}, then run muster again`;
  const answer = { ok: false, reason: "node-version", error: `muster ${text.what}`, fix };
  const refusal = guard ? text.unchecked("This commit") : text.line("muster", "run muster again");
  say(process.stderr, refusal, 1, () => say(process.stdout, json(answer), 1));
}

if (tooOld(process.versions.node)) refuse(process.argv.slice(2));
else import("./start.js");
