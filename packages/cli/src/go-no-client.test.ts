// `muster go` and the dashboard's Enter where no terminal shows the tmux server (a detached
// session, a client that went away): the pane is open, so the person is told that no client is
// attached and the command that attaches one, never that the pane may be closed. A real private
// tmux server with no client; go runs inside one of its panes (as the dashboard does) and outside.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { eventually, startPrivateTmux } from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { afterAll, expect, it } from "vitest";
import { MUSTER, musterKit } from "../test/run.js";

const { scratch, newTeam, muster } = musterKit("muster-go-client-");
const team = newTeam();
const server = startPrivateTmux({ env: { HOME: scratch, MUSTER_TEAM_DIR: team }, cwd: scratch });
afterAll(() => server.kill());

async function bobSeated() {
  const pane = server.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "sleep 600").trim();
  const [session, panePid] = server
    .tmux("display-message", "-p", "-t", pane, "#{session_id} #{pane_pid}")
    .trim()
    .split(" ");
  if (!session || !panePid) throw new Error(`no session or pid for ${pane}`);
  const roster = await openTestTeam(team);
  await roster.join({
    id: "b1",
    label: "bob",
    agent: "pi",
    // Bob's process is the one in his pane: go proves the seat before it moves a client there.
    pid: Number(panePid),
    watching: { armed: true, wake: false },
    liveness: "heartbeat",
    seat: { server: server.socket, session, pane },
  });
  return { pane, session };
}

const attach = (session: string) => `tmux -S ${server.socket} attach -t '${session}'`;

it("from a pane of the detached server (the dashboard's place): no client is attached, and how to attach", async () => {
  const { session } = await bobSeated();
  const out = path.join(scratch, "go.json");
  server.tmux(
    "new-window",
    "-d",
    `${process.execPath} ${MUSTER} go bob --json > ${out} 2> ${out}.err; touch ${out}.done`,
  );
  await eventually(() => existsSync(`${out}.done`), Boolean, "go to finish in its pane");
  const document = JSON.parse(readFileSync(out, "utf8"));
  expect(document).toMatchObject({
    ok: false,
    reason: "no-client",
    error: expect.stringContaining(`no client is attached to the tmux server ${server.socket}`),
    fix: expect.stringContaining(attach(session)),
  });
  expect(document.error).not.toMatch(/still open|closed/);
  expect(readFileSync(`${out}.err`, "utf8").trim().split("\n")).toHaveLength(1);
});

it("from outside tmux: the same words", async () => {
  const { session } = await bobSeated();
  const run = await muster(["go", "bob", "-L", server.name], { env: { MUSTER_TEAM_DIR: team } });
  expect(run.status).toBe(1);
  expect(run.stderr).toContain(`no client is attached to the tmux server ${server.socket}`);
  expect(run.stderr).toContain(attach(session));
});
