// Two `muster up` at once while the tmux server runs (and the team has no window yet) make one team
// window, not two of one name: each looks for the window, and both may find none and make one, so
// the first made (the lowest window id) is the team's and the other closes its own. A `tmux` on
// PATH that holds each up at the team window's listing until both are there (the real tmux after
// it) makes the two look at the same time on every run. The built binary, real pi (faux model), a private server.
// Its real pi starts are `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { LONG_TESTS } from "@muster/test-support";
import { afterAll, expect, it } from "vitest";
import { PI_ARGS, upKit } from "../test/up-kit.js";

const kit = upKit("muster-up-race-");
afterAll(() => kit.close());

it.skipIf(!LONG_TESTS)(
  "two ups at once with the server running make one team window, each member started once",
  async () => {
    // A barrier at the team window's listing: each up waits there (10 s at most) until both are.
    const slowTmux = path.join(kit.bin, "tmux");
    writeFileSync(
      slowTmux,
      `#!/bin/sh
case "$*" in *@muster-placeholder*)
  touch "${kit.home}/at-listing.$PPID"
  for _ in $(seq 100); do
    [ "$(ls "${kit.home}" | grep -c '^at-listing')" -ge 2 ] && break
    sleep 0.1
  done ;;
esac
exec /usr/bin/tmux "$@"
`,
    );
    chmodSync(slowTmux, 0o755);
    kit.tmux("new-session", "-d", "-s", "work", "-x", "200", "-y", "50");
    kit.declare(`[[member]]\nlabel = "alice"\nengine = "pi"\n${PI_ARGS}\n`);
    const runs = await Promise.all([kit.muster(["up", "--json"]), kit.muster(["up", "--json"])]);
    for (const run of runs) expect(run.status, run.stderr).toBe(0);
    const answers = runs.map((run) => JSON.parse(run.stdout));
    const windows = kit.tmux("list-windows", "-a", "-F", "#{window_name} #{window_id}");
    const named = windows
      .trim()
      .split("\n")
      .filter((line) => line.startsWith("repo "));
    expect(named).toHaveLength(1);
    // Both ups opened into that one window.
    for (const answer of answers) expect(`repo ${answer.window.window}`).toBe(named[0]);
    const outcomes = answers.map((answer) => answer.members[0].outcome).sort();
    expect(outcomes).toContain("fresh");
    expect(outcomes.filter((outcome: string) => outcome === "fresh")).toHaveLength(1);
    // alice alone in it: the placeholders gone.
    const panes = kit.tmux("list-panes", "-t", "repo", "-F", "#{pane_id} #{@muster-placeholder}");
    expect(panes.trim().split("\n")).toHaveLength(1);
    expect(panes).not.toContain(" 1");
  },
  90_000,
);
