// The loop brake with three real engines, offline, each in its own HOME on one team folder: pi
// 1.6.0 (RPC, the faux model, MUSTER_MAIL=wakes), Codex 0.171.0 and Claude Code 2.1.332 (TUIs on
// one private tmux server, scripted models; mixed-team.ts). Each, woken by mail, answers the
// conversation's first mail with team_send and reply_to, round pi → Codex → Claude Code → pi
// (loop-ring.ts), so the replies are one conversation across all three, while each pair exchanges
// only a third of it (answers to answers would meet the hop limit first, at the 6th). The first
// CONVERSATION_TURNS mails wake their recipient through its own door; the next one arrives and
// wakes no one, its receipt says why, the lead (a fourth member) gets one mail and the person one
// message on their attached tmux client. A mail Codex sends in a turn the person starts, answering
// the braked one, is braked too and tells no one again. Minutes of real engines: test:long only.
import path from "node:path";
import { BRAKE_WORDS } from "@muster/core";
import { attachClient, eventually, LONG_TESTS, userTexts } from "@muster/test-support";
import { joinAsThisProcess } from "@muster/test-team";
import { afterAll, describe, expect, it } from "vitest";
import {
  BRAKED,
  BY_PERSON,
  byPerson,
  LEAD,
  type RingMail,
  ring,
  ringScripts,
  sendArgs,
} from "../test/loop-ring.ts";
import { ENGINES, gate, LABEL } from "../test/mixed-route.ts";
import {
  type MixedTeam,
  nextPiTurn,
  type Probes,
  probes,
  startMixedTeam,
  turnFor,
} from "../test/mixed-team.ts";

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse())
    await Promise.resolve()
      .then(cleanup)
      .catch(() => undefined);
});

const DOOR = { pi: "pi", codex: "codex-queue", claude: "claude-rewake" } as const;
/** How long a braked mail is watched for a turn it must not start (a wake takes ~0.1-10 s). */
const NO_WAKE_MS = 15_000;

type Ids = Record<(typeof ENGINES)[number], string>;

/** Every engine on the team, idle, woken by mail; Claude Code watching its mailbox. */
async function joined(team: MixedTeam, probe: Probes): Promise<Ids> {
  await team.codex.start();
  await team.codex.submit("join the team");
  await eventually(
    probe.mailbox,
    (log) => log.includes("FileChanged: watching 2 paths"),
    "Claude Code to watch its mailbox",
    { attempts: 600 },
  ).catch(probe.explain);
  const ids = {} as Ids;
  for (const engine of ENGINES) {
    const record = (await probe.idle(LABEL[engine]))!;
    expect(record, engine).toMatchObject({ agent: engine, watching: { wake: true } });
    ids[engine] = record.id;
  }
  return ids;
}

/** Let `mail` go once the others are idle, answering `answered`; the message as delivered. */
async function send(team: MixedTeam, probe: Probes, ids: Ids, mail: RingMail, answered?: string) {
  for (const engine of ENGINES) if (engine !== mail.from) await probe.idle(LABEL[engine]);
  // A moment for the recipient's engine to settle after its turn (Claude Code's Stop hook).
  await new Promise((resolve) => setTimeout(resolve, 300));
  const reply = answered === undefined ? {} : { reply_to: answered };
  Object.assign(sendArgs.get(mail.number)!, reply);
  if (mail.number === 1) await team.pi.prompt("start the ring");
  else team.open(mail.number, reply);
  const message = await probe.received(ids[mail.to], mail.body, `ring #${mail.number}`);
  expect(message.from.id, `ring #${mail.number}'s sender`).toBe(ids[mail.from]);
  return message;
}

/** The model requests `engine` made for `body`: a turn it started for that mail. */
function turnsFor(team: MixedTeam, engine: "codex" | "claude", body: string): number {
  if (engine === "codex")
    return team.codex.model.requests.filter((request) =>
      userTexts(request).some((text) => text.includes(body)),
    ).length;
  return team.claude.model.requests.filter(
    (request) => request.scripted && JSON.stringify(request.body).includes(body),
  ).length;
}

