// Which engine a process is: every built-in rule as rows, and rules as data.
import { describe, expect, it } from "vitest";
import { entrypoint } from "./_entrypoint.js";
import { BUILTIN_ENGINES, type EngineRule, matchEngine } from "./index.js";

const CODEX_JS = "/usr/lib/node_modules/@openai/codex/bin/codex.js";
const CODEX_NATIVE =
  "/usr/lib/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex";
const PI_JS = "/home/me/.npm/lib/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js";

const engineOf = (argv: string[], name: string | undefined) =>
  matchEngine({ name: name ?? baseName(argv[0] ?? ""), argv }, BUILTIN_ENGINES);
function baseName(path: string) {
  return path.slice(path.lastIndexOf("/") + 1).slice(0, 15);
}

const CLAUDE_NATIVE = "/home/me/.local/share/claude/versions/2.1.332";
const CURSOR_AGENT = "/home/me/.local/share/cursor-agent/versions/2025.09.04-fc40cd1";

/** Every rule of BUILTIN_ENGINES as rows: argv (and command name, when argv is unreadable) → engine. */
const MATCHES: [string, string[], string | undefined, string?][] = [
  ["pi as installed", ["node", PI_JS], "pi"],
  [
    "pi under env with assignments",
    ["/usr/bin/env", "-i", "FOO=1", "BAR=x y", "node", PI_JS, "--name", "a"],
    "pi",
  ],
  ["pi by bin name", ["/home/me/.local/bin/pi"], "pi"],
  ["codex through node", ["node", CODEX_JS, "--yolo"], "codex"],
  ["codex native binary", [CODEX_NATIVE], "codex"],
  [
    "codex through node with options",
    ["node", "--enable-source-maps", "-r", "/tmp/hook.js", CODEX_JS],
    "codex",
  ],
  ["codex through npx", ["npx", "-y", "@openai/codex@latest"], "codex"],
  [
    "codex through npx-cli.js",
    ["node", "/usr/lib/node_modules/npm/bin/npx-cli.js", "@openai/codex"],
    "codex",
  ],
  ["codex through pnpm dlx", ["pnpm", "dlx", "@openai/codex"], "codex"],
  ["codex through bunx", ["bunx", "@openai/codex"], "codex"],
  ["claude by symlink name", ["claude", "--resume"], "claude"],
  [
    "claude.exe by full path",
    ["/usr/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe"],
    "claude",
  ],
  ["claude retitled to its version", ["2.1.332"], "claude"],
  ["gemini through bun", ["bun", "/x/node_modules/@google/gemini-cli/dist/index.js"], "gemini"],
  [
    "gemini through deno run",
    ["deno", "run", "-A", "/x/node_modules/@google/gemini-cli/dist/index.js"],
    "gemini",
  ],
  [
    "aider as a python script",
    ["/usr/bin/python3", "/home/me/.local/bin/aider", "--model", "x"],
    "aider",
  ],
  ["aider as python -m", ["python3.12", "-m", "aider"], "aider"],
  ["opencode", ["/usr/local/bin/opencode"], "opencode"],
  ["amp", ["node", "/x/node_modules/@sourcegraph/amp/dist/main.js"], "amp"],
  ["goose", ["goose", "session"], "goose"],
  ["cursor-agent", ["/home/me/.local/bin/cursor-agent"], "cursor-agent"],
  ["copilot", ["node", "/x/node_modules/@github/copilot/index.js"], "copilot"],
  ["a shell running a script", ["bash", "/home/me/bin/codex.sh"], "codex"],
  [
    "a login shell running a script with options",
    ["/bin/bash", "-l", "--norc", "/home/me/bin/pi"],
    "pi",
  ],
  ["node -e with codex in the code", ["node", "-e", `require("${CODEX_JS}")`], undefined],
  ["bash -c with claude in the code", ["bash", "-c", "claude --resume"], undefined],
  ["bash -lc", ["bash", "-lc", "pi"], undefined],
  ["python -c", ["python3", "-c", "import aider"], undefined],
  ["an interactive shell", ["-bash"], undefined],
  ["vim editing codex.js", ["vim", CODEX_JS], undefined],
  ["a version-like title with more args", ["2.1.332", "--x"], undefined],
  ["node alone", ["node"], undefined],
  // Claude Code's native installer: the file under its versions folder, not a version anywhere.
  ["claude from the native installer's versions folder", [CLAUDE_NATIVE, "--resume"], "claude"],
  ["claude native, argv of one", [CLAUDE_NATIVE], "claude"],
  ["claude native, argv unreadable: its command name is the version", [], "claude", "2.1.332"],
  ["a version-named file in another folder", ["/opt/tools/2.1.332", "--x"], undefined],
  [
    "another file in claude's versions folder",
    ["/home/me/.local/share/claude/versions/x.sh"],
    undefined,
  ],
  ["claude's versions folder under a different parent", ["/srv/claude/versions/2.1.332"], "claude"],
  // A package-path rule matches the package's CLI entry only.
  [
    "a build script inside pi's package",
    ["node", "/x/node_modules/@earendil-works/pi-coding-agent/scripts/build.js"],
    undefined,
  ],
  [
    "a test file inside codex's package",
    ["node", "/x/node_modules/@openai/codex/test/run.js"],
    undefined,
  ],
  ["pi's older entry", ["node", "/x/node_modules/@mariozechner/pi-coding-agent/dist/cli.js"], "pi"],
  [
    "claude's older cli.js entry",
    ["node", "/x/node_modules/@anthropic-ai/claude-code/cli.js"],
    "claude",
  ],
  [
    "gemini's bundle entry",
    ["node", "/x/node_modules/@google/gemini-cli/bundle/gemini.js"],
    "gemini",
  ],
  // Names users have.
  ["claude-code, the Nix wrapper", ["/nix/store/abc-claude-code-2.1/bin/claude-code"], "claude"],
  ["a Nix-wrapped claude", ["/nix/store/abc-claude-code-2.1/bin/.claude-wrapped"], "claude"],
  ["OpenCode's linked native binary", ["/x/node_modules/opencode-ai/bin/.opencode"], "opencode"],
  ["OpenCode's Windows-style name", ["/x/node_modules/opencode-ai/bin/opencode.exe"], "opencode"],
  ["OpenCode's next package through npx", ["npx", "@opencode/cli"], "opencode"],
  ["OpenCode 2's beta TUI", ["/home/me/.local/bin/opencode2"], "opencode"],
  ["OpenCode 2 on Windows", ["C:/Users/me/bin/opencode2.exe"], "opencode"],
  ["OpenCode 2, argv unreadable", [], "opencode", "opencode2"],
  ["ghcs, GitHub Copilot in the CLI", ["/usr/local/bin/ghcs"], "copilot"],
  ["copilot's npm loader", ["node", "/x/node_modules/@github/copilot/npm-loader.js"], "copilot"],
  [
    "cursor-agent as installed (its own node runs index.js)",
    [`${CURSOR_AGENT}/node`, `${CURSOR_AGENT}/index.js`],
    "cursor-agent",
  ],
  ["cursor running the agent", ["/usr/bin/cursor", "agent", "fix the tests"], "cursor-agent"],
  ["cursor the editor", ["/usr/share/cursor/cursor", "--type=renderer"], undefined],
  ["cursor opening a folder", ["cursor", "."], undefined],
  ["a bare cursor: the editor's launcher", ["/usr/bin/cursor"], undefined],
  // Names are matched case-insensitively: on macOS `Claude` runs claude.
  ["Claude", ["/usr/local/bin/Claude"], "claude"],
  [
    "CODEX.js through Node",
    ["/usr/local/bin/Node", "/x/node_modules/@openai/Codex/bin/codex.js"],
    "codex",
  ],
  ["NPX with a capitalised package", ["NPX", "@OpenAI/codex"], "codex"],
  ["a capitalised command name, argv unreadable", [], "gemini", "Gemini"],
];

