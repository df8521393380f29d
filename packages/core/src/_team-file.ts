// The team a repository declares in its muster.toml: one `[[member]]` table per member (label,
// engine, task, worktree, args, wake). This file owns what a declaration may say, read as hostile
// (a clone's committed file is someone else's): every table checked before anything starts, each
// refusal naming its line and the fix. It does not parse TOML (the caller hands the tables over,
// and the text only to find lines) and does not start anything.
import { withSuggestion } from "./_suggest.js";

import { refusedArgument, TEAM_ARGS } from "./_team-args.js";
import { memberLines } from "./_team-file-lines.js";

/** A member as muster.toml declares it, checked. */
export type DeclaredMember = {
  label: string;
  engine: string;
  task: string | undefined;
  /** A git worktree of its own: `true` (branch muster/<label>) or the branch it is on. */
  worktree: true | string | undefined;
  /** The engine's own arguments, each one of the few a committed file may give (TEAM_ARGS). */
  args: string[];
  /** Its mail wakes it (default true, as a spawned member's does). */
  wake: boolean;
  /** The line of its `[[member]]` header, when the text shows it. */
  line: number | undefined;
};

export type TeamFileRefusal =
  | "not-a-list"
  | "unknown-table"
  | "unknown-key"
  | "bad-value"
  | "bad-label"
  | "label-twice"
  | "unknown-engine"
  | "bad-args";

export type DeclaredTeam =
  | { ok: true; members: DeclaredMember[] }
  | {
      ok: false;
      reason: TeamFileRefusal;
      /** 1-based line in muster.toml, when the text shows it. */
      line: number | undefined;
      error: string;
      fix: string;
    };

const KEYS = ["label", "engine", "task", "worktree", "args", "wake"] as const;
const MAX_MEMBERS = 64;
const MAX_TASK = 16 * 1024;
const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*\.lock$)[A-Za-z0-9._/-]{1,200}(?<![./])$/;

/** Shown in an error: control characters escaped, at most 60 characters. */
const shown = (text: string) =>
  JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text).slice(1, -1);

const isTable = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The top-level keys muster reads in muster.toml: `[[member]]`, `[land]`, `[nats]`. */
const TABLES = ["member", "land", "nats"] as const;

type LabelCheck = (label: string) => { ok: true } | { ok: false; error: string; fix: string };

export type TeamFileInput = {
  /** The document's `member` value, as the TOML parser gave it (undefined: no team declared). */
  member: unknown;
  /** The document's top-level keys, each checked to be one muster reads (default: not checked). */
  tables?: readonly string[] | undefined;
  /** The file's text, to name lines. */
  text: string;
  /** The engines muster can start (the launch rows); of those, the ones TEAM_ARGS names come up. */
  engines: readonly string[];
  /** The roster's label check, with its fix. */
  validLabel: LabelCheck;
};

/** The team muster.toml declares, every table checked, or the first thing wrong with it. */
export function declaredTeam(input: TeamFileInput): DeclaredTeam {
  const unknown = input.tables?.find((table) => !(TABLES as readonly string[]).includes(table));
  if (unknown !== undefined)
    return withSuggestion(
      {
        ok: false as const,
        reason: "unknown-table" as const,
        line: undefined,
        error: `muster.toml has a table muster does not know: ${shown(unknown)}`,
        fix: "use only [[member]], [land] and [nats]",
      },
      unknown,
      TABLES,
    );
  if (input.member === undefined) return { ok: true, members: [] };
  const lines = memberLines(input.text);
  const tables = input.member;
  if (!Array.isArray(tables) || tables.length > MAX_MEMBERS || !tables.every(isTable))
    return {
      ok: false,
      reason: "not-a-list",
      line: lines[0]?.header,
      error: `muster.toml's member is not a list of [[member]] tables (at most ${MAX_MEMBERS})`,
      fix: 'write each member as its own [[member]] table: label = "alice", engine = "pi"',
    };
  const trusted = lines.length === tables.length;
  const members: DeclaredMember[] = [];
  const seen = new Map<string, number>();
  for (const [index, table] of tables.entries()) {
    const where = trusted ? lines[index] : undefined;
    const checked = checkMember(table, index, where, input);
    if (!checked.ok) return checked;
    const member = checked.member;
    const key = member.label.toLowerCase();
    if (seen.has(key))
      return {
        ok: false,
        reason: "label-twice",
        line: member.line,
        error: `muster.toml declares the label ${member.label} twice (members ${seen.get(key)! + 1} and ${index + 1})`,
        fix: "give each [[member]] a label of its own",
      };
    seen.set(key, index);
    members.push(member);
  }
  return { ok: true, members };
}

type Checked = { ok: true; member: DeclaredMember } | Extract<DeclaredTeam, { ok: false }>;
type Refusal = Extract<DeclaredTeam, { ok: false }>;
type Refuse = (
  reason: TeamFileRefusal,
  key: string | undefined,
  error: string,
  fix: string,
) => Refusal;