/** A braked mail: arrived, its receipt held by the brake, and no turn started for it. */
async function expectBraked(team: MixedTeam, probe: Probes, mail: RingMail, id: string) {
  const receipt = await eventually(
    () => probe.roster.receipt(id),
    (read) => read.ok && read.recipients[0]?.wakeHeld !== undefined,
    `ring #${mail.number}'s receipt to say why it woke no one`,
  ).catch(probe.explain);
  expect(receipt.ok && receipt.recipients[0]?.wakeHeld).toMatchObject({
    how: "loop-brake",
    words: BRAKE_WORDS,
  });
  expect(receipt.ok && receipt.recipients[0]?.phases.written).toBeTruthy();
  await new Promise((resolve) => setTimeout(resolve, NO_WAKE_MS));
  expect(turnsFor(team, mail.to as "codex" | "claude", mail.body), `ring #${mail.number}`).toBe(0);
  const after = await probe.roster.receipt(id);
  expect(after.ok && after.recipients[0]?.phases.woke).toBeUndefined();
}

/** The lead's mail from muster, and the person's client's messages, about the brake. */
async function told(team: MixedTeam, probe: Probes, lead: string) {
  const history = await probe.roster.history(lead);
  const mails = history.ok
    ? history.messages.filter((message) => message.from.label === "muster")
    : [];
  const client = team.codex.server.tmux("list-clients", "-F", "#{client_tty}").trim();
  const shown = team.codex.server
    .tmux("show-messages", "-t", client)
    .split("\n")
    // The client's message log (it logs the commands run too: only what it showed counts).
    .filter((line) => / message: muster: Loop brake: /.test(line));
  return { mails: mails.map((message) => message.body), shown };
}

describe.skipIf(!LONG_TESTS)("the loop brake across pi, Codex and Claude Code", () => {
  it("replies bounced pi → Codex → Claude Code past the budget: mail arrives, wakes no one; lead and person told once", async () => {
    const team = await startMixedTeam(
      Array.from({ length: BY_PERSON }, () => gate()),
      ringScripts,
    );
    cleanups.push(team.close);
    const probe = probes(team);
    const lead = await joinAsThisProcess(probe.roster, LEAD);
    const client = await attachClient(team.codex.server, path.join(team.codex.home, "screen"));
    cleanups.push(client.close);
    const ids = await joined(team, probe);

    let answered: string | undefined;
    const woken: string[] = [];
    for (const mail of ring.slice(0, BRAKED - 1)) {
      const piTurn = nextPiTurn(team.pi);
      const message = await send(team, probe, ids, mail, answered);
      await turnFor(team, probe, mail.to, mail.body, piTurn);
      woken.push(await probe.wokeBy(message.id, `ring #${mail.number}`));
      // Each answers the conversation's first mail: a chain of answers to answers would stop
      // waking at the hop limit (core's maxHops: the 6th mail) before the budget could.
      answered ??= message.id;
    }
    // Each of the budget's mails woke its recipient by that engine's own door.
    expect(woken).toEqual(ring.slice(0, BRAKED - 1).map((mail) => DOOR[mail.to]));

    const braked = ring[BRAKED - 1]!;
    const first = await send(team, probe, ids, braked, answered);
    await expectBraked(team, probe, braked, first.id);
    const once = await eventually(
      () => told(team, probe, lead),
      (seen) => seen.mails.length > 0 && seen.shown.length > 0,
      "the lead and the person to be told of the brake",
      { attempts: 200 },
    ).catch(probe.explain);
    expect(once.mails).toHaveLength(1);
    expect(once.mails[0]).toMatch(/^Loop brake: a conversation among /);
    for (const engine of ["planner", "coder"]) expect(once.mails[0]).toContain(engine);
    expect(once.shown).toHaveLength(1);

    // The person starts a Codex turn; Codex answers the braked mail: braked too, no one told again.
    Object.assign(sendArgs.get(BY_PERSON)!, { reply_to: first.id });
    team.open(BY_PERSON, { reply_to: first.id });
    await team.codex.submit("read your team mail and answer it");
    const again = await probe.received(ids.claude, byPerson.body, `ring #${BY_PERSON}`);
    await expectBraked(team, probe, byPerson, again.id);
    expect(await told(team, probe, lead)).toEqual(once);
  }, 900_000);
});
