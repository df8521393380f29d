// `muster join` taking over a label from a SIGKILLed holder: the dead holder's unread mail comes
// along, and the join says how much (in words, and in --json). The team around the join (alice,
// the holder, the mail waiting) is made in this process; the joins and reads run on the CLI.
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { processStart } from "@muster/node";
import { openTestTeam } from "@muster/test-team";
import { afterAll, expect, it } from "vitest";
import { joinedTeam, musterKit } from "../test/run.ts";

const { scratch, newTeam, muster } = musterKit("muster-takeover-");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it("join takes over a dead holder's label: 2 unread messages forwarded, said so, marked so", async () => {
  const dir = newTeam();
  const env = { MUSTER_TEAM_DIR: dir };
  await joinedTeam(dir, { alice: "a1" });
  const roster = await openTestTeam(dir);
  const holder = spawn("sleep", ["30"], { stdio: "ignore" });
  await roster.join({
    id: "holder",
    label: "lead",
    agent: "pi",
    pid: holder.pid!,
    pidStart: processStart(holder.pid!),
    watching: { armed: true, wake: false },
    liveness: "process",
  });
  for (const body of ["one", "two"])
    expect(await roster.send({ from: "a1", to: "lead", body })).toMatchObject({ ok: true });
  holder.kill("SIGKILL");
  await new Promise((resolve) => holder.once("exit", resolve));

  const joined = await muster(["join", "lead", "--id", "n1"], { env });
  expect(joined.status).toBe(0);
  expect(joined.stdout).toContain(
    'Took over "lead" from a dead session; 2 unread messages forwarded.',
  );
  const inbox = JSON.parse((await muster(["inbox", "--id", "n1", "--json"], { env })).stdout);
  expect(
    inbox.messages.map((message: { body: string; forwardedFrom: unknown }) => [
      message.body,
      message.forwardedFrom,
    ]),
  ).toEqual([
    ["one", { id: "holder", label: "lead" }],
    ["two", { id: "holder", label: "lead" }],
  ]);
  // A join that takes nothing over says nothing of it; --json says null.
  const again = await muster(["join", "bob", "--id", "b1", "--json"], { env });
  expect(JSON.parse(again.stdout)).toMatchObject({ label: "bob", took: null });
});

it("send --wait=ack sees the read of mail forwarded to the label's new holder", async () => {
  const dir = newTeam();
  const env = { MUSTER_TEAM_DIR: dir };
  await joinedTeam(dir, { alice: "a1" });
  const roster = await openTestTeam(dir);
  const holder = spawn("sleep", ["60"], { stdio: "ignore" });
  await roster.join({
    id: "holder",
    label: "lead",
    agent: "pi",
    pid: holder.pid!,
    pidStart: processStart(holder.pid!),
    watching: { armed: true, wake: false },
    liveness: "process",
  });
  const waiting = muster(
    ["send", "lead", "please review", "--id", "a1", "--wait=ack", "--timeout", "30s", "--json"],
    { env },
  );
  // Written into the holder's mailbox, then the holder dies and a new one takes the label.
  for (let tries = 0; tries < 300; tries += 1) {
    if ((await roster.waiting("holder")).count > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  holder.kill("SIGKILL");
  await new Promise((resolve) => holder.once("exit", resolve));
  expect((await muster(["join", "lead", "--id", "n1"], { env })).status).toBe(0);
  expect((await muster(["inbox", "--id", "n1"], { env })).stdout).toContain("please review");
  const sent = await waiting;
  expect(sent.status).toBe(0);
  expect(JSON.parse(sent.stdout).wait).toMatchObject({
    goal: "acknowledged",
    done: true,
    recipients: [{ label: "lead", reached: "acknowledged", met: true, forwardedTo: "n1" }],
  });
}, 60_000);
