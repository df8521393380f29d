// A hot command's bundle run as a script, with V8's code cache of it taken after it ran. Node's
// compile cache keeps what V8 compiled before a module ran: the bundle's top level, not the few
// hundred functions a command calls, which V8 compiles again at every start (~7 ms of a `status
// --line`). The build writes each bundle a second time as one function (`main.script.js`,
// tools/src/command-bundles.ts); the cache taken at the end of its first run for these words keeps
// every function that run compiled. Kept beside Node's compile cache (the same checked folder),
// one file per script (the hash of its contents, which the build put in its first line) and
// command words; writing one removes the caches of all but the newest builds of its bundle.
// Anything missing, unreadable or refused gives undefined: the caller imports the
// bundle as before.
import {
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import type { main as Main } from "./_main.js";

type Bundle = { main: typeof Main };
type Require = (id: string) => unknown;

/** The command's words (`hook-claude-stop`), up to its first option or argument that is not one. */
function wordsOf(argv: readonly string[]): string {
  const words: string[] = [];
  for (const arg of argv.slice(0, 4)) {
    if (!/^[a-z][a-z-]{0,30}$/.test(arg)) break;
    words.push(arg);
  }
  return words.join("-");
}

/**
 * The cache file for this script (named by the hash its first line gives, which the build wrote
 * from its contents) and these words, in `folder`; undefined for a script with no such line.
 */
function cacheFile(folder: string, script: string, source: string, argv: readonly string[]) {
  const hash = /^\/\/ muster-script ([0-9a-f]{32})\n/.exec(source)?.[1];
  if (!hash) return undefined;
  const bundle = path.basename(path.dirname(script));
  const key = `${bundle}-${hash}-${source.length}-${wordsOf(argv)}`;
  return path.join(folder, `script-${process.version}-${process.arch}-${key}.v8`);
}

/** Run the script form of `bundle` (a URL of its main.js), its code cache in `folder`. */
export function runBundleScript(
  bundle: URL,
  folder: string,
  argv: readonly string[],
): Bundle | undefined {
  // Without Node's own loader for its `import()`s (Node 21.7 on), the bundle is imported.
  const loader = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (!loader) return undefined;
  quietLoaderWarning();
  try {
    const url = new URL("./main.script.js", bundle);
    const file = fileURLToPath(url);
    // ASCII outside its comments (scriptForm checks): read as latin1, half the cost of utf8.
    const source = readFileSync(file, "latin1");
    const cache = cacheFile(folder, file, source, argv);
    if (!cache) return undefined;
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(cache);
    } catch {
      cachedData = undefined;
    }
    const script = new vm.Script(source, {
      filename: file,
      cachedData,
      importModuleDynamically: loader,
    });
    if (!cachedData || script.cachedDataRejected) process.once("exit", () => keep(script, cache));
    const run = script.runInThisContext() as (require: Require, url: string) => Bundle;
    // Made at its first call, as the bundles' own banner makes it (tools/src/bundle-options.ts).
    let real: NodeJS.Require | undefined;
    const require = (id: string) => {
      real ??= createRequire(bundle);
      return real(id);
    };
    return run(require, bundle.href);
  } catch {
    return undefined;
  }
}

/**
 * Node calls that loader experimental and says so on stderr at the script's first `import()`:
 * a line the person never asked for, before a command's own answer (a hook's stderr is shown to
 * an engine). That one warning is dropped; every other goes on as Node sends it.
 */
function quietLoaderWarning() {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning?.message;
    if (text?.includes("USE_MAIN_CONTEXT_DEFAULT_LOADER")) return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
}

/** Write the code cache of what ran, whole or not at all (another start may read it now). */
function keep(script: vm.Script, cache: string) {
  const temp = `${cache}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
    renameSync(temp, cache);
    prune(cache);
  } catch {
    // A cache: the next start compiles as this one did.
  }
}

/** Builds of one bundle whose caches are kept: this one and the two written before it. */
const KEPT_BUILDS = 3;
/** A cache file's name as `cacheFile` makes it: its build (all but the words), and bundle. */
const OWN_NAME = /^(script-v[0-9.]+-[a-z0-9]+-([a-z][a-z0-9-]*)-[0-9a-f]{32}-[0-9]+)-[a-z-]*\.v8$/;

/**
 * Remove the cache files of this bundle's older builds (each upgrade or Node adds one), all but
 * the newest `KEPT_BUILDS`: two installs taking turns keep theirs. Only regular files named as
 * muster names them, in its own folder; a link or anything else is left as it is.
 */
function prune(cache: string) {
  const folder = path.dirname(cache);
  const own = OWN_NAME.exec(path.basename(cache));
  if (!own) return;
  const builds = new Map<string, { files: string[]; newest: number }>();
  for (const name of readdirSync(folder)) {
    const match = OWN_NAME.exec(name);
    if (!match?.[1] || match[2] !== own[2] || match[1] === own[1]) continue;
    const file = path.join(folder, name);
    const stat = lstatSync(file, { throwIfNoEntry: false });
    if (!stat?.isFile()) continue;
    const build = builds.get(match[1]) ?? { files: [], newest: 0 };
    build.files.push(file);
    build.newest = Math.max(build.newest, stat.mtimeMs);
    builds.set(match[1], build);
  }
  const older = [...builds.values()].sort((a, b) => b.newest - a.newest).slice(KEPT_BUILDS - 1);
  for (const file of older.flatMap((build) => build.files)) {
    try {
      unlinkSync(file);
    } catch {
      // Gone already (another start pruned it): nothing to do.
    }
  }
}
