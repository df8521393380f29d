// Where a command line really starts: its argv followed through wrappers (env, shells running a
// script, node/bun/deno/python running a file, npx, pnpm dlx, bunx, npm exec, python -m). Knows no
// engine: matching an entrypoint to an engine is _engines.ts.

/** Where a command line really starts. */
export type Entrypoint =
  /** A file run as the program; `index` is its place in argv (the program's own arguments follow). */
  | { kind: "path"; path: string; index: number }
  | { kind: "package"; name: string }
  | { kind: "inline" }
  | { kind: "none" };

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "fish", "ash"]);
const RUNTIMES = new Set(["node", "nodejs", "bun", "deno", "tsx", "ts-node"]);
const PYTHON = /^python(\d+(\.\d+)?)?$/;
/** Runtime options that take the next argument as their value. */
const VALUE_OPTIONS = new Set([
  "-r",
  "--require",
  "--import",
  "--loader",
  "--experimental-loader",
  "-C",
  "--conditions",
  "--env-file",
  "--title",
  "--cwd",
  "-W",
  "-X",
]);
/** Options that pass code inline instead of naming a file: shells take `-c`, runtimes `-e`/`-p`. */
const INLINE = {
  shell: (arg: string) => arg === "--command" || /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg),
  runtime: (arg: string) =>
    arg === "--eval" || arg === "--print" || arg === "-c" || /^-[a-zA-Z]*[ep]$/.test(arg),
};

export const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/**
 * A program's name as rules compare it: the base name, lower-cased (macOS runs `Claude` as
 * claude), without a script or `.exe` extension, and Nix's `.name-wrapped` seen as `name`.
 */
export function programName(path: string): string {
  const name = baseName(path).toLowerCase();
  // Most names have no dot: no regular expression for them (10,000 processes per scan).
  if (!name.includes(".")) return name;
  const bare = name.replace(/\.(?:c|m)?js$|\.exe$|\.ts$|\.py$|\.sh$/u, "");
  const wrapped = /^\.(.+)-wrapped$/u.exec(bare);
  return wrapped ? wrapped[1]! : bare;
}

/** `@scope/name@1.2.3` → `@scope/name`; `name@latest` → `name`. */
export function packageName(spec: string): string {
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0);
  return at > 0 ? spec.slice(0, at) : spec;
}

/** The first argument after options, or undefined; `inline` when code is passed instead of a file. */
function afterOptions(
  args: readonly string[],
  start: number,
  inline: (arg: string) => boolean,
): { index: number } | { inline: true } | undefined {
  for (let index = start; index < args.length; index += 1) {
    const arg = args[index]!;
    if (inline(arg)) return { inline: true };
    if (arg === "--") return index + 1 < args.length ? { index: index + 1 } : undefined;
    if (VALUE_OPTIONS.has(arg)) {
      index += 1;
      continue;
    }
    if (arg.startsWith("-")) continue;
    return { index };
  }
  return undefined;
}

/** The package a package runner (npx, pnpm dlx, bunx, npm exec) was asked to run. */
function runnerPackage(args: readonly string[], start: number): Entrypoint {
  for (let index = start; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === "-p" || arg === "--package")
      return { kind: "package", name: packageName(args[index + 1] ?? "") };
    if (arg.startsWith("--package=")) return { kind: "package", name: packageName(arg.slice(10)) };
    if (arg === "-c" || arg === "--call") return { kind: "inline" };
    if (arg.startsWith("-")) continue;
    return { kind: "package", name: packageName(arg) };
  }
  return { kind: "none" };
}

/** Follow wrappers to the command line's real entrypoint. */
export function entrypoint(argv: readonly string[]): Entrypoint {
  let index = 0;
  for (let depth = 0; depth < 8 && index < argv.length; depth += 1) {
    const exe = programName(argv[index]!);
    if (exe === "env") {
      index += 1;
      while (
        index < argv.length &&
        (argv[index]!.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[index]!))
      ) {
        index += argv[index] === "-u" || argv[index] === "-C" || argv[index] === "-S" ? 2 : 1;
      }
      continue;
    }
    if (exe === "npx" || exe === "npx-cli" || exe === "bunx" || exe === "pnpx")
      return runnerPackage(argv, index + 1);
    if ((exe === "pnpm" || exe === "pnpm-cli") && argv[index + 1] === "dlx")
      return runnerPackage(argv, index + 2);
    if (
      (exe === "npm" || exe === "npm-cli") &&
      (argv[index + 1] === "exec" || argv[index + 1] === "x")
    )
      return runnerPackage(argv, index + 2);
    if (exe === "bun" && argv[index + 1] === "x") return runnerPackage(argv, index + 2);
    if (PYTHON.test(exe)) {
      const module = argv.indexOf("-m", index + 1);
      if (module > 0 && module === index + 1)
        return { kind: "package", name: argv[module + 1] ?? "" };
    }
    if (SHELLS.has(exe) || RUNTIMES.has(exe) || PYTHON.test(exe)) {
      const start = exe === "deno" && argv[index + 1] === "run" ? index + 2 : index + 1;
      const next = afterOptions(argv, start, SHELLS.has(exe) ? INLINE.shell : INLINE.runtime);
      if (!next) return { kind: "none" };
      if ("inline" in next) return { kind: "inline" };
      index = next.index;
      continue;
    }
    return { kind: "path", path: argv[index]!, index };
  }
  return { kind: "none" };
}
