// Which coding agent a process is, from its argv entrypoint (see _entrypoint.ts) or its command
// name. The rules are data: an engine or a name is one entry here and one row in the tests.
import { baseName, entrypoint, programName } from "./_entrypoint.js";

export type EngineRule = {
  /** The engine's name as muster shows it: `pi`, `codex`, `claude`, … */
  engine: string;
  /** Program names, matched case-insensitively on the entrypoint's base name (extension dropped). */
  bins?: readonly string[] | undefined;
  /** npm (or PyPI) package names, matched for npx / pnpm dlx / bunx / python -m. */
  packages?: readonly string[] | undefined;
  /**
   * The package's CLI entry files, as path endings (`/@openai/codex/bin/codex.js`): any other file
   * in the package (a build script, a test) is not the engine.
   */
  entries?: readonly string[] | undefined;
  /**
   * Installers that keep one file per version in a folder: the entry's folder ends with `folder`
   * (`*` stands for one path segment) and its file name matches `file`.
   */
  installs?: readonly { folder: string; file: RegExp }[] | undefined;
  /** A program that runs the engine only as a subcommand: `["cursor", "agent"]`. */
  commands?: readonly (readonly string[])[] | undefined;
  /** Process titles the engine sets that replace its argv (or command name) entirely. */
  titles?: readonly RegExp[] | undefined;
};

/** A release version as a file or process name: `2.1.332`, `1.0.0-beta.1`. */
const VERSION = /^\d+\.\d+\.\d+(?:-[0-9a-z.-]+)?$/i;

/** The built-in rules. */
export const BUILTIN_ENGINES: readonly EngineRule[] = [
  {
    engine: "pi",
    bins: ["pi"],
    packages: ["@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"],
    entries: ["/pi-coding-agent/dist/bundle/cli.js", "/pi-coding-agent/dist/cli.js"],
  },
  {
    // The native binary (`…/@openai/codex-linux-x64/vendor/…/bin/codex`) is matched by its name.
    engine: "codex",
    bins: ["codex"],
    packages: ["@openai/codex"],
    entries: ["/@openai/codex/bin/codex.js"],
  },
  {
    engine: "claude",
    // `claude-code` is the Nix package's wrapper; `bin/claude.exe` is matched as `claude`.
    bins: ["claude", "claude-code"],
    packages: ["@anthropic-ai/claude-code"],
    entries: ["/@anthropic-ai/claude-code/cli.js"],
    // The native installer runs ~/.local/share/claude/versions/<version>, and the process may
    // retitle itself to that bare version.
    installs: [{ folder: "/claude/versions", file: VERSION }],
    titles: [VERSION],
  },
  {
    engine: "gemini",
    bins: ["gemini"],
    packages: ["@google/gemini-cli"],
    entries: ["/@google/gemini-cli/bundle/gemini.js", "/@google/gemini-cli/dist/index.js"],
  },
  { engine: "aider", bins: ["aider"], packages: ["aider-chat", "aider"] },
  {
    // npm's opencode-ai links its native binary as bin/.opencode beside bin/opencode; OpenCode 2's
    // beta TUI is `opencode2` (`opencode2.exe` on Windows: the extension is dropped).
    engine: "opencode",
    bins: ["opencode", ".opencode", "opencode2"],
    packages: ["opencode-ai", "@opencode/cli"],
  },
  {
    engine: "amp",
    bins: ["amp"],
    packages: ["@sourcegraph/amp"],
    entries: ["/@sourcegraph/amp/dist/main.js"],
  },
  { engine: "goose", bins: ["goose"], packages: ["goose-ai"] },
  {
    // The installer keeps ~/.local/share/cursor-agent/versions/<version>/index.js, run by node;
    // the editor's `cursor` runs the agent as `cursor agent`. A bare `cursor` (`cursor .`, the
    // editor's own processes) is the editor or its launcher, not an agent: it takes no pane.
    engine: "cursor-agent",
    bins: ["cursor-agent"],
    installs: [{ folder: "/cursor-agent/versions/*", file: /^index\.js$/ }],
    commands: [["cursor", "agent"]],
  },
  {
    engine: "copilot",
    // `ghcs` is GitHub Copilot in the CLI's alias.
    bins: ["copilot", "ghcs"],
    packages: ["@github/copilot"],
    entries: ["/@github/copilot/npm-loader.js", "/@github/copilot/index.js"],
  },
];

