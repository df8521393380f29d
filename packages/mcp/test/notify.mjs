// `muster hook codex notify <json>` as Codex runs it after a turn: a fresh process each time, the
// built hook (the CLI runs the same function). Prints the outcome.
const { codexNotify } = await import("../dist/hooks.js");
const outcome = await codexNotify(process.argv.slice(2), { env: process.env, cwd: process.cwd() });
process.stdout.write(`${JSON.stringify(outcome)}\n`);