describe("matching engines by argv entrypoint", () => {
  it.each(MATCHES)("%s → %j → %s", (_, argv, engine, name) => {
    expect(engineOf(argv, name)).toBe(engine);
  });

  it("every built-in engine has its rows: a rule is an entry plus a test row", () => {
    const covered = new Set(MATCHES.map(([, , engine]) => engine));
    expect(BUILTIN_ENGINES.filter((rule) => !covered.has(rule.engine))).toEqual([]);
  });

  it("with no readable argv, the command name truncated to 15 bytes", () => {
    const rules: EngineRule[] = [{ engine: "long", bins: ["a-very-long-agent-name"] }];
    expect(matchEngine({ name: "a-very-long-age", argv: [] }, rules)).toBe("long");
    expect(matchEngine({ name: "cursor-agent", argv: [] }, BUILTIN_ENGINES)).toBe("cursor-agent");
    expect(matchEngine({ name: "bash", argv: [] }, BUILTIN_ENGINES)).toBeUndefined();
  });

  it("a caller's own rules are data: each kind of rule is one entry", () => {
    const rules: EngineRule[] = [
      ...BUILTIN_ENGINES,
      {
        engine: "mine",
        bins: ["my-agent"],
        entries: ["/my-agent-pkg/bin/main.js"],
        installs: [{ folder: "/my-agent/builds/*", file: /^run$/ }],
        commands: [["tool", "chat"]],
      },
    ];
    const engine = (argv: string[]) => matchEngine({ name: baseName(argv[0] ?? ""), argv }, rules);
    expect(engine(["node", "/opt/my-agent-pkg/bin/main.js"])).toBe("mine");
    expect(engine(["node", "/opt/my-agent-pkg/lib/other.js"])).toBeUndefined();
    expect(engine(["my-agent"])).toBe("mine");
    expect(engine(["/home/me/my-agent/builds/42/run"])).toBe("mine");
    expect(engine(["tool", "chat"])).toBe("mine");
    expect(engine(["tool", "lint"])).toBeUndefined();
  });

  it.each([
    [["env", "A=1", "node", "x.js"], { kind: "path", path: "x.js", index: 3 }],
    [["node", "--", "x.js"], { kind: "path", path: "x.js", index: 2 }],
    [["npx", "--package=@a/b@1", "b"], { kind: "package", name: "@a/b" }],
    [["npx", "-c", "codex"], { kind: "inline" }],
    [["env"], { kind: "none" }],
  ] as const)("entrypoint(%j)", (argv, expected) => {
    expect(entrypoint(argv)).toEqual(expected);
  });
});
