// Each command loads its own code and not another's: the built `muster`, run once per command with
// a loader hook that records every module it loads (test/import-trace.ts), the loaded chunks
// mapped back to their source files through the build's metafile. A command whose graph pulls in
// a package it does not run fails here (the MCP SDK in `muster roster`, the configuration
// editors' parsers in the hook Claude Code runs before every edit).
import { readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { musterKit } from "../test/run.ts";

const DIST = path.resolve(import.meta.dirname, "..", "dist");
const TRACE = path.resolve(import.meta.dirname, "..", "test", "import-trace.ts");

/** What no command may load unless its row says so: a name and the source paths it stands for. */
const HEAVY = {
  "the MCP SDK": /node_modules\/@modelcontextprotocol\/sdk\//,
  zod: /node_modules\/zod\//,
  "the MCP server": /\/mcp\/src\/_(server|tools|stdio-run)\.ts$/,
  "the NATS client": /node_modules\/@nats-io\/|\/nats\/src\//,
  "the configuration editors":
    /node_modules\/(jsonc-parser|toml-eslint-parser)\/|\/mcp\/src\/_install-/,
  "smol-toml": /node_modules\/smol-toml\//,
  diff: /node_modules\/diff\//,
  "the board command": /^src\/_board\.ts$/,
  "spawn and stop": /^src\/_(spawn|stop)\.ts$/,
  "the status watch": /^src\/_status-watch\.ts$/,
  "the dashboard (Ink, React)":
    /node_modules\/(ink|react|react-reconciler|yoga-layout|scheduler)\/|^src\/_dashboard\.ts$/,
} as const;
type Heavy = keyof typeof HEAVY;

type Case = {
  args: string[];
  input?: string;
  /** A source file the command's own row runs: the proof that the trace saw the command run. */
  own: string;
  /** What of HEAVY it may load. */
  may?: Heavy[];
  /** The bundle of its own it runs from (src/_command-bundles.ts), if it has one. */
  bundle?: string;
  /** Chunks of the shared build it loads beside its bundle (what the bundle keeps apart). */
  shared?: boolean;
  /** Run word for word, with no test socket added (the line Claude Code runs). */
  exact?: boolean;
};

type Outputs = Record<string, { inputs: Record<string, unknown> }>;
/** Each output of the build, named from dist/, with its source files: the shared build's and
 * the executable's and each command bundle's (dist/commands/<name>/), each in its own metafile. */
const metafile = () => {
  const outputs: Outputs = {};
  const folders = [
    DIST,
    ...readdirSync(path.join(DIST, "commands")).map((name) => path.join(DIST, "commands", name)),
  ];
  for (const folder of folders) {
    const read = JSON.parse(readFileSync(path.join(folder, "metafile-esm.json"), "utf8")) as {
      outputs: Outputs;
    };
    for (const [output, facts] of Object.entries(read.outputs))
      outputs[`dist/${path.relative(DIST, path.join(folder, path.basename(output)))}`] = facts;
  }
  return { outputs };
};

const kit = musterKit("muster-import-graph-");
const team = kit.newTeam();
const env = { MUSTER_TEAM_DIR: team };
let outputs: ReturnType<typeof metafile>["outputs"];
let runs = 0;

/** The source files of every chunk of the CLI's build the command loaded. */
async function sourcesLoaded(args: string[], input?: string, exact?: boolean) {
  runs += 1;
  const trace = path.join(kit.scratch, `trace-${runs}`);
  const run = await kit.muster(args, {
    // Node's compile cache off, so a hot command imports its bundle's main.js (the loader hook sees
    // it) rather than running its script form, the same file turned into one function
    // (bundle-script.test.ts holds them together), which no loader hook sees.
    env: {
      ...env,
      NODE_OPTIONS: `--import=${TRACE}`,
      MUSTER_IMPORT_TRACE: trace,
      NODE_DISABLE_COMPILE_CACHE: "1",
    },
    input,
    exact,
  });
  const urls = readFileSync(trace, "utf8").split("\n").filter(Boolean);
  const chunks = urls
    .filter((url) => url.startsWith("file:"))
    .map((url) => fileURLToPath(url))
    .filter((file) => file.startsWith(`${DIST}${path.sep}`))
    .map((file) => `dist/${path.relative(DIST, file)}`);
  expect(chunks).toContain("dist/muster.js");
  return {
    run,
    chunks,
    sources: chunks.flatMap((chunk) => Object.keys(outputs[chunk]?.inputs ?? {})),
  };
}

const PRE_TOOL_USE = JSON.stringify({
  hook_event_name: "PreToolUse",
  tool_name: "Edit",
  tool_input: { file_path: "src/leased.ts", old_string: "a", new_string: "b" },
});

const CASES: Case[] = [
  { args: ["--help"], own: "src/_help.ts" },
  { args: ["status", "--json"], own: "src/_status.ts" },
  { args: ["roster", "--json"], own: "src/_status.ts", bundle: "team" },
  { args: ["agents", "--json"], own: "src/_agents.ts", bundle: "agents" },
  { args: ["status", "--line"], own: "src/_status-line.ts", bundle: "status-line" },
  {
    args: ["hook", "claude", "pre-tool-use"],
    input: PRE_TOOL_USE,
    own: "../mcp/src/_claude-leases.ts",
    bundle: "guard",
    exact: true,
  },
  // The same guard with anything more on its line (here the test's socket) is hook's to run.
  {
    args: ["hook", "claude", "pre-tool-use"],
    input: PRE_TOOL_USE,
    own: "../mcp/src/_claude-leases.ts",
    bundle: "hook",
  },
  {
    args: ["hook", "claude", "user-prompt-submit"],
    input: "{}",
    own: "../mcp/src/_claude-hook.ts",
    bundle: "hook",
  },
  { args: ["hook", "codex", "notify", "{}"], own: "../mcp/src/_codex-notify.ts", bundle: "hook" },
  { args: ["send", "peer", "hello", "--from", "writer", "--json"], own: "src/_send.ts" },
  { args: ["inbox", "--label", "peer", "--json"], own: "src/_mail.ts" },
  { args: ["lease", "--list", "--json"], own: "src/_leases.ts" },
  { args: ["guard", "--json"], own: "src/_guard.ts" },
  { args: ["board", "--json"], own: "src/_board.ts", may: ["the board command"] },
  { args: ["spawn", "--list", "--json"], own: "src/_stop.ts", may: ["spawn and stop"] },
  { args: ["heartbeat", "--id", "peer-1", "--json"], own: "src/_membership.ts" },
  { args: ["stop", "nobody", "--json"], own: "src/_stop.ts", may: ["spawn and stop"] },
  { args: ["prune", "--json"], own: "src/_maintenance.ts" },
  {
    args: ["nats", "config", "--member", "alice", "--out", "seeds", "--team", "t", "--json"],
    own: "src/_nats.ts",
    may: ["the NATS client", "smol-toml"],
  },
  {
    args: ["install", "codex", "--dry-run", "--json"],
    own: "src/_install.ts",
    may: ["the configuration editors", "smol-toml", "diff"],
  },
  {
    args: ["doctor", "--json"],
    own: "src/_maintenance.ts",
    may: ["the configuration editors", "smol-toml"],
  },
  {
    args: ["mcp", "--help"],
    own: "src/_mcp.ts",
    bundle: "mcp",
    shared: true,
    may: ["the MCP SDK", "zod", "the MCP server", "the configuration editors", "smol-toml"],
  },
];

beforeAll(async () => {
  outputs = metafile().outputs;
  // A team with a member holding a lease, so that the reads and the guard have something to read.
  const joined = await kit.muster(["join", "peer", "--id", "peer-1", "--json"], { env });
  expect(joined.status).toBe(0);
  const leased = await kit.muster(["lease", "src/**", "--id", "peer-1", "--json"], { env });
  expect(leased.status).toBe(0);
  // Two starts of muster, each allowed what a case is (the package's 30 s): Vitest's own 10 s for
  // a hook ended it on a loaded machine in test:long's replay, failing all 22 cases unrun.
}, 30_000);
afterAll(() => rmSync(kit.scratch, { recursive: true, force: true }));

// The commands run side by side, each in its own process: what one changes on the team (mail, a
// heartbeat, a prune) changes what another answers, not what it loads.
describe.concurrent("each command's import graph", () => {
  it.each(CASES)(
    "muster $args.0 $args.1 loads its own code and nothing heavy it does not run",
    async ({ args, input, own, may = [], bundle, shared, exact }) => {
      const { run, chunks, sources } = await sourcesLoaded(args, input, exact);
      expect(run.stderr).not.toMatch(/Error \[|at .*\(node:|bundle does not hold/);
      expect(sources).toContain(own);
      // A command with a bundle of its own loads that one file and the executable (its first
      // module, muster.js, and its start, start.js), nothing else.
      if (bundle && shared) expect(chunks).toContain(`dist/commands/${bundle}/main.js`);
      else if (bundle)
        expect(chunks.sort()).toEqual([
          `dist/commands/${bundle}/main.js`,
          "dist/muster.js",
          "dist/start.js",
        ]);
      else expect(chunks.some((chunk) => chunk.startsWith("dist/commands/"))).toBe(false);
      const pulled = Object.entries(HEAVY)
        .filter(([name]) => !may.includes(name as Heavy))
        .flatMap(([name, pattern]) =>
          sources.filter((source) => pattern.test(source)).map((source) => `${name}: ${source}`),
        );
      expect(pulled).toEqual([]);
    },
  );

  it("sees a heavy package when a command does load it (the check can fail)", async () => {
    const { sources } = await sourcesLoaded(["mcp", "--help"]);
    expect(sources.some((source) => HEAVY["the MCP SDK"].test(source))).toBe(true);
    expect(sources.some((source) => HEAVY.zod.test(source))).toBe(true);
  });
});
