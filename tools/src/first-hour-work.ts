// The hour's work with a spawned teammate, replayed by first-hour-user.ts while bob (a real pi on
// the faux model, offline) is on the team. The person types into a shell of their own in a tmux
// pane, as a user does: they lease src/parser.js, install muster's git hook, and commit the file
// (their own lease: it passes). Then `muster send bob 'tests are green' --wait` wakes bob, and
// bob's turn (scripted: pi's bash tool) commits the same file, which the hook refuses naming the
// person who holds it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Ran, Steps } from "./replay-steps.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : "");

/** Wait for `file` to hold something (a command's exit code), for `seconds` at most. */
async function written(file: string, seconds: number, what: string): Promise<string> {
  for (let waited = 0; read(file).trim() === ""; waited += 200) {
    if (waited > seconds * 1000) throw new Error(`${what} did not finish in ${seconds} s`);
    await sleep(200);
  }
  return read(file).trim();
}

/** Where bob's commit, made by his pi's bash tool in his turn for the mail, leaves its answer. */
export function bobsCommit(work: string, repo: string) {
  const out = path.join(work, "bob-commit.out");
  const status = path.join(work, "bob-commit.status");
  const command = `cd ${quote(repo)} && echo bob >> src/parser.js && git add src/parser.js && git commit -q -m bob > ${quote(out)} 2>&1; echo $? > ${quote(status)}`;
  // The faux model's script (packages/pi-extension/test/faux-extension.ts): its first turn calls
  // bash once; every turn after answers "ok".
  const script = JSON.stringify([{ tool: "bash", args: { command } }]);
  return { out, status, script };
}

/**
 * The person's shell: `bash` in a window of its own, each command typed into it; its answer read
 * from files. The same shell throughout, so muster knows it as one member.
 */
function personShell(tmux: (...args: string[]) => string, work: string, repo: string) {
  tmux("new-window", "-d", "-t", "main", "-n", "person", "-c", repo, "bash --norc --noprofile");
  let typed = 0;
  return async (command: string, seconds: number): Promise<Ran> => {
    typed += 1;
    const base = path.join(work, `person-${typed}`);
    const [out, err, tmp, status] = ["out", "err", "tmp", "status"].map((end) => `${base}.${end}`);
    tmux(
      "send-keys",
      "-t",
      "main:person",
      "-l",
      `{ ${command}; } > ${quote(out!)} 2> ${quote(err!)}; echo $? > ${quote(tmp!)}; mv ${quote(tmp!)} ${quote(status!)}`,
    );
    tmux("send-keys", "-t", "main:person", "Enter");
    const code = await written(status!, seconds, command);
    return { status: Number(code), stdout: read(out!), stderr: read(err!) };
  };
}

const said = (ran: Ran) =>
  `exit ${ran.status}: ${`${ran.stdout}${ran.stderr}`.trim().split("\n").slice(-10).join("\n")}`;

/** The steps of the hour's work; bob's pi was started with `bobsCommit(work, repo).script`. */
export async function hourOfWork(options: {
  step: Steps["step"];
  tmux: (...args: string[]) => string;
  work: string;
  repo: string;
}) {
  const { step, tmux, work, repo } = options;
  const shell = personShell(tmux, work, repo);
  const must = async (command: string, seconds = 60) => {
    const ran = await shell(command, seconds);
    if (ran.status !== 0) throw new Error(`${command}: ${said(ran)}`);
    return ran;
  };
  let holder = "";
  const leased = await step(
    "the person's shell: muster lease src/parser.js, muster install git-hook",
    60,
    async () => {
      await must(
        "mkdir -p src && echo 'export {}' > src/parser.js && git add -A && git commit -q -m start",
      );
      const lease = await must("muster lease src/parser.js");
      await must("muster install git-hook");
      const list = await must("muster lease --list --json");
      const leases = JSON.parse(list.stdout).leases as { pattern: string; holder: string }[];
      holder = leases.find((each) => each.pattern === "src/parser.js")?.holder ?? "";
      if (holder === "") throw new Error(`no lease on src/parser.js: ${list.stdout}`);
      return `${lease.stdout.trim().split("\n")[0]} (held by ${holder})`;
    },
  );
  if (!leased) return;
  await step("the person's own commit of src/parser.js passes the hook", 60, async () => {
    await must("echo '// mine' >> src/parser.js && git add src/parser.js && git commit -q -m mine");
    return (await must("git log -1 --format='%h %s'")).stdout.trim();
  });
  const woken = await step("muster send bob 'tests are green' --wait: bob woke", 60, async () => {
    const sent = await must("muster send bob 'tests are green' --wait --json", 50);
    const wait = JSON.parse(sent.stdout).wait as {
      done: boolean;
      recipients: { label: string; reached: string; how?: string }[];
    };
    const bob = wait.recipients.find((each) => each.label === "bob");
    if (!wait.done || !bob || !["woke", "delivered", "acknowledged"].includes(bob.reached))
      throw new Error(`not woken: ${sent.stdout}`);
    return `bob's receipt: ${bob.reached}${bob.how ? ` (${bob.how})` : ""}`;
  });
  if (!woken) return;
  await step("bob's commit of src/parser.js (his pi's bash tool) refused", 90, async () => {
    const bob = bobsCommit(work, repo);
    const code = await written(bob.status, 80, "bob's git commit");
    const out = read(bob.out).trim();
    if (code === "0" || !out.includes(`held by ${holder}`))
      throw new Error(`exit ${code}, not refused naming ${holder}: ${out}`);
    return out
      .split("\n")
      .find((line) => line.includes(`held by ${holder}`))!
      .trim();
  });
}
