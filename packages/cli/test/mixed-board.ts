// The board and lease half of mixed-team.test.ts: what the round's turns did to the board and the
// leases (each done by an engine's model through its own door), and the SIGKILL of Codex with
// what follows from it: its card open again, its lease no longer holding, the lead told and woken.
import { existsSync, readFileSync } from "node:fs";
import { DEFAULT_WAKE_POLICY } from "@muster/core";
import { holdingLeases } from "@muster/node";
import type { Member } from "@muster/roster";
import { eventually } from "@muster/test-support";
import { teamBoard } from "@muster/wiring";
import { expect } from "vitest";
import {
  AUTH_EDITED,
  AUTH_SOURCE,
  CARDS,
  type Engine,
  LABEL,
  LEASE,
  recovery,
} from "./mixed-route.ts";
import { type MixedTeam, type Probes, signalTree } from "./mixed-team.ts";

export type Members = Record<Engine, Member>;

const cardsNow = async (probe: Probes) => {
  const read = await teamBoard(probe.roster).board.read();
  if (!read.ok) throw new Error(`the board: ${read.error}`);
  return read.board.cards;
};

/**
 * After the round: Codex holds c1 and leases `src/auth/**`; Claude Code was refused c2 (blocked
 * by Codex's c1, the lead told and woken), holds c3, and its Edit of the leased file was refused
 * by the PreToolUse hook, the file unchanged.
 */
export async function expectBoardWork(team: MixedTeam, probe: Probes, members: Members) {
  const cards = await cardsNow(probe);
  expect(cards.get("c1")).toMatchObject({
    title: CARDS.c1,
    state: "held",
    owner: { label: LABEL.codex, id: members.codex.id },
  });
  expect(cards.get("c2")).toMatchObject({ state: "open", deps: ["c1"] });
  expect(cards.get("c3")).toMatchObject({ state: "held", owner: { id: members.claude.id } });
  const leases = await holdingLeases(probe.roster);
  expect(
    leases.ok && leases.leases.map(({ pattern, holderId }) => ({ pattern, holderId })),
  ).toEqual([{ pattern: LEASE, holderId: members.codex.id }]);
  const told = probe.claudeSaw().join("\n");
  expect(told).toContain("Card c2 is blocked by c1 (c1 held by coder)");
  expect(told).toMatch(
    /src\/auth\/session\.ts is leased \(src\/auth\/\*\*\), held by coder \(auth sessions\)/,
  );
  expect(readFileSync(team.authFile, "utf8")).toBe(AUTH_SOURCE);
  const notice = await probe.received(
    members.pi.id,
    `writer wanted c2 "${CARDS.c2}", but it is blocked by c1`,
    "the lead to be told of the blocked claim",
  );
  expect(notice.from.id).toBe(members.claude.id);
  expect(await probe.wokeBy(notice.id, "the blocked notice")).toBe("pi");
}

/** SIGKILL the Codex member's process and every process under it (the TUI and its wrapper). */
async function killCodex(codex: Member) {
  const tree = await signalTree(codex.pid, "SIGKILL");
  await eventually(
    () => tree.filter((pid) => existsSync(`/proc/${pid}`)),
    (left) => left.length === 0,
    "Codex's processes to end",
  );
}

/**
 * Until the lead may be woken again: core's wake policy wakes a member at most `maxWakes` times a
 * `windowMs`, and the lead has had 6 wakes in well under a minute (5 mails and the blocked notice).
 * A 7th then would be delivered without a wake; the release notice is to wake it. Returns the wait.
 */
async function leadWakeRoom(probe: Probes, lead: Member) {
  const history = await probe.roster.history(lead.id);
  const wakes: number[] = [];
  for (const message of history.ok ? history.messages : []) {
    const receipt = await probe.roster.receipt(message.id);
    const woke = receipt.ok ? receipt.recipients[0]?.phases.woke : undefined;
    if (woke) wakes.push(Date.parse(woke.at));
  }
  wakes.sort((a, b) => b - a);
  const { maxWakes, windowMs } = DEFAULT_WAKE_POLICY;
  // With room to spare for the kill, the recovery mail and Claude Code's board read.
  const wait = Math.max(0, (wakes[maxWakes - 1] ?? 0) + windowMs - Date.now() + 1000);
  await new Promise((resolve) => setTimeout(resolve, wait));
  return wait;
}

/**
 * Codex SIGKILLed, then pi's recovery mail wakes Claude Code: its board read opens c1 again (its
 * holder proven dead) and tells the lead, who wakes; the lease no longer holds, so Claude Code's
 * claim of c1 and its Edit of the file pass. Returns when the card was open again.
 */
export async function expectRecovery(team: MixedTeam, probe: Probes, members: Members) {
  // pi is in its turn for mail #15, held at the recovery mail's gate.
  for (const engine of ["codex", "claude"] as const) await probe.idle(LABEL[engine]);
  const waitedMs = await leadWakeRoom(probe, members.pi);
  await killCodex(members.codex);
  const killedAt = Date.now();
  team.open(recovery.number);
  const mail = await probe.received(members.claude.id, recovery.body, "the recovery mail");
  expect(await probe.wokeBy(mail.id, "the recovery mail")).toBe("claude-rewake");
  const notice = await probe.received(
    members.pi.id,
    `c1 "${CARDS.c1}" is open again: coder's process died.`,
    "the lead to be told c1 is open again",
  );
  expect(notice.from.id).toBe(members.claude.id);
  expect(await probe.wokeBy(notice.id, "the release notice")).toBe("pi");
  await eventually(
    () => readFileSync(team.authFile, "utf8"),
    (text) => text === AUTH_EDITED,
    "Claude Code's Edit of the file to pass",
    { attempts: 600 },
  ).catch(probe.explain);
  await probe.idle(LABEL.claude);
  await probe.idle(LABEL.pi);
  const c1 = (await cardsNow(probe)).get("c1");
  expect(c1).toMatchObject({ state: "held", owner: { id: members.claude.id } });
  expect(c1?.history.map(({ event, by, note }) => ({ event, by, note })).slice(-3)).toEqual([
    { event: "claimed", by: LABEL.codex, note: undefined },
    { event: "released", by: LABEL.codex, note: "coder's process died" },
    { event: "claimed", by: LABEL.claude, note: undefined },
  ]);
  const leases = await holdingLeases(probe.roster);
  expect(leases.ok && leases.leases).toEqual([]);
  expect(leases.ok && leases.lapsed.map((lease) => lease.holderId)).toEqual([members.codex.id]);
  expect(await probe.member(LABEL.codex)).toMatchObject({ state: "gone" });
  return { waitedMs, killedAt, openAt: Date.parse(notice.sentAt) };
}
