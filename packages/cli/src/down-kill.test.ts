// A `muster down` killed (SIGKILL) at any point leaves nothing the next `muster up` cannot finish,
// and the members `muster spawn --count N` started by hand come back with `muster up <label>` as
// the declared one does. All from outside tmux, naming the server by its socket (`-S`): `up`
// starts it. The built binary, real pi (faux model, offline), a private server. Whole real pi
// sessions taken down and brought back, round after round: `pnpm test:long` (MUSTER_LONG_TESTS).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eventually, LONG_TESTS } from "@muster/test-support";
import { afterAll, expect, it } from "vitest";
import { PI_ARGS, upKit } from "../test/up-kit.js";

const kit = upKit("muster-down-kill-", {}, { socket: true });
afterAll(() => kit.close());

/** The team's members as their records say: label → member id. */
function members(): Record<string, string> {
  const folder = path.join(kit.team, "sessions");
  const found: Record<string, string> = {};
  for (const name of existsSync(folder) ? readdirSync(folder) : []) {
    if (!name.endsWith(".json") || name.startsWith(".")) continue;
    const record = JSON.parse(readFileSync(path.join(folder, name), "utf8"));
    if (record.label) found[record.label] = record.id;
  }
  return found;
}

const spawnRecord = (label: string) =>
  JSON.parse(readFileSync(path.join(kit.team, "spawned", `${label}.json`), "utf8"));

const onTeam = (labels: readonly string[]) =>
  eventually(
    members,
    (found) => labels.every((label) => found[label] !== undefined),
    `${labels.join(", ")} on the team`,
    { attempts: 300, intervalMs: 100 },
  );

const panes = () =>
  kit
    .tmux("list-panes", "-a", "-F", "#{pane_id} #{@muster-placeholder}")
    .trim()
    .split("\n")
    .filter(Boolean);

it.skipIf(!LONG_TESTS)(
  "spawn --count 2 and a declared member come back with up <label>; after a down SIGKILLed at any point, one up brings each back (a member still quitting too)",
  async () => {
    kit.declare(`[[member]]\nlabel = "alice"\nengine = "pi"\n${PI_ARGS}\n`);
    // From outside tmux, no server running: up starts one on the socket it is given.
    const up = await kit.muster(["up", "--json"]);
    expect(up.status, up.stderr).toBe(0);
    expect(JSON.parse(up.stdout).window).toMatchObject({ started: true });
    expect(existsSync(kit.serverFlag[1]!)).toBe(true);

    // Two started by hand in one command, each with the engine session muster named for it.
    const spawned = await kit.muster(
      ["spawn", "pi", "--count", "2", "--window", "--json", "--"].concat(
        "--provider faux --model faux-1 --offline".split(" "),
      ),
    );
    expect(spawned.status, spawned.stderr).toBe(0);
    const started = JSON.parse(spawned.stdout).spawned as { label: string; state: string }[];
    expect(started).toHaveLength(2);
    expect(new Set(started.map((each) => each.label)).size).toBe(2);
    for (const each of started) expect(each.state).toBe("joined");
    // pi's session id, as muster named it (UUIDv7), on each one's spawn record.
    const sessions = started.map((each) => spawnRecord(each.label).session as string);
    for (const session of sessions) expect(session).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    // And its model choice, so that up starts it on the same model (and asks pi about that one).
    const model = "--provider faux --model faux-1 --offline".split(" ");
    for (const each of started) expect(spawnRecord(each.label).args).toEqual(model);
    const labels = ["alice", ...started.map((each) => each.label)];
    const first = await onTeam(labels);

    // One spawned by hand, taken down, comes back by its label alone: the same session and id.
    const hand = { label: started[0]!.label, session: sessions[0]! };
    expect((await kit.muster(["down", hand.label])).status).toBe(0);
    const back = await kit.muster(["up", hand.label, "--json"]);
    expect(back.status, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout).members).toMatchObject([
      { label: hand.label, session: hand.session, id: first[hand.label] },
    ]);
    expect(spawnRecord(hand.label).args).toEqual(model);

    // A whole down, timed, and the team back: the kills below fall across that time.
    const began = Date.now();
    const down = await kit.muster(["down"]);
    const whole = Date.now() - began;
    expect(down.status, down.stderr).toBe(0);
    // Each line says what it kept for the next up.
    expect(down.stdout).toMatch(
      /^alice: down \(it quit\); kept its session \S+, its cards and mail$/m,
    );
    expect((await kit.muster(["up", ...labels])).status).toBe(0);
    await onTeam(labels);
    // down SIGKILLed early (reading, asking each to quit), mid-wait, and late (closing, recording).
    for (const share of [0.2, 0.4, 0.6, 0.8]) {
      const after = Math.round(whole * share);
      const down = kit.spawnMuster(["down"]);
      await new Promise((resolve) => setTimeout(resolve, after));
      down.kill("SIGKILL");
      // The next up finishes what the killed down left, alone: a member still quitting at the
      // down's request (off the roster already, its pane not yet closed) is waited for and
      // brought back, never called live and then gone.
      const again = await kit.muster(["up", ...labels, "--json"]);
      expect(again.status, `${again.stderr} (down killed after ${after} ms)`).toBe(0);
      const answer = JSON.parse(again.stdout).members as { label: string; outcome: string }[];
      expect(answer.map((member) => member.label)).toEqual(labels);
      for (const member of answer) expect(["live", "resumed", "fresh"]).toContain(member.outcome);
      // Each back under the member id it had, once: one pane each, no placeholder left.
      const now = await eventually(
        members,
        (found) => labels.every((label) => found[label] === first[label]),
        `each member back under its id (down killed after ${after} ms)`,
        { attempts: 300, intervalMs: 100 },
      );
      expect(now).toMatchObject(first);
      // And it stays: a member the up called live was not one still on its way out.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(members(), `down killed after ${after} ms`).toMatchObject(first);
      const open = panes();
      expect(open, `down killed after ${after} ms`).toHaveLength(labels.length);
      expect(open.join("\n")).not.toMatch(/ 1$/m);
    }
  },
  240_000,
);

