// `muster up` when every declared member is already live starts nothing, and so leaves no window
// behind: the team's window holds a placeholder only until a member sits in it, and an up that
// opened no one closes the placeholder it made. The built binary, a private server, no engine run.
import { afterAll, expect, it } from "vitest";
import { PI_ARGS, upKit } from "../test/up-kit.js";

const kit = upKit("muster-up-all-live-");
afterAll(() => kit.close());

it("an up with every member already live leaves no placeholder window", async () => {
  kit.tmux("new-session", "-d", "-s", "work", "-x", "200", "-y", "50");
  kit.declare(`[[member]]\nlabel = "alice"\nengine = "pi"\n${PI_ARGS}\n`);
  const joined = await kit.muster(["join", "alice", "--id", "alice-id", "--json"]);
  expect(joined.status, joined.stderr).toBe(0);
  const up = await kit.muster(["up", "--json"]);
  expect(up.status, up.stderr).toBe(0);
  expect(JSON.parse(up.stdout).members).toMatchObject([{ label: "alice", outcome: "live" }]);
  const panes = kit.tmux("list-panes", "-a", "-F", "#{window_name} #{pane_start_command}");
  expect(panes).not.toContain("tail -f /dev/null");
  expect(kit.tmux("list-windows", "-a", "-F", "#{window_name}").trim().split("\n")).toHaveLength(1);
});
