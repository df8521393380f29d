// `muster install pi [--from SOURCE] [--uninstall] [--dry-run]`: runs the `pi install` that works
// (pi 1.6.0 accepts `pi install ./muster-pi-extension-*.tgz` and then fails at every start, since
// it loads a file source as one extension): by default the extension of this version installed
// beside this CLI (`npm install -g` of both, as tools/install-from-clone does), else
// `npm:@muster/pi-extension@<this version>`; or a folder, npm spec or git URL given with --from.
// Then it checks, as `muster doctor` does, that pi will load the extension.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { access, constants } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Context, Refusal } from "./_context.js";

export type PiOptions = { uninstall: boolean; dryRun: boolean; from: string | undefined };

const read = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
};

/** pi's settings file, as pi finds it. */
export function piSettingsFile(env: NodeJS.ProcessEnv) {
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : homedir();
  return path.join(env.PI_CODING_AGENT_DIR || path.join(home, ".pi", "agent"), "settings.json");
}

/** What `checkPi` needs, read from this machine. */
export function piFiles(env: NodeJS.ProcessEnv) {
  const file = piSettingsFile(env);
  return { file, text: read(file), read, exists: existsSync, resolve: path.resolve };
}

async function findPi(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const folder of (env.PATH ?? "").split(path.delimiter).filter(path.isAbsolute)) {
    const program = path.join(folder, "pi");
    if (
      await access(program, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return program;
  }
  return undefined;
}

/** This CLI's package folder (the module sits in its dist/). */
const cliFolder = () => path.join(path.dirname(fileURLToPath(import.meta.url)), "..");

const manifest = (folder: string) => {
  try {
    return JSON.parse(read(path.join(folder, "package.json")) ?? "") as {
      name?: unknown;
      version?: unknown;
    };
  } catch {
    return undefined;
  }
};

function version(): string {
  const found = manifest(cliFolder())?.version;
  return typeof found === "string" ? found : "latest";
}

/**
 * muster's pi extension of this CLI's version, installed beside it in one `node_modules` (an
 * `npm install -g` of both, as from a clone): the folder for pi to load, else undefined. A CLI
 * run from its workspace has a sibling folder too, but not in `node_modules`: that is no install.
 */
function extensionBeside(packageName: string): string | undefined {
  const cli = cliFolder();
  if (path.basename(path.dirname(path.dirname(cli))) !== "node_modules") return undefined;
  const folder = path.join(path.dirname(cli), packageName.split("/")[1] ?? "");
  const found = manifest(folder);
  return found?.name === packageName && found.version === version() ? folder : undefined;
}

const runPi = (pi: string, args: string[], context: Context) =>
  new Promise<{ status: number; output: string }>((resolve) => {
    execFile(
      pi,
      args,
      { cwd: context.io.cwd, env: context.io.env, timeout: 300_000 },
      (error, stdout, stderr) =>
        resolve({
          status: error ? Number((error as { code?: unknown }).code) || 1 : 0,
          output: `${stdout}${stderr}`,
        }),
    );
  });

export async function installPiCommand(context: Context, options: PiOptions) {
  const { checkPi, musterPiSources, PI_PACKAGE } = await import("@muster/mcp/engines");
  const env = context.io.env;
  const from = options.from;
  if (from && /\.(tgz|tar\.gz)$/.test(from))
    throw new Refusal(
      "pi-tarball",
      `pi loads a .tgz source as one extension file and then fails at every start: unpack it and pass the folder (--from ./package), or use npm:${PI_PACKAGE}`,
    );
  const files = piFiles(env);
  const installed = musterPiSources(files);
  const sources = options.uninstall
    ? installed.map((source) =>
        /^(npm:|git:|https?:|ssh:)/.test(source)
          ? source
          : path.resolve(path.dirname(files.file), source),
      )
    : [
        from
          ? /^(npm:|git:|https?:|ssh:)/.test(from)
            ? from
            : path.resolve(context.io.cwd, from)
          : (extensionBeside(PI_PACKAGE) ?? `npm:${PI_PACKAGE}@${version()}`),
      ];
  const verb = options.uninstall ? "remove" : "install";
  const commands = sources.map((source) => ["pi", verb, source]);
  // Nothing of muster's in pi's settings: nothing to remove, and no pi needed to say so.
  if (options.uninstall && commands.length === 0) {
    if (context.json) return context.emit({ ok: true, commands });
    return context.out(`pi: muster's extension is not in ${files.file}: nothing to remove`);
  }
  const pi = await findPi(env);
  if (options.dryRun || !pi) {
    if (!pi && !options.dryRun)
      throw new Refusal(
        "no-pi",
        `pi is not on PATH: install pi (npm install -g @earendil-works/pi-coding-agent), then run ${commands.map((words) => words.join(" ")).join(" && ") || "muster install pi"}`,
      );
    if (context.json) return context.emit({ ok: true, dryRun: true, commands });
    for (const words of commands) context.out(words.join(" "));
    return context.out("Nothing was run (--dry-run).");
  }
  for (const words of commands) {
    const done = await runPi(pi, words.slice(1), context);
    if (done.status !== 0)
      throw new Refusal(
        "pi-failed",
        `${words.join(" ")} failed: ${done.output.trim().split("\n").at(-1) ?? `exit ${done.status}`}`,
      );
  }
  const check = checkPi(piFiles(env));
  if (!check.ok) throw new Refusal("pi-not-loading", `${check.detail}: ${check.fix}`);
  if (context.json) return context.emit({ ok: true, commands, check });
  for (const words of commands) context.out(`Ran ${words.join(" ")}`);
  context.out(`pi: ${check.detail}.`);
}
