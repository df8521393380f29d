// The servers a person has allowed, as direnv's `allow`: a repository's muster.toml may name its
// team's NATS server (or the credentials), but the person pairs a server with their credentials,
// never the repository. A server the repository named is used only once the person has allowed
// that exact URL, for that team, with those credentials (`muster nats allow`); the allowances are
// kept in the person's own config folder ($XDG_CONFIG_HOME/muster/allowed.json), never in a repository.
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import type { NatsSettings } from "./_settings.js";

/** One allowance: these server URLs (as written, comma-joined), this team, these credentials. */
export type Allowance = { url: string; team: string; creds: string };

export type AllowedJudgement =
  | { ok: true }
  | { ok: false; reason: "server-not-allowed"; error: string; fix: string };

const MAX_BYTES = 256 * 1024;

/** The person's allowances file: `$XDG_CONFIG_HOME/muster/allowed.json` (else `~/.config/…`). */
export function allowedFile(env: Record<string, string | undefined>, home: string): string {
  const config =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : path.join(home, ".config");
  return path.join(config, "muster", "allowed.json");
}

/** What the person would allow for these settings and this team. */
export function allowanceFor(settings: NatsSettings, team: { name: string }): Allowance {
  return { url: settings.servers.join(","), team: team.name, creds: settings.credsFile };
}

const same = (a: Allowance, b: Allowance) =>
  a.url === b.url && a.team === b.team && a.creds === b.creds;

/** The allowances in `file`; none when it is absent, not a small regular file, or not ours. */
export function readAllowed(file: string): Allowance[] {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const facts = fstatSync(descriptor);
    if (!facts.isFile() || facts.size > MAX_BYTES) return [];
    const document = JSON.parse(readFileSync(descriptor, "utf8")) as { allowed?: unknown };
    if (!Array.isArray(document.allowed)) return [];
    return document.allowed.filter(
      (entry): entry is Allowance =>
        typeof entry?.url === "string" &&
        typeof entry?.team === "string" &&
        typeof entry?.creds === "string",
    );
  } catch {
    return [];
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** Add `allowance` to `file` (0600, its folder 0700), written whole and renamed into place. */
export function addAllowed(file: string, allowance: Allowance): void {
  const kept = readAllowed(file);
  if (kept.some((entry) => same(entry, allowance))) return;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, `${JSON.stringify({ v: 1, allowed: [...kept, allowance] }, null, 2)}\n`, {
    mode: 0o600,
  });
  renameSync(next, file);
}

/** Take every allowance for `team` out of `file` (`muster nats deny`): the ones taken out. */
export function removeAllowed(file: string, team: string): Allowance[] {
  const kept = readAllowed(file);
  const removed = kept.filter((entry) => entry.team === team);
  if (removed.length === 0) return [];
  const next = `${file}.${process.pid}.tmp`;
  const rest = kept.filter((entry) => entry.team !== team);
  writeFileSync(next, `${JSON.stringify({ v: 1, allowed: rest }, null, 2)}\n`, { mode: 0o600 });
  renameSync(next, file);
  return removed;
}

/**
 * Whether these settings may be used: the person's own (MUSTER_NATS and MUSTER_NATS_CREDS), or a
 * pairing the repository made that the person has allowed exactly. Judged before the credentials
 * are read or any connection is made.
 */
export function judgeAllowed(
  settings: NatsSettings,
  team: { name: string },
  allowed: readonly Allowance[],
): AllowedJudgement {
  if (settings.chosenBy === "person") return { ok: true };
  const wanted = allowanceFor(settings, team);
  if (allowed.some((entry) => same(entry, wanted))) return { ok: true };
  return {
    ok: false,
    reason: "server-not-allowed",
    error: `this repository's muster.toml pairs the NATS server ${wanted.url} with your credentials ${wanted.creds} for team ${team.name}, which you have not allowed`,
    fix: "if you trust this repository's server with those credentials, run: muster nats allow",
  };
}
