// Which store a team is on, from the environment or the repository's muster.toml: the folder (no
// configuration at all), or a NATS server. Owns reading and checking the settings; not connecting.
//
//   MUSTER_NATS=nats://host:4222   (tls://host:4222 demands TLS; several URLs comma-separated)
//   MUSTER_NATS_CREDS=/path/to/member.creds   (a NATS credentials file: user JWT + nkey seed)
//   MUSTER_NATS_TEAM=name          (the team's name on the server; default: the origin URL)
//
// or, committed in the repository's root:
//
//   [nats]
//   url = "tls://nats.example.com:4222"
//   creds = "~/.config/muster/example.creds"
//   team = "example/app"
import { parse } from "smol-toml";

export type NatsSettings = {
  store: "nats";
  /** The server URLs, as given (`nats://` or `tls://`). */
  servers: string[];
  /** TLS is demanded (a `tls://` URL): a server without TLS is refused, never used in the clear. */
  tls: boolean;
  /** The credentials file, an absolute path: a `.creds` file (JWT and seed) or an nkey seed. */
  credsFile: string;
  /** The team's configured name; undefined: named by the repository's origin URL. */
  team: string | undefined;
  /** Where the settings came from. */
  source: "env" | "muster.toml";
  /**
   * Who paired the server with the credentials: the person (both from their environment) or the
   * repository (its muster.toml named the URL or the credentials), which needs the person's
   * allowance (`judgeAllowed`) before anything is read or sent.
   */
  chosenBy: "person" | "repository";
};

export type StoreSettings =
  | { ok: true; settings: { store: "folder" } | NatsSettings }
  | { ok: false; reason: SettingsRefusal; error: string; fix: string };

export type SettingsRefusal = "bad-url" | "bad-config" | "creds-in-repository" | "no-credentials";

/** The fixes for the refusals below, each beside its check. */
export const SETTINGS_FIXES: Record<SettingsRefusal, string> = {
  "bad-url": "set MUSTER_NATS (or url in muster.toml) to nats://host:4222 or tls://host:4222",
  "bad-config":
    'write muster.toml as [nats] with url = "nats://host:4222", and creds / team if needed',
  "creds-in-repository":
    "keep the credentials file outside the repository (e.g. ~/.config/muster/) and name it there",
  "no-credentials":
    "set MUSTER_NATS_CREDS to your credentials file (the team's operator makes one per member)",
};

export type SettingsInput = {
  env: Record<string, string | undefined>;
  /** The repository's root (the worktree's top); muster.toml is read from here. */
  root: string | undefined;
  /** The user's home, for a `~/` in a path. */
  home: string;
  /** Reads a file; undefined when it is not there. */
  readFile(path: string): string | undefined;
  /**
   * Where a path leads (symlinks, `/proc/self/cwd`, `..` resolved), so a path is judged by its
   * target, not its text. Default: the path as written (for pure callers).
   */
  resolve?: ((path: string) => string) | undefined;
};

const MAX_CONFIG_BYTES = 64 * 1024;
const SCHEMES = new Set(["nats:", "tls:"]);

const refuse = (reason: SettingsRefusal, error: string): StoreSettings => ({
  ok: false,
  reason,
  error,
  fix: SETTINGS_FIXES[reason],
});

/** Shown in an error: control characters escaped, at most 80 characters. */
const shown = (text: string) =>
  JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text).slice(1, -1);

/** The server URLs in `text` (comma-separated), or the first one that is not a NATS URL. */
function parseServers(text: string): { ok: true; servers: string[] } | { ok: false; bad: string } {
  const servers = text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  if (servers.length === 0) return { ok: false, bad: text };
  for (const server of servers) {
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      return { ok: false, bad: server };
    }
    // Credentials belong in the creds file, never in a URL that status and doctor print.
    if (!SCHEMES.has(url.protocol) || url.hostname === "" || url.username || url.password)
      return { ok: false, bad: server };
  }
  return { ok: true, servers };
}

const absolute = (path: string, home: string, base: string | undefined) =>
  path.startsWith("~/")
    ? `${home}/${path.slice(2)}`
    : path.startsWith("/") || base === undefined
      ? path
      : `${base}/${path}`;

const inside = (path: string, root: string | undefined) =>
  root !== undefined && (path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`));

/** The `[nats]` table of a muster.toml, or why it is not one. */
function readToml(text: string): { ok: true; nats: Record<string, unknown> | undefined } | string {
  if (text.length > MAX_CONFIG_BYTES) return `muster.toml is over ${MAX_CONFIG_BYTES} bytes`;
  let document: Record<string, unknown>;
  try {
    document = parse(text) as Record<string, unknown>;
  } catch (error) {
    return `muster.toml does not parse: ${shown(error instanceof Error ? error.message.split("\n")[0]! : String(error))}`;
  }
  const nats = document.nats;
  if (nats === undefined) return { ok: true, nats: undefined };
  if (typeof nats !== "object" || nats === null || Array.isArray(nats))
    return "muster.toml's nats is not a table";
  for (const [key, value] of Object.entries(nats))
    if (!["url", "creds", "team"].includes(key) || typeof value !== "string")
      return `muster.toml's nats.${shown(key)} is not a known string key (url, creds, team)`;
  return { ok: true, nats: nats as Record<string, unknown> };
}

/**
 * The store the team is on. The environment wins over muster.toml, key by key; with neither, the
 * folder. A credentials file inside the repository (judged where its path leads) is refused: it
 * would be committed, or it is a repository's own key handed to the person's name.
 */
export function storeSettings(input: SettingsInput): StoreSettings {
  const { env, home } = input;
  const resolve = input.resolve ?? ((path: string) => path);
  const root = input.root === undefined ? undefined : resolve(input.root);
  const text = root === undefined ? undefined : input.readFile(`${root}/muster.toml`);
  let file: Record<string, unknown> | undefined;
  if (text !== undefined) {
    const read = readToml(text);
    if (typeof read === "string") return refuse("bad-config", read);
    file = read.nats;
  }
  const url = env.MUSTER_NATS || (file?.url as string | undefined);
  if (!url) return { ok: true, settings: { store: "folder" } };
  const parsed = parseServers(url);
  if (!parsed.ok) return refuse("bad-url", `"${shown(parsed.bad)}" is not a NATS server URL`);
  const written = env.MUSTER_NATS_CREDS
    ? absolute(env.MUSTER_NATS_CREDS, home, undefined)
    : typeof file?.creds === "string"
      ? absolute(file.creds, home, root)
      : undefined;
  const creds = written === undefined ? undefined : resolve(written);
  // Every connection authenticates: a URL alone (a muster.toml someone committed) connects nowhere.
  if (creds === undefined)
    return refuse("no-credentials", `no NATS credentials for ${shown(parsed.servers[0]!)}`);
  if (inside(creds, root))
    return refuse(
      "creds-in-repository",
      `the NATS credentials file ${shown(creds)} is inside the repository`,
    );
  const team = env.MUSTER_NATS_TEAM || (file?.team as string | undefined) || undefined;
  return {
    ok: true,
    settings: {
      store: "nats",
      servers: parsed.servers,
      tls: parsed.servers.some((server) => server.startsWith("tls:")),
      credsFile: creds,
      team,
      source: env.MUSTER_NATS ? "env" : "muster.toml",
      chosenBy: env.MUSTER_NATS && env.MUSTER_NATS_CREDS ? "person" : "repository",
    },
  };
}
