// The one call per published package that `pnpm check:packages` runs from plain Node against the
// installed tarball. The public-surface check (check-exports.ts) counts these imports as uses.

/** One call per package, run from plain Node against the installed tarball. It must not throw. */
export const SMOKE_CALLS: Record<string, string> = {
  "@muster/core": `import { decideDelivery } from "@muster/core";
    const delivery = decideDelivery({ id: "m1", urgent: true }, { armed: true, wake: true }, [], 0);
    if (delivery.action !== "deliver" || !delivery.wake) throw new Error(JSON.stringify(delivery));`,
  "@muster/roster": `import { validateLabel } from "@muster/roster";
    if (validateLabel("alice").ok !== true || validateLabel("../x").ok !== false) throw new Error("validateLabel");`,
  "@muster/tmux": `import { parseTmuxEnv } from "@muster/tmux";
    const env = parseTmuxEnv({ TMUX: "/tmp/tmux-0/default,123,4", TMUX_PANE: "%7" });
    if (!env || env.server.socket !== "/tmp/tmux-0/default" || env.pane !== "%7") throw new Error(JSON.stringify(env));`,
  "@muster/reconciler": `import { discoverAgents, BUILTIN_ENGINES } from "@muster/reconciler";
    const found = discoverAgents({ panes: [], processes: [], exclude: [] }, BUILTIN_ENGINES);
    if (found.agents.length !== 0) throw new Error("discoverAgents");`,
  "@muster/node": `import { readProcessTable } from "@muster/node";
    const table = await readProcessTable();
    if (!table.ok || !table.processes.some((row) => row.pid === process.pid)) throw new Error("readProcessTable");`,
  "@muster/nats": `import { normaliseOrigin, teamName } from "@muster/nats";
    if (normaliseOrigin("git@github.com:a/b.git") !== "github.com/a/b") throw new Error("normaliseOrigin");
    const named = teamName({ origin: "https://github.com/a/b" });
    if (!named.ok || !/^github-com-a-b-[0-9a-f]{12}$/.test(named.id)) throw new Error(JSON.stringify(named));`,
  "@muster/cli": `import { execFileSync } from "node:child_process";
    const out = execFileSync("node_modules/.bin/muster", ["--help"], { encoding: "utf8" });
    if (!out.includes("muster")) throw new Error(out);`,
  "@muster/mcp": `import { createMusterServer, threadOf } from "@muster/mcp";
    if (typeof createMusterServer({ env: {} }).connect !== "function") throw new Error("createMusterServer");
    if (!("kind" in threadOf({ threadId: "../x" }))) throw new Error("threadOf");
    const { installCodex } = await import("@muster/mcp/engines");
    if (!installCodex(undefined, { command: "node", args: ["mcp"] }).ok) throw new Error("installCodex");`,
  "@muster/pi-extension": `import extension from "@muster/pi-extension";
    if (typeof extension !== "function") throw new Error("the default export is not an extension factory");`,
};