/** The longest a Linux command name (`comm`) can be. */
export const COMM_LENGTH = 15;

export type ProcessIdentityFacts = { name: string; argv: readonly string[] };

type Tagged<T> = { value: T; engine: string };
type CompiledRules = {
  bins: Map<string, string>;
  comms: Map<string, string>;
  packages: Map<string, string>;
  entries: Tagged<string>[];
  installs: Tagged<{ folder: string[]; file: RegExp }>[];
  commands: Map<string, Tagged<string[]>[]>;
  titles: Tagged<RegExp>[];
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
    entries: [],
    installs: [],
    commands: new Map(),
    titles: [],
  };
  // The first rule to claim a name keeps it.
  const claim = (map: Map<string, string>, key: string, engine: string) => {
    if (!map.has(key)) map.set(key, engine);
  };
  for (const { engine, ...rule } of rules) {
    for (const bin of rule.bins ?? []) {
      claim(index.bins, programName(bin), engine);
      claim(index.comms, bin.slice(0, COMM_LENGTH).toLowerCase(), engine);
    }
    for (const name of rule.packages ?? []) claim(index.packages, name.toLowerCase(), engine);
    for (const entry of rule.entries ?? [])
      index.entries.push({ value: entry.toLowerCase(), engine });
    for (const { folder, file } of rule.installs ?? []) {
      const segments = folder.toLowerCase().split("/").filter(Boolean);
      index.installs.push({ value: { folder: segments, file }, engine });
    }
    for (const [program, ...args] of rule.commands ?? []) {
      if (program === undefined) continue;
      const key = programName(program);
      const list = index.commands.get(key) ?? [];
      list.push({ value: args.map((arg) => arg.toLowerCase()), engine });
      index.commands.set(key, list);
    }
    for (const title of rule.titles ?? []) index.titles.push({ value: title, engine });
  }
  compiled.set(rules, index);
  return index;
}

/** Does the file at `path` sit in a folder ending with `folder` (segments, `*` for any one)? */
function inFolder(path: string, folder: readonly string[]): boolean {
  const segments = path.split("/");
  segments.pop();
  if (segments.length < folder.length) return false;
  const offset = segments.length - folder.length;
  return folder.every((segment, at) => segment === "*" || segment === segments[offset + at]);
}

/** The engine a program run from `path` (at `argv[at]`) is, or undefined. */
function matchPath(index: CompiledRules, argv: readonly string[], at: number, path: string) {
  const name = programName(path);
  const bin = index.bins.get(name);
  if (bin) return bin;
  for (const { value: args, engine } of index.commands.get(name) ?? []) {
    if (args.every((arg, offset) => argv[at + 1 + offset]?.toLowerCase() === arg)) return engine;
  }
  if (!path.includes("/")) return undefined;
  const lower = path.toLowerCase();
  for (const { value, engine } of index.entries) if (lower.endsWith(value)) return engine;
  const file = baseName(path);
  for (const { value, engine } of index.installs) {
    if (value.file.test(file) && inFolder(lower, value.folder)) return engine;
  }
  return undefined;
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
    const engine = index.packages.get(entry.name.toLowerCase());
    if (engine) return engine;
  }
  if (entry.kind === "path") {
    const engine = matchPath(index, argv, entry.index, entry.path);
    if (engine) return engine;
  }
  // A title replaces the whole argv; with no readable argv, it is the command name.
  const title = argv.length === 1 ? argv[0]! : argv.length === 0 ? command : undefined;
  if (title !== undefined) {
    const engine = index.titles.find(({ value }) => value.test(title))?.engine;
    if (engine) return engine;
  }
  // No readable argv: the kernel's command name, cut to 15 bytes.
  if (entry.kind === "none" && argv.length === 0) return index.comms.get(command.toLowerCase());
  return undefined;
}