it.skipIf(!LONG_TESTS)(
  "an up killed after it made a member's worktree, before its record: the next up brings it up there, untouched",
  async () => {
    kit.declare(`[[member]]\nlabel = "wendy"\nengine = "pi"\nworktree = true\n${PI_ARGS}\n`);
    // What the killed up left: the worktree git made (muster/wendy beside the repository), with
    // work in it, and no spawn record naming it.
    const worktree = path.join(path.dirname(kit.repo), "repo-wendy");
    execFileSync("git", ["-C", kit.repo, "worktree", "add", "-q", "-b", "muster/wendy", worktree]);
    writeFileSync(path.join(worktree, "draft.txt"), "not committed\n");
    const head = execFileSync("git", ["-C", worktree, "rev-parse", "HEAD"], { encoding: "utf8" });
    const up = await kit.muster(["up", "wendy", "--json"]);
    expect(up.status, up.stderr).toBe(0);
    const [member] = JSON.parse(up.stdout).members;
    expect(member).toMatchObject({ label: "wendy", outcome: "fresh" });
    const cwd = kit.tmux("display-message", "-p", "-t", member.pane, "#{pane_current_path}");
    expect(cwd.trim()).toBe(worktree);
    expect(spawnRecord("wendy").worktree).toEqual({ path: worktree, branch: "muster/wendy" });
    expect(readFileSync(path.join(worktree, "draft.txt"), "utf8")).toBe("not committed\n");
    expect(execFileSync("git", ["-C", worktree, "rev-parse", "HEAD"], { encoding: "utf8" })).toBe(
      head,
    );
    // --fresh: a new engine session, in the same worktree.
    expect((await kit.muster(["down", "wendy"])).status).toBe(0);
    const fresh = await kit.muster(["up", "wendy", "--fresh", "--json"]);
    expect(fresh.status, fresh.stderr).toBe(0);
    const [again] = JSON.parse(fresh.stdout).members;
    expect(again).toMatchObject({ label: "wendy", outcome: "fresh" });
    expect(again.session).not.toBe(member.session);
    expect(spawnRecord("wendy")).toMatchObject({ session: again.session, cwd: worktree });
  },
  90_000,
);
