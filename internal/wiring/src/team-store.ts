// Which store the team is on: its folder (no configuration, the default), or a NATS server named
// by MUSTER_NATS or the main checkout's muster.toml (a server the repository names, used once the
// person has allowed it: `muster nats allow`). @muster/nats, and the NATS client with it, is
// loaded only when one of them is there: a team on its folder pays nothing for NATS.
import { execFile } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { Allowance, NatsSettings, TeamName } from "@muster/nats";
import { findTeamFolder, readRegularFile, type TeamFolder } from "@muster/node";

export type StoreChoice =
  | { ok: true; store: "folder"; folder: TeamFolder }
  | {
      ok: true;
      store: "nats";
      folder: TeamFolder;
      settings: NatsSettings;
      team: { name: string; id: string; source: "configured" | "origin" };
    }
  | { ok: false; reason: string; error: string; fix: string };

export type StoreChoiceOptions = {
  cwd?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  /** The repository's team folder, when the caller found it already. */
  folder?: (() => Promise<TeamFolder>) | undefined;
  /**
   * Answer with the settings even when the repository chose a server the person has not allowed
   * (`muster nats allow`, which asks exactly that). Never to connect with.
   */
  unallowed?: boolean | undefined;
};

/** The repository's `origin` URL, or undefined (no remote, no git). */
function originOf(root: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      "git",
      ["-C", root, "config", "--get", "remote.origin.url"],
      { encoding: "utf8", timeout: 5_000, env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" } },
      (error, stdout) => resolve(error ? undefined : stdout.trim() || undefined),
    );
  });
}

/** A regular file's text, or undefined (absent, or a FIFO or folder planted in its place). */
function readRegular(file: string): string | undefined {
  try {
    return readRegularFile(file);
  } catch {
    return undefined;
  }
}

/** Where `file` leads: its folder's real path and its name, followed while the link is there. */
export function whereItLeads(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    const parent = path.dirname(file);
    return parent === file ? file : path.join(whereItLeads(parent), path.basename(file));
  }
}

/**
 * The store the team is on. muster.toml is read from the main checkout (the first worktree), so
 * every worktree of a clone is on one store whatever branch it has out.
 */
export async function chooseStore(options: StoreChoiceOptions = {}): Promise<StoreChoice> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const folder = await (options.folder ?? (() => findTeamFolder({ cwd, env })))();
  const root = folder.source === "git" ? folder.worktrees[0] : undefined;
  const toml = root === undefined ? undefined : path.join(root, "muster.toml");
  if (!env.MUSTER_NATS && !(toml && existsSync(toml))) return { ok: true, store: "folder", folder };
  const { allowedFile, judgeAllowed, readAllowed, storeSettings, teamName } = await import(
    "@muster/nats"
  );
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : homedir();
  const chosen = storeSettings({
    env,
    root,
    home,
    readFile: readRegular,
    resolve: whereItLeads,
  });
  if (!chosen.ok) return chosen;
  if (chosen.settings.store === "folder") return { ok: true, store: "folder", folder };
  const settings = chosen.settings;
  const named = teamName({
    configured: settings.team,
    origin: root === undefined ? undefined : await originOf(root),
  });
  if (!named.ok) return named;
  // Before the credentials are read or a byte is sent: a server the repository chose, allowed.
  const allowed = readAllowed(allowedFile(env, home));
  const judged = judgeAllowed(settings, named, allowed);
  if (!judged.ok && !options.unallowed) return judged;
  return {
    ok: true,
    store: "nats",
    folder,
    settings,
    team: { name: named.name, id: named.id, source: named.source },
  };
}

/** What the repository's team is called on NATS: `configured`, else the main checkout's origin. */
export async function natsTeamName(
  options: StoreChoiceOptions & { configured?: string | undefined },
): Promise<TeamName> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const folder = await (options.folder ?? (() => findTeamFolder({ cwd, env })))();
  const root = folder.source === "git" ? folder.worktrees[0] : undefined;
  const { teamName } = await import("@muster/nats");
  return teamName({
    configured: options.configured,
    origin: root === undefined ? undefined : await originOf(root),
  });
}

export type ServerAllowed =
  | { ok: true; allowed: Allowance | undefined; file: string }
  | { ok: false; reason: string; error: string; fix: string };

/**
 * `muster nats allow`: record, in the person's own config, that the server (and credentials) this
 * repository's muster.toml names may be used for its team. Settings that are the person's own need
 * no allowance (`allowed` undefined).
 */
export async function allowTeamServer(options: StoreChoiceOptions = {}): Promise<ServerAllowed> {
  const chosen = await chooseStore({ ...options, unallowed: true });
  if (!chosen.ok) return chosen;
  if (chosen.store === "folder")
    return {
      ok: false,
      reason: "no-server",
      error: "this repository names no NATS server (no [nats] in muster.toml, no MUSTER_NATS)",
      fix: "nothing to allow: the team is on this machine's folder",
    };
  const env = options.env ?? process.env;
  const { addAllowed, allowanceFor, allowedFile } = await import("@muster/nats");
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : homedir();
  const file = allowedFile(env, home);
  if (chosen.settings.chosenBy === "person") return { ok: true, allowed: undefined, file };
  const allowed = allowanceFor(chosen.settings, chosen.team);
  addAllowed(file, allowed);
  return { ok: true, allowed, file };
}

export type ServerDenied =
  | { ok: true; team: string; removed: Allowance[]; file: string }
  | { ok: false; reason: string; error: string; fix: string };

/**
 * `muster nats deny`: take back every allowance the person gave for this repository's team
 * (whatever URL or credentials it was for); from then on its muster.toml's server is refused again.
 */
export async function denyTeamServer(options: StoreChoiceOptions = {}): Promise<ServerDenied> {
  const chosen = await chooseStore({ ...options, unallowed: true });
  if (!chosen.ok) return chosen;
  const env = options.env ?? process.env;
  const { allowedFile, removeAllowed } = await import("@muster/nats");
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : homedir();
  const file = allowedFile(env, home);
  if (chosen.store === "folder") {
    const named = await natsTeamName(options);
    if (!named.ok) return { ok: true, team: "", removed: [], file };
    return { ok: true, team: named.name, removed: removeAllowed(file, named.name), file };
  }
  return { ok: true, team: chosen.team.name, removed: removeAllowed(file, chosen.team.name), file };
}
