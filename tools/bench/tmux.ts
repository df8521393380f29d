// tmux figures: parsing an inventory of 1,000 panes against a bare split of the same text, and one
// real `list-panes -a` on a private server with 200 panes against a bare `tmux -V` spawn.
import { execFileSync } from "node:child_process";
import { runGuarded, startPrivateTmux } from "@muster/test-support";
import { INVENTORY_FORMAT, listPanes, parseInventory } from "@muster/tmux";
import { type BenchRow, compare } from "../src/bench-kit.ts";

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
  const server = startPrivateTmux({ command: "sleep 3600" });
  try {
    addWindows(server, 999);
    const stdout = execFileSync(
      "tmux",
      ["-L", server.name, "-u", "list-panes", "-a", "-F", INVENTORY_FORMAT],
      {
        env: server.env,
        encoding: "utf8",
      },
    );
    const parse = await compare(
      () => {
        if (parseInventory(stdout).panes.length !== 1000) throw new Error("lost panes");
      },
      () => stdout.split("\n").map((line) => line.split("\t")),
      { runs: 51 },
    );
    server.tmux("kill-server");
    const small = startPrivateTmux({ command: "sleep 3600" });
    try {
      addWindows(small, 199);
      const listing = await compare(
        async () => {
          const listed = await listPanes(small.run, { name: small.name });
          if (!listed.ok || listed.inventory.panes.length !== 200) throw new Error("lost panes");
        },
        () => runGuarded(["-L", small.name, "-V"]),
        { runs: 21 },
      );
      return [
        {
          name: "tmux: parse an inventory of 1,000 panes",
          medianMs: parse.figureMs,
          reference: { name: "bare split of the same text", medianMs: parse.referenceMs },
        },
        {
          name: "tmux: one real list-panes -a, 200 panes",
          medianMs: listing.figureMs,
          reference: { name: "bare tmux -V spawn", medianMs: listing.referenceMs },
        },
      ];
    } finally {
      small.kill();
    }
  } finally {
    server.kill();
  }
}
