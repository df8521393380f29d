// What `muster doctor` (and `muster install pi`, after pi's install) says of pi and muster's
// extension, as a pure check over pi's settings file and the package it names: pi 1.6.0 loads a
// local source from its path as it is (a folder by its `package.json` "pi" manifest, a file as one
// extension, so a `.tgz` breaks every start); an `npm:` source it keeps under its agent folder
// (`npm/node_modules`), put there by `pi install`, or at its next start when missing.
import type { EngineCheck } from "./_engine-checks.js";

/** The npm package of muster's pi extension. */
export const PI_PACKAGE = "@muster/pi-extension";

export type PiFiles = {
  /** pi's settings file (`$PI_CODING_AGENT_DIR/settings.json`, default `~/.pi/agent`). */
  file: string;
  text: string | undefined;
  /** The text of a file, undefined when absent. */
  read: (file: string) => string | undefined;
  exists: (file: string) => boolean;
  /** `path.resolve`, passed in. */
  resolve: (from: string, to: string) => string;
};

const sourceOf = (entry: unknown) =>
  typeof entry === "string"
    ? entry
    : typeof entry === "object" &&
        entry !== null &&
        typeof (entry as { source?: unknown }).source === "string"
      ? (entry as { source: string }).source
      : undefined;

const isLocal = (source: string) => !/^(npm:|git:|https?:|ssh:|git@)/.test(source);

/** The sources in pi's settings that are muster's extension (by npm name, or the package a path names). */
export function musterPiSources(files: PiFiles): string[] {
  let settings: unknown;
  try {
    settings = files.text === undefined ? {} : JSON.parse(files.text);
  } catch {
    return [];
  }
  const packages = (settings as { packages?: unknown }).packages;
  const folder = files.resolve(files.file, "..");
  return (Array.isArray(packages) ? packages : [])
    .map(sourceOf)
    .filter((source): source is string => source !== undefined)
    .filter((source) => {
      if (source.startsWith(`npm:${PI_PACKAGE}`)) return true;
      if (!isLocal(source)) return false;
      if (/muster-pi-extension[^/]*\.(tgz|tar\.gz)$/.test(source)) return true;
      const manifest = files.read(files.resolve(files.resolve(folder, source), "package.json"));
      try {
        return (
          manifest !== undefined && (JSON.parse(manifest) as { name?: unknown }).name === PI_PACKAGE
        );
      } catch {
        return false;
      }
    });
}

/** Whether pi will load muster's extension: one check, with the command that fixes it. */
export function checkPi(files: PiFiles): EngineCheck {
  const name = "pi extension";
  if (files.text !== undefined) {
    try {
      JSON.parse(files.text);
    } catch {
      return {
        name,
        ok: false,
        detail: `${files.file} is not JSON`,
        fix: "fix it, then muster install pi",
      };
    }
  }
  const sources = musterPiSources(files);
  if (sources.length === 0)
    return {
      name,
      ok: true,
      notSetUp: true,
      detail: `${files.file}: muster's extension is not installed (muster install pi)`,
    };
  const folder = files.resolve(files.file, "..");
  for (const source of sources) {
    if (!isLocal(source)) continue;
    const where = files.resolve(folder, source);
    if (/\.(tgz|tar\.gz)$/.test(source))
      return {
        name,
        ok: false,
        detail: `pi loads ${source} as an extension file and fails at every start (Unknown file extension .tgz)`,
        fix: `pi remove ${source} && muster install pi`,
      };
    const manifest = files.read(files.resolve(where, "package.json"));
    const entries = manifest
      ? ((JSON.parse(manifest) as { pi?: { extensions?: unknown } }).pi?.extensions ?? [])
      : [];
    const missing = (Array.isArray(entries) ? entries : [])
      .filter((entry): entry is string => typeof entry === "string")
      .map((entry) => files.resolve(where, entry))
      .find((entry) => !files.exists(entry));
    if (!manifest || missing)
      return {
        name,
        ok: false,
        detail: `pi loads muster's extension from ${where}, but ${missing ?? `${where}/package.json`} is not there (moved or removed)`,
        fix: `pi remove ${source} && muster install pi`,
      };
  }
  const local = sources.find(isLocal);
  if (local)
    return {
      name,
      ok: true,
      detail: `pi loads muster's extension from ${files.resolve(folder, local)}`,
    };
  return npmSourceCheck(files, folder, sources[0] ?? `npm:${PI_PACKAGE}`);
}

/**
 * An npm source: pi keeps a user's npm packages under its agent folder (`npm/node_modules`), put
 * there by `pi install` or, when missing, at pi's next start (which needs the registry).
 */
function npmSourceCheck(files: PiFiles, folder: string, source: string): EngineCheck {
  const name = "pi extension";
  const installed = files.resolve(folder, `npm/node_modules/${PI_PACKAGE}`);
  const manifest = files.read(files.resolve(installed, "package.json"));
  let version: unknown;
  try {
    version =
      manifest === undefined ? undefined : (JSON.parse(manifest) as { version?: unknown }).version;
  } catch {
    version = undefined;
  }
  if (manifest === undefined)
    return {
      name,
      ok: true,
      warn: true,
      detail: `pi installs ${source} from npm at its next start (not in ${installed} yet)`,
    };
  return {
    name,
    ok: true,
    detail: `pi loads ${PI_PACKAGE}${typeof version === "string" ? ` ${version}` : ""} from ${installed} (${source})`,
  };
}
