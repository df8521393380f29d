// What a team is across machines: a folder key is a local path, so on NATS a team is named by its
// repository — a configured name, or the `origin` URL normalised so that every clone, over ssh or
// https, names the same team — and the NATS names (bucket, stream, subjects) come from that name.
// Worktrees of one clone share their origin, so they stay one team.
import { createHash } from "node:crypto";

export type TeamName =
  | { ok: true; name: string; id: string; source: "configured" | "origin" }
  | { ok: false; reason: "no-team-name" | "bad-team-name"; error: string; fix: string };

export const TEAM_NAME_FIXES = {
  "no-team-name":
    "add an origin remote (git remote add origin URL), or name the team: MUSTER_NATS_TEAM or team in muster.toml",
  "bad-team-name": "name the team with 1-200 printable characters (e.g. github.com/owner/repo)",
} as const;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The repository an origin URL names, as `host/path`: scheme, user, password, port, a trailing
 * `.git` and slashes dropped, lower-cased (the big hosts compare owner and repository names
 * without case). `git@github.com:a/b.git`, `https://github.com/a/b` and
 * `ssh://git@github.com/a/b.git` are all `github.com/a/b`. Undefined for what is no URL.
 */
export function normaliseOrigin(origin: string): string | undefined {
  const text = origin.trim();
  if (text === "" || /\s/.test(text) || CONTROL.test(text)) return undefined;
  let host: string;
  let path: string;
  const scpLike = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)(.+)$/.exec(text);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return undefined;
    }
    host = url.protocol === "file:" ? "file" : url.hostname;
    path = decodeURIComponent(url.pathname);
  } else if (scpLike) {
    host = scpLike[1]!;
    path = scpLike[2]!;
  } else if (text.startsWith("/")) {
    host = "file";
    path = text;
  } else return undefined;
  const trimmed = path
    .replace(/\/+$/, "")
    .replace(/\.git$/i, "")
    .replace(/^\/+/, "")
    .replace(/\/{2,}/g, "/");
  if (host === "" || trimmed === "") return undefined;
  return `${host}/${trimmed}`.toLowerCase();
}

/**
 * The id a team's NATS names are made of: a readable part of the name and 12 hex of its SHA-256,
 * in the letters every NATS name allows (`[a-z0-9-]`), at most 53 characters.
 */
export function teamId(name: string): string {
  const readable = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  const digest = createHash("sha256").update(name).digest("hex").slice(0, 12);
  return readable ? `${readable}-${digest}` : digest;
}

const printable = (text: string) => !CONTROL.test(text);

/** The team's name: the configured one, else the normalised origin URL; refused without either. */
export function teamName(input: {
  configured?: string | undefined;
  origin?: string | undefined;
}): TeamName {
  if (input.configured !== undefined) {
    const name = input.configured.trim();
    if (name === "" || name.length > 200 || !printable(name))
      return {
        ok: false,
        reason: "bad-team-name",
        error: `${JSON.stringify(input.configured.slice(0, 80))} is not a team name`,
        fix: TEAM_NAME_FIXES["bad-team-name"],
      };
    return { ok: true, name, id: teamId(name), source: "configured" };
  }
  const name = input.origin === undefined ? undefined : normaliseOrigin(input.origin);
  if (name === undefined)
    return {
      ok: false,
      reason: "no-team-name",
      error:
        input.origin === undefined
          ? "a team on NATS is named by its repository's origin, and this one has none"
          : `the origin ${JSON.stringify(input.origin.slice(0, 80))} is not a URL muster can name a team by`,
      fix: TEAM_NAME_FIXES["no-team-name"],
    };
  return { ok: true, name, id: teamId(name), source: "origin" };
}

/** Every name a team has on the server, made from its id alone. */
export function teamResources(id: string) {
  return {
    /** The account a server configuration gives the team (its own subject space). */
    account: `muster-${id}`,
    /** The key-value bucket: records, claims, cards, leases, receipts. */
    bucket: `muster-${id}`,
    /** The stream holding every mailbox of the team. */
    mailStream: `muster-${id}-mail`,
    /** The subjects of the mail stream: `<prefix>.<recipient>.<sender>`. */
    mailPrefix: `muster.${id}.mail`,
    /** Where heartbeats for process-backed members are announced (see the README). */
    beatSubject: `muster.${id}.beat`,
  };
}
