// `muster diff <label>` and `muster land <label|card>`: the wiring's memberDiff and landWork,
// rendered. Progress lines and the check's output go to stderr (stdout keeps the result, or the
// one JSON document); a refusal is an exit 1 with its fix. Who the caller is comes from the
// identity walk: a member by its label, the person at a shell as the person.
import { createInterface } from "node:readline/promises";
import { isPerson, printable, shownPaths } from "@muster/core";
import type { LandAnswer } from "@muster/wiring";
import { type Context, Refusal } from "./_context.js";
import { resolveCaller } from "./_identity.js";

export type DiffOptions = { label: string; stat: boolean };

export async function diffCommand(context: Context, options: DiffOptions) {
  const { memberDiff } = await import("@muster/wiring");
  const team = await context.team();
  const diff = await memberDiff({ cwd: context.io.cwd, teamDir: team.dir }, options.label, {
    stat: options.stat,
  });
  if (!diff.ok) throw new Refusal(diff.reason, diff);
  const { ok: _ok, ...document } = diff;
  if (context.json) return context.emit(document);
  const lines = [
    `${diff.label}'s ${diff.branch}: ${diff.commits.length} commit(s) ahead of ${diff.base}, ${diff.files.length} file(s)`,
    ...diff.commits.map((each) => `  ${each.commit.slice(0, 12)} ${printable(each.subject)}`),
  ];
  if (diff.uncommitted && diff.uncommitted.length > 0)
    lines.push(`not committed (not part of a land): ${shownPaths(diff.uncommitted)}`);
  context.out(lines.join("\n"));
  if (diff.patch) context.out(printable(diff.patch, { lines: true }));
}

export type LandOptions = {
  target: string;
  id: string | undefined;
  check: string | undefined;
  noCheck: boolean;
  dryRun: boolean;
  noWait: boolean;
};

/** Asked on the person's own terminal; false where there is none (an agent's shell tool). */
function confirmOnTerminal(context: Context) {
  return async (command: string) => {
    if (!context.io.stdin.isTTY || !context.io.stderr.isTTY) return false;
    const asking = createInterface({ input: context.io.stdin, output: process.stderr });
    try {
      const answer = await asking.question(
        `muster.toml asks land to run: ${printable(command)}\nrun it, now and from now on in this repository? [y/N] `,
      );
      return /^y(es)?$/iu.test(answer.trim());
    } finally {
      asking.close();
    }
  };
}

/** The caller as a lander: a live member by its label; the person at a shell as the person. */
async function whoLands(context: Context, explicitId: string | undefined) {
  const [caller, roster] = await Promise.all([
    resolveCaller(context, explicitId),
    context.roster(),
  ]);
  const read = await roster.read();
  const member = read.ok
    ? read.members.find((each) => each.id === caller.id && each.state === "live")
    : undefined;
  const person = !caller.explicit && isPerson({ agent: caller.agent, id: caller.id });
  return { roster, lander: { label: member?.label ?? "you", id: caller.id, person } };
}

/** A land that ran and did not land: the line, and what to do. */
function notLanded(
  answer: Extract<LandAnswer, { ok: true }>,
  outcome: NonNullable<LandAnswer & { ok: true }>["outcome"] & object,
) {
  const base = `the base ${answer.base} is unchanged; ${answer.member} was mailed`;
  const line =
    outcome.result === "conflict"
      ? {
          error: `not landed: ${answer.branch} conflicts with ${answer.base} in ${shownPaths(outcome.files)}; ${base}`,
          fix: `${answer.member} rebases onto ${answer.base}, resolves and lands again`,
        }
      : outcome.result === "check-failed"
        ? {
            error: `not landed: the check failed (${outcome.code}); ${base} the tail${answer.log ? `; the whole output is in ${answer.log}` : ""}`,
            fix: `${answer.member} fixes what the check says and lands again`,
          }
        : { error: `not landed: ${answer.base} moved twice during the check`, fix: "land again" };
  const { ok: _ok, ...details } = answer;
  return new Refusal(outcome.result, line, details);
}

function render(context: Context, answer: Extract<LandAnswer, { ok: true }>) {
  const outcome = answer.outcome;
  const what = `${answer.member}'s ${answer.branch} (${answer.commits} commit(s), ${answer.paths.length} file(s))`;
  if (!outcome)
    return context.out(
      `would land ${what} on ${answer.base}${answer.check ? `, checked by ${printable(answer.check)}` : ", unchecked"}`,
    );
  context.out(
    `landed ${what} on ${answer.base}: ${(outcome as { commit: string }).commit.slice(0, 12)}`,
  );
  for (const warning of answer.warnings) context.warn(warning);
}

export async function landCommand(context: Context, options: LandOptions) {
  const { landWork } = await import("@muster/wiring");
  const [{ roster, lander }, team] = await Promise.all([
    whoLands(context, options.id),
    context.team(),
  ]);
  const answer = await landWork(
    { roster, teamDir: team.dir, cwd: context.io.cwd, env: context.io.env },
    {
      target: options.target,
      lander,
      check: options.check,
      noCheck: options.noCheck,
      dryRun: options.dryRun,
      noWait: options.noWait,
      confirm: confirmOnTerminal(context),
      progress: (line) => context.io.stderr.write(`${printable(line)}\n`),
      output: (chunk) => context.io.stderr.write(printable(chunk, { lines: true })),
    },
  );
  if (!answer.ok) throw new Refusal(answer.reason, answer);
  if (answer.outcome && answer.outcome.result !== "landed") throw notLanded(answer, answer.outcome);
  const { ok: _ok, ...document } = answer;
  if (context.json) return context.emit(document);
  render(context, answer);
}
