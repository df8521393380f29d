// Which coding agent a process is, from its argv entrypoint seen through wrappers (env, shells
// running a script, node/bun/deno/python running a file, npx and pnpm dlx), or from its command
// name. Rules are data: a caller can add its own.

export type EngineRule = {
  /** The engine's name as muster shows it: `pi`, `codex`, `claude`, … */
  engine: string;
  /** Executable or script names, matched on the entrypoint's base name (extension dropped). */
  bins?: readonly string[] | undefined;
  /** npm (or PyPI) package names, matched for npx / pnpm dlx / python -m. */
  packages?: readonly string[] | undefined;
  /** Path fragments that identify the engine's files, e.g. `/@openai/codex/`. */
  paths?: readonly string[] | undefined;
  /** Process titles the engine sets that replace its argv entirely. */
  titles?: readonly RegExp[] | undefined;
};

/** The built-in rules. */
export const BUILTIN_ENGINES: readonly EngineRule[] = [
  {
    engine: "pi",
    bins: ["pi"],
    packages: ["@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"],
    paths: ["/pi-coding-agent/"],
  },
  {
    engine: "codex",
    bins: ["codex"],
    packages: ["@openai/codex"],
    paths: ["/@openai/codex/", "/@openai/codex-"],
  },
  {
    engine: "claude",
    bins: ["claude"],
    packages: ["@anthropic-ai/claude-code"],
    paths: ["/@anthropic-ai/claude-code/"],
    // Claude Code may retitle its process to its bare version number.
    titles: [/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/],
  },
  {
    engine: "gemini",
    bins: ["gemini"],
    packages: ["@google/gemini-cli"],
    paths: ["/@google/gemini-cli/"],
  },
  { engine: "aider", bins: ["aider"], packages: ["aider-chat", "aider"] },
  { engine: "opencode", bins: ["opencode"], packages: ["opencode-ai"], paths: ["/opencode-ai/"] },
  { engine: "amp", bins: ["amp"], packages: ["@sourcegraph/amp"], paths: ["/@sourcegraph/amp/"] },
  { engine: "goose", bins: ["goose"], packages: ["goose-ai"] },
  { engine: "cursor-agent", bins: ["cursor-agent"], paths: ["/cursor-agent/"] },
  {
    engine: "copilot",
    bins: ["copilot"],
    packages: ["@github/copilot"],
    paths: ["/@github/copilot/"],
  },
];

/** Where a command line really starts. */
export type Entrypoint =
  | { kind: "path"; path: string }
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
const stripExtension = (name: string) =>
  name.replace(/\.(?:c|m)?js$|\.exe$|\.ts$|\.py$|\.sh$/u, "");

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
    const exe = stripExtension(baseName(argv[index]!));
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
    return { kind: "path", path: argv[index]! };
  }
  return { kind: "none" };
}

/** The longest a Linux command name (`comm`) can be. */
export const COMM_LENGTH = 15;

export type ProcessIdentityFacts = { name: string; argv: readonly string[] };

type CompiledRules = {
  bins: Map<string, string>;
  comms: Map<string, string>;
  packages: Map<string, string>;
  paths: { fragment: string; engine: string }[];
  titles: { title: RegExp; engine: string }[];
};

/** Rules indexed once (and cached per rules array): a scan matches 10,000 processes against them. */
const compiled = new WeakMap<readonly EngineRule[], CompiledRules>();
function compile(rules: readonly EngineRule[]): CompiledRules {
  const cached = compiled.get(rules);
  if (cached) return cached;
  const index: CompiledRules = {
    bins: new Map(),
    comms: new Map(),
    packages: new Map(),
    paths: [],
    titles: [],
  };
  // The first rule to claim a name keeps it.
  const claim = (map: Map<string, string>, key: string, engine: string) => {
    if (!map.has(key)) map.set(key, engine);
  };
  for (const rule of rules) {
    for (const bin of rule.bins ?? []) {
      claim(index.bins, bin, rule.engine);
      claim(index.comms, bin.slice(0, COMM_LENGTH), rule.engine);
    }
    for (const name of rule.packages ?? []) claim(index.packages, name, rule.engine);
    for (const fragment of rule.paths ?? []) index.paths.push({ fragment, engine: rule.engine });
    for (const title of rule.titles ?? []) index.titles.push({ title, engine: rule.engine });
  }
  compiled.set(rules, index);
  return index;
}

/** The engine this process runs, or undefined. Where several rules match, the first one listed wins. */
export function matchEngine(
  process: ProcessIdentityFacts,
  rules: readonly EngineRule[],
): string | undefined {
  const { argv, name: command } = process;
  const entry = entrypoint(argv);
  if (entry.kind === "inline") return undefined;
  const index = compile(rules);
  if (entry.kind === "package") {
    const engine = index.packages.get(entry.name);
    if (engine) return engine;
  }
  if (entry.kind === "path") {
    const engine =
      index.bins.get(stripExtension(baseName(entry.path))) ??
      index.paths.find(({ fragment }) => entry.path.includes(fragment))?.engine;
    if (engine) return engine;
  }
  if (argv.length === 1) {
    const engine = index.titles.find(({ title }) => title.test(argv[0]!))?.engine;
    if (engine) return engine;
  }
  // No readable argv: the kernel's command name, cut to 15 bytes.
  if (entry.kind === "none" && argv.length === 0) return index.comms.get(command);
  return undefined;
}
