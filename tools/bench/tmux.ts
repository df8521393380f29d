// tmux figures: parsing an inventory of 1,000 panes against a bare split of the same text, and one
// real inventory call on a private server with 200 panes (escaped free text, parsed) against a
// bare spawn of `list-panes -a` with the same fields unescaped.
import { execFileSync } from "node:child_process";
import { runGuarded, startPrivateTmux } from "@muster/test-support";
import { inventoryArgs, listPanes, parseInventory } from "@muster/tmux";
import { type BenchRow, compare } from "../src/bench-kit.ts";

/** The inventory's fields with no escaping, for the reference. */
const UNESCAPED = [
  "pid",
  "socket_path",
  "pane_id",
  "pane_pid",
  "session_id",
  "window_id",
  "window_index",
  "pane_index",
  "pane_dead",
  "pane_tty",
  "pane_current_command",
  "session_name",
  "pane_current_path",
  "pane_title",
]
  .map((field) => `#{${field}}`)
  .join("\t");

/** Grow a private server to `count` panes, a window each, in batches of chained commands. */
export function addWindows(
  server: ReturnType<typeof startPrivateTmux>,
  count: number,
  command = "sleep 3600",
) {
  for (let made = 0; made < count; made += 50) {
    const batch = Math.min(50, count - made);
    const args = Array.from({ length: batch }, () => [
      "new-window",
      "-d",
      "-t",
      "main",
      command,
      ";",
    ]).flat();
    server.tmux(...args.slice(0, -1));
  }
}

export async function run(): Promise<BenchRow[]> {
  const server = startPrivateTmux({ for: "bench", command: "sleep 3600" });
  try {
    addWindows(server, 999);
    const stdout = execFileSync("tmux", inventoryArgs({ name: server.name }), {
      env: server.env,
      encoding: "utf8",
    });
    const parse = await compare(
      () => {
        if (parseInventory(stdout).panes.length !== 1000) throw new Error("lost panes");
      },
      () => stdout.split("\n").map((line) => line.split("\t")),
      { runs: 51 },
    );
    server.tmux("kill-server");
    const small = startPrivateTmux({ for: "bench", command: "sleep 3600" });
    try {
      addWindows(small, 199);
      const listing = await compare(
        async () => {
          const listed = await listPanes(small.run, { name: small.name });
          if (!listed.ok || listed.inventory.panes.length !== 200) throw new Error("lost panes");
        },
        // The same panes and fields, unescaped, as a bare spawn: what escaping and parsing cost.
        () => runGuarded(["-L", small.name, "-u", "list-panes", "-a", "-F", UNESCAPED]),
        { runs: 21 },
      );
      return [
        {
          name: "tmux: parse an inventory of 1,000 panes",
          medianMs: parse.figureMs,
          reference: { name: "bare split of the same text", medianMs: parse.referenceMs },
          target: { text: "< 10 ms", met: parse.figureMs < 10 },
        },
        {
          name: "tmux: one real inventory call, 200 panes",
          medianMs: listing.figureMs,
          reference: { name: "bare list-panes -a, unescaped", medianMs: listing.referenceMs },
          target: { text: "≤ 1.5× unescaped", met: listing.figureMs <= 1.5 * listing.referenceMs },
        },
      ];
    } finally {
      small.kill();
    }
  } finally {
    server.kill();
  }
}
