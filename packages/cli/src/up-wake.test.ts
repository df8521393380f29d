// `wake = false` in a `[[member]]` of muster.toml, end to end: `muster up` (the built binary, real
// pi with the faux model, offline, a throwaway home, a private tmux server) brings a declared member
// with `wake = false` up quiet, and one that leaves it out woken by its mail (the default). One
// `send --wait` to both says so as the sender sees it: the woken member is shown the mail (a turn
// started for it), the quiet one has it in its mailbox only, for its next turn. Real pi starts:
// `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { processStart } from "@muster/node";
import { LONG_TESTS } from "@muster/test-support";
import { afterAll, expect, it } from "vitest";
import { PI_ARGS, upKit } from "../test/up-kit.js";

const kit = upKit("muster-up-wake-");

/** The team's member records: label → its id, pid and how its mail reaches it. */
function records(): Record<
  string,
  { id: string; pid: number; pidStart: string; watching: unknown }
> {
  const folder = path.join(kit.team, "sessions");
  const found: Record<string, { id: string; pid: number; pidStart: string; watching: unknown }> =
    {};
  for (const name of existsSync(folder) ? readdirSync(folder) : []) {
    if (!name.endsWith(".json") || name.startsWith(".")) continue;
    const record = JSON.parse(readFileSync(path.join(folder, name), "utf8"));
    if (record.label) found[record.label] = record;
  }
  return found;
}

afterAll(() => {
  // Each pi up started, ended by its pid while it is still that process (only theirs: a send's
  // record is this process's); then the private server.
  const started = records();
  for (const label of ["quinn", "wes"]) {
    const record = started[label];
    if (!record || record.pid === process.pid || processStart(record.pid) !== record.pidStart)
      continue;
    try {
      process.kill(record.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  kit.close();
});

it.skipIf(!LONG_TESTS)(
  "a declared member with wake = false comes up quiet; one without it is woken by its mail",
  async () => {
    kit.declare(
      `[[member]]\nlabel = "quinn"\nengine = "pi"\nwake = false\n${PI_ARGS}\n\n` +
        `[[member]]\nlabel = "wes"\nengine = "pi"\n${PI_ARGS}\n`,
    );
    const up = await kit.muster(["up", "--json"]);
    expect(up.status, up.stderr).toBe(0);
    const members = JSON.parse(up.stdout).members as { label: string; id: string }[];
    expect(members).toMatchObject([
      { label: "quinn", outcome: "fresh" },
      { label: "wes", outcome: "fresh" },
    ]);
    // Each joined as up asked its pane to: quinn's mail armed but never waking it, wes's waking it.
    const joined = records();
    expect(joined.quinn?.watching).toEqual({ armed: true, wake: false });
    expect(joined.wes?.watching).toEqual({ armed: true, wake: true });
    // One mail to both, waited on until shown: wes is woken for it, quinn keeps it for its next turn.
    const sent = await kit.muster([
      "send",
      "quinn,wes",
      "the parser review is ready",
      "--wait",
      "--timeout",
      "10s",
      "--json",
    ]);
    // Not all shown in time: a refusal (status 1) whose document says where each stands.
    expect(sent.status, sent.stderr).toBe(1);
    const answer = JSON.parse(sent.stdout);
    expect(answer).toMatchObject({ ok: false, reason: "not-reached" });
    const reach = Object.fromEntries(
      answer.recipients.map((to: { label: string; reach: string }) => [to.label, to.reach]),
    );
    expect(reach).toEqual({ quinn: "next-turn", wes: "wakes" });
    const stood = Object.fromEntries(
      answer.wait.recipients.map((to: { label: string; reached: string; met: boolean }) => [
        to.label,
        { reached: to.reached, met: to.met },
      ]),
    );
    expect(stood.wes).toEqual({
      reached: expect.stringMatching(/^(delivered|acknowledged)$/),
      met: true,
    });
    expect(stood.quinn).toEqual({ reached: "written", met: false });
  },
  120_000,
);