function checkMember(
  table: Record<string, unknown>,
  index: number,
  where: { header: number; keys: Map<string, number> } | undefined,
  input: TeamFileInput,
): Checked {
  const line = (key?: string) => (key && where?.keys.get(key)) || where?.header;
  const refuse: Refuse = (reason, key, error, fix) => ({
    ok: false,
    reason,
    line: line(key),
    error,
    fix,
  });
  const named = checkName(table, `member ${index + 1}`, input, refuse);
  if (!named.ok) return named;
  const { label, engine } = named;
  const refused = checkValues(table, label, engine, refuse);
  if (refused) return refused;
  const { task, worktree, args, wake } = table;
  return {
    ok: true,
    member: {
      label,
      engine,
      task: task === "" ? undefined : (task as string | undefined),
      worktree: worktree === false ? undefined : (worktree as true | string | undefined),
      args: (args ?? []) as string[],
      wake: wake !== false,
      line: where?.header,
    },
  };
}

/** A member's keys known, its label valid and its engine one muster up can start. */
function checkName(
  table: Record<string, unknown>,
  name: string,
  input: TeamFileInput,
  refuse: Refuse,
): { ok: true; label: string; engine: string } | Refusal {
  for (const key of Object.keys(table))
    if (!(KEYS as readonly string[]).includes(key))
      return withSuggestion(
        refuse(
          "unknown-key",
          key,
          `muster.toml's ${name} has a key muster does not know: ${shown(key)}`,
          `use only ${KEYS.join(", ")}`,
        ),
        key,
        KEYS,
      );
  const { label, engine } = table;
  if (typeof label !== "string")
    return refuse(
      "bad-label",
      "label",
      `muster.toml's ${name} has no label`,
      'add label = "alice"',
    );
  const valid = input.validLabel(label);
  if (!valid.ok)
    return refuse("bad-label", "label", `muster.toml's ${name}: ${valid.error}`, valid.fix);
  const startable = input.engines.filter((candidate) => Object.hasOwn(TEAM_ARGS, candidate));
  if (typeof engine !== "string" || !startable.includes(engine))
    return withSuggestion(
      refuse(
        "unknown-engine",
        "engine",
        engine === undefined
          ? `muster.toml's ${label} names no engine`
          : `muster.toml's ${label} names an engine muster up cannot start: ${shown(String(engine))}`,
        `set engine to one of ${startable.join(", ")}`,
      ),
      String(engine ?? ""),
      startable,
    );
  return { ok: true, label, engine };
}

/** The first of a member's task, worktree, wake and args that it may not give, or undefined. */
function checkValues(
  table: Record<string, unknown>,
  label: string,
  engine: string,
  refuse: Refuse,
): Refusal | undefined {
  const { task, worktree, args, wake } = table;
  if (task !== undefined && (typeof task !== "string" || task.length > MAX_TASK))
    return refuse(
      "bad-value",
      "task",
      `muster.toml's ${label}: task is not text (at most 16 KiB)`,
      'write task = "…" as one string',
    );
  // A prompt, never a command: pi runs a first message that begins with `/` as an extension's
  // command at once (muster's own `/team spawn` among them), and `!` is a shell command's mark.
  if (typeof task === "string" && /^[/!]/u.test(task.trimStart()))
    return refuse(
      "bad-value",
      "task",
      `muster.toml's ${label}'s task begins with ${task.trimStart()[0]}: an engine would run it as a command, not a prompt`,
      "write the task as words for the agent to read; start it with anything but / or !",
    );
  if (
    worktree !== undefined &&
    worktree !== true &&
    worktree !== false &&
    !(typeof worktree === "string" && BRANCH.test(worktree))
  )
    return refuse(
      "bad-value",
      "worktree",
      `muster.toml's ${label}: worktree is neither true nor a branch name`,
      'write worktree = true, or worktree = "feature/x"',
    );
  if (wake !== undefined && typeof wake !== "boolean")
    return refuse(
      "bad-value",
      "wake",
      `muster.toml's ${label}: wake is not true or false`,
      "write wake = false, or leave it out",
    );
  if (args !== undefined && (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")))
    return refuse(
      "bad-args",
      "args",
      `muster.toml's ${label}: args is not a list of strings`,
      'write args = ["--model", "…"]',
    );
  const refused = refusedArgument(engine, (args ?? []) as string[]);
  if (refused !== undefined)
    return refuse(
      "bad-args",
      "args",
      `muster.toml's ${label} gives ${engine} an argument a repository's file may not: ${shown(refused)}`,
      `args may only choose the model (${Object.keys(TEAM_ARGS[engine]!).join(", ")}); give anything else on your own command line or in ${engine}'s own config`,
    );
  return undefined;
}
