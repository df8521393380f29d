// The `muster` executable's real start, imported by its first module (muster.ts) once Node is
// new enough. Node's compile cache keeps the compiled CLI on disk (under muster's
// cache folder, see _compile-cache.ts), so every call after the first skips compiling it: start-up
// is most of a `muster roster --json`. It is on before the command's code is imported.
import { existsSync } from "node:fs";
import { runBundleScript } from "./_bundle-script.js";
import { commandBundle } from "./_command-bundles.js";
import { compileCacheFolder, enableCompileCache } from "./_compile-cache.js";
import { fdInput } from "./_fd-input.js";
import { fdOutput } from "./_fd-output.js";

const cached = enableCompileCache(process.env) === "enabled";
// A command that starts often has its own bundle, the same main in one file (_command-bundles.ts),
// run as a script whose code cache keeps what it compiled (_bundle-script.ts), else imported.
const bundle = commandBundle(process.argv.slice(2));
const { main } =
  bundle && existsSync(bundle)
    ? (cached && runBundleScript(bundle, compileCacheFolder(process.env), process.argv.slice(2))) ||
      ((await import(bundle.href)) as typeof import("./_main.js"))
    : await import("./_main.js");
/** package.json's version, put in by the build (tools/src/command-bundles.ts); else read. */
declare const MUSTER_VERSION: string | undefined;
const version =
  typeof MUSTER_VERSION === "string"
    ? MUSTER_VERSION
    : (await import("../package.json", { with: { type: "json" } })).default.version;

/** Once the command has answered, how long anything left (a socket to a stalled server) may hold it. */
const EXIT_AFTER_MS = 1_000;

/** Everything written so far to `stream` has left the process (or the stream has failed). */
const written = (stream: NodeJS.WriteStream) =>
  new Promise<void>((resolve) => {
    try {
      stream.write("", () => resolve());
    } catch {
      resolve();
    }
  });

let stdin: ReturnType<typeof fdInput> | undefined;
process.exitCode = await main(
  process.argv.slice(2),
  {
    // A pipe or a file written directly: Node's streams load only for a terminal (_fd-output.ts).
    stdout: fdOutput(1, () => process.stdout),
    stderr: fdOutput(2, () => process.stderr),
    // Taken when a command reads it: making process.stdin costs a start that never reads (~5 ms),
    // and a pipe is read without it (_fd-input.ts).
    get stdin() {
      stdin ??= fdInput(0, () => process.stdin);
      return stdin;
    },
    env: process.env,
    cwd: process.cwd(),
  },
  version,
);
// Nothing is left to run (Node says so only then: no write, timer or socket pending): ending here
// skips Node's tearing down of the heap the bundle filled, ~0.3-2 ms of CPU per start; the exit
// handlers still run (the code cache kept at exit, _bundle-script.ts). Not when something else
// listens for it (Ink's unmount): that listener may give the loop more to do.
if (process.listenerCount("beforeExit") === 0) process.once("beforeExit", () => process.exit());
// The command is done: a process that ends by itself never sees this timer (it holds nothing);
// one held by a socket nobody answers ends with the command's status once its output is written.
setTimeout(() => {
  void Promise.all([written(process.stdout), written(process.stderr)]).then(() => process.exit());
}, EXIT_AFTER_MS).unref();
