// The repository root and `core.ignorecase` read from the files git reads, without starting git,
// in the plain case only: a lease guard runs before every edit, and two git starts were most of
// its check. Anything this reader does not follow exactly (a GIT_* variable, a worktree's or a
// submodule's `.git` file, a mount point, another owner, an include, a worktree or bare setting,
// any mention of ignorecase it cannot parse, a system config it may not see) answers undefined,
// and the caller asks git: a misread core.ignorecase would let a case-changed path past a lease.
import { lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

export type KnownRepoFacts = { root: string; ignoreCase: boolean };

/** What a config file says of core.ignorecase: set, not said, or unknown (ask git). */
type Said = boolean | "unsaid" | "unknown";

const BOOLEAN: Record<string, boolean> = {
  true: true,
  yes: true,
  on: true,
  "1": true,
  false: false,
  no: false,
  off: false,
  "0": false,
};

/** core.ignorecase in one config file's text, the last setting winning, as git reads it. */
export function ignoreCaseSaid(text: string): Said {
  // Includes, continued lines and the old `[section.sub]` form are git's to follow, not ours.
  if (/\[\s*include/i.test(text) || /\\\r?$/m.test(text)) return "unknown";
  let inCore = false;
  let said: Said = "unsaid";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("[")) {
      const header = /^\[([^\]]*)\]\s*(?:[#;].*)?$/.exec(line);
      // A key on the header's line (`[core] ignorecase`) is git syntax too: not followed here.
      if (!header) return "unknown";
      inCore = /^\s*core\s*$/i.test(header[1] ?? "");
      if (/ignorecase/i.test(line)) return "unknown";
      continue;
    }
    if (!/ignorecase/i.test(line)) continue;
    const setting = /^ignorecase\s*(?:=\s*([a-z0-9]+)\s*)?(?:[#;].*)?$/i.exec(line);
    if (!setting || !inCore) return "unknown";
    // `ignorecase` alone is true; any value but a plain boolean word is git's to judge.
    const value = setting[1] === undefined ? true : BOOLEAN[setting[1].toLowerCase()];
    if (value === undefined) return "unknown";
    said = value;
  }
  return said;
}

/**
 * The GIT_* variables known to change neither where the repository is nor its config, and
 * GIT_CONFIG_NOSYSTEM, followed here (outerIgnoreCase): any other (GIT_DIR, GIT_WORK_TREE, the
 * other GIT_CONFIG_*, GIT_CEILING_DIRECTORIES, one not known) is git's to read.
 */
const HARMLESS =
  /^GIT_(CONFIG_NOSYSTEM|SSL_\w+|AUTHOR_\w+|COMMITTER_\w+|EDITOR|SEQUENCE_EDITOR|PAGER|ASKPASS|SSH\w*|TERMINAL_PROMPT|TRACE\w*|HTTP_\w+|PROXY_\w+|CURL_VERBOSE|FLUSH|LFS_\w+|PS1_\w+|MERGE_\w+)$/;

/** The file's text; "" when it is not there; undefined when it cannot be read (ask git). */
function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "" : undefined;
  }
}

/** The system configs of the standard builds: `$(sysconfdir)/gitconfig`, /etc for a git in /usr. */
const SYSTEM_CONFIGS = [
  "/etc/gitconfig",
  "/usr/local/etc/gitconfig",
  "/opt/homebrew/etc/gitconfig",
  "/opt/local/etc/gitconfig",
];

/**
 * The user's configs, in the order git reads them (the later wins). A relative XDG_CONFIG_HOME is
 * one git reads too (from where it runs: the worktree's top), so it is git's to follow.
 */
function userConfigs(env: NodeJS.ProcessEnv): string[] | undefined {
  const home = env.HOME;
  if (!home || !path.isAbsolute(home)) return undefined;
  const xdg = env.XDG_CONFIG_HOME || path.join(home, ".config");
  if (!path.isAbsolute(xdg)) return undefined;
  return [path.join(xdg, "git", "config"), path.join(home, ".gitconfig")];
}

/**
 * Whether git skips the system config: GIT_CONFIG_NOSYSTEM as git reads a boolean (unset or ""
 * false; a plain boolean word or 0/1); undefined for any other value (git's to judge).
 */
const skipsSystem = (value: string | undefined) => (value ? BOOLEAN[value.toLowerCase()] : false);

/** core.ignorecase as the configs before the repository's set it; undefined: ask git. */
function outerIgnoreCase(env: NodeJS.ProcessEnv): boolean | undefined {
  const user = userConfigs(env);
  const skip = skipsSystem(env.GIT_CONFIG_NOSYSTEM);
  if (!user || skip === undefined) return undefined;
  // Which system config this machine's git reads is git's to know: one that sets it at all (or
  // includes another) is left to git. GIT_CONFIG_NOSYSTEM: git reads none.
  for (const file of skip ? [] : SYSTEM_CONFIGS) {
    const text = readIfThere(file);
    if (text === undefined || ignoreCaseSaid(text) !== "unsaid") return undefined;
  }
  let ignoreCase = false;
  for (const file of user) {
    const text = readIfThere(file);
    const said = text === undefined ? "unknown" : ignoreCaseSaid(text);
    if (said === "unknown") return undefined;
    if (said !== "unsaid") ignoreCase = said;
  }
  return ignoreCase;
}

/** A repository config this reader follows: no worktree setting, not bare. */
function plainRepository(config: string): boolean {
  if (/worktree/i.test(config)) return false;
  return config
    .split("\n")
    .filter((line) => /\bbare\b/i.test(line))
    .every((line) => /^\s*bare\s*=\s*(false|no|off|0)\s*(?:[#;].*)?$/i.test(line));
}

/** The worktree holding `cwd` and its `.git` folder, found as git finds them; else undefined. */
function findRepository(cwd: string): { root: string; gitDir: string } | undefined {
  let folder = realpathSync(cwd);
  const device = statSync(folder).dev;
  const uid = process.getuid?.();
  for (;;) {
    if (path.basename(folder) === ".git") return undefined;
    const dotGit = path.join(folder, ".git");
    let facts: ReturnType<typeof lstatSync> | undefined;
    try {
      facts = lstatSync(dotGit);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") return undefined;
    }
    if (facts) {
      // A `.git` file (a worktree, a submodule) or a link: git's to follow.
      if (!facts.isDirectory() || facts.uid !== uid || statSync(folder).uid !== uid)
        return undefined;
      if (!lstatSync(path.join(dotGit, "HEAD"), { throwIfNoEntry: false })?.isFile())
        return undefined;
      return { root: folder, gitDir: dotGit };
    }
    const parent = path.dirname(folder);
    // The top, or a mount point git would not cross: git answers those.
    if (parent === folder || statSync(parent).dev !== device) return undefined;
    folder = parent;
  }
}

/** The root and core.ignorecase, when they can be known without git; else undefined. */
export function readRepoFacts(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): KnownRepoFacts | undefined {
  if (Object.keys(env).some((name) => name.startsWith("GIT_") && !HARMLESS.test(name)))
    return undefined;
  try {
    const found = findRepository(cwd);
    if (!found) return undefined;
    const local = readIfThere(path.join(found.gitDir, "config"));
    if (!local || !plainRepository(local)) return undefined;
    const mine = ignoreCaseSaid(local);
    if (mine === "unknown") return undefined;
    if (mine !== "unsaid") return { root: found.root, ignoreCase: mine };
    const outer = outerIgnoreCase(env);
    return outer === undefined ? undefined : { root: found.root, ignoreCase: outer };
  } catch {
    return undefined;
  }
}
