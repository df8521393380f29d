// Which label a session asks for when nobody typed one: an explicit flag, then the label its own
// engine process was started with (where the server's environment is not the caller's), then the
// environment, then the session's own name made into a label, then a generated, readable, unused one.
import type { StartedLabel } from "./_started-label.js";

/** A label as the roster accepts it: 1-32 letters, digits, `.`, `_` or `-`, led by a letter or digit. */
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;

const WORDS = [
  "ash",
  "birch",
  "cedar",
  "elm",
  "fir",
  "hazel",
  "juniper",
  "larch",
  "maple",
  "oak",
  "pine",
  "rowan",
  "spruce",
  "willow",
  "yew",
  "alder",
  "aspen",
  "beech",
  "cypress",
  "linden",
];

/** A free-form name (a pi session name, say) made into a label, or undefined when nothing is left. */
export function labelFromName(name: string | undefined): string | undefined {
  if (!name) return undefined;
  const label = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, 32)
    .replace(/[-.]+$/, "");
  return LABEL.test(label) ? label : undefined;
}

export type LabelSources = {
  /** A label given on the command line (`--muster-label`). */
  flag?: string | undefined;
  /**
   * What the caller's own engine process was started with (`startedLabel`). A refusal also keeps
   * `env` from answering: that environment is another window's.
   */
  started?: StartedLabel | undefined;
  /** `MUSTER_LABEL`. */
  env?: string | undefined;
  /** The session's own name (pi's `/name`). */
  sessionName?: string | undefined;
  /** Labels already held on the team, any case. */
  taken: readonly string[];
  /** A number in [0, 1), for the generated label. */
  random: () => number;
  /** The prefix of a generated label. Default `pi`. */
  prefix?: string | undefined;
};

export type LabelChoice = {
  label: string;
  source: "flag" | "started" | "env" | "session-name" | "generated";
};

/** Does the server's own environment speak for the caller, after `started`'s answer? */
const envSpeaks = (started: StartedLabel | undefined) =>
  started === undefined ||
  (!started.ok && (started.reason === "own-env" || started.reason === "unsupported"));

/** The label to ask for, in order: flag, started with, environment, session name, generated. */
export function chooseLabel(sources: LabelSources): LabelChoice {
  if (sources.flag) return { label: sources.flag, source: "flag" };
  if (sources.started?.ok) return { label: sources.started.label, source: "started" };
  if (sources.env && envSpeaks(sources.started)) return { label: sources.env, source: "env" };
  const named = labelFromName(sources.sessionName);
  if (named) return { label: named, source: "session-name" };
  const taken = new Set(sources.taken.map((label) => label.toLowerCase()));
  const prefix = sources.prefix ?? "pi";
  const start = Math.floor(sources.random() * WORDS.length);
  for (let offset = 0; offset < WORDS.length; offset += 1) {
    const label = `${prefix}-${WORDS[(start + offset) % WORDS.length]}`;
    if (!taken.has(label)) return { label, source: "generated" };
  }
  for (let suffix = 2; ; suffix += 1) {
    const label = `${prefix}-${WORDS[start]}-${suffix}`;
    if (!taken.has(label)) return { label, source: "generated" };
  }
}

/** As much of a member as the label rules read (a roster member fits). */
export type LabelHolder = { label: string; holdsLabel: boolean };

/** The labels held now: a record whose label another session took holds none. */
export const heldLabels = (members: readonly LabelHolder[]): string[] =>
  members.filter((member) => member.holdsLabel).map((member) => member.label);

/** The member holding `label` now, compared case-insensitively as claims are; undefined if none. */
export function holderOf<Member extends LabelHolder>(
  members: readonly Member[],
  label: string,
): Member | undefined {
  const wanted = label.toLowerCase();
  return members.find((member) => member.holdsLabel && member.label.toLowerCase() === wanted);
}

/** Session `id`'s own record while it still holds its label; undefined once another took it. */
export function ownHeld<Member extends LabelHolder & { id: string }>(
  members: readonly Member[],
  id: string,
): Member | undefined {
  return members.find((member) => member.id === id && member.holdsLabel);
}

/** A session as `leftBehind` reads it: its id, engine, and the process it runs in. */
export type SessionProcess = {
  id: string;
  agent: string;
  pid: number;
  pidStart?: string | undefined;
};

/**
 * The live member this process ran as before it started another session of the same engine (a
 * Codex TUI's `/new`, a pi session switched): one process runs one session at a time, so that
 * member was left. Its label is the one to ask for; the roster takes it over, with its unread
 * mail. A process whose start time is not known proves nothing.
 */
export function leftBehind<Member extends SessionProcess & { label: string; state: string }>(
  members: readonly Member[],
  self: SessionProcess,
): Member | undefined {
  if (self.pidStart === undefined) return undefined;
  return members.find(
    (member) =>
      member.id !== self.id &&
      member.state === "live" &&
      member.agent === self.agent &&
      member.pid === self.pid &&
      member.pidStart === self.pidStart,
  );
}

/** The members a roster shows: those holding their label, expired records left out. */
export function shownMembers<Member extends LabelHolder & { state: string }>(
  members: readonly Member[],
): Member[] {
  return members.filter((member) => member.holdsLabel && member.state !== "expired");
}
