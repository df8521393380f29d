// Labels and liveness on any store: one holder per label, compared case-insensitively; a rename
// releases the old label; a holder proven dead is taken over at once, a stale one is not, an
// expired one is; a claim with no record is a join in progress, then an orphan; a holder whose
// record cannot be read keeps its label until the TTL; the states, by liveness and process fact.
import { describe, expect, it } from "vitest";
import type { ConformanceHarness } from "./harness.ts";
import { HOUR, kits, member } from "./kit.ts";

const GRACE_MS = 10_000;

export function labelRules(harness: ConformanceHarness) {
  const kit = kits(harness);

  describe(`labels on the ${harness.name} store`, () => {
    it("one holder per label, case-insensitively; the loser is told who holds it", async () => {
      const { roster } = await kit();
      expect(await roster.join(member("s1", "Alice", 11))).toMatchObject({ ok: true });
      expect(await roster.join(member("s2", "alice", 12))).toMatchObject({
        ok: false,
        reason: "label-held",
        holderLabel: "Alice",
        holderId: "s1",
      });
      expect(await roster.readClaim("labels", "ALICE")).toMatchObject({ holder: "s1" });
    });

    it("a rename releases the old label in the same join; a change of case keeps the claim", async () => {
      const { roster } = await kit();
      await roster.join(member("s1", "alice", 11));
      const renamed = await roster.join(member("s1", "bob", 11));
      expect(renamed).toMatchObject({ ok: true, label: "bob", renamedFrom: "alice" });
      expect(await roster.readClaim("labels", "alice")).toBeUndefined();
      const token = (await roster.readClaim("labels", "bob")) as { token: string };
      expect(await roster.join(member("s1", "BOB", 11))).toMatchObject({ ok: true, label: "BOB" });
      expect(await roster.readClaim("labels", "bob")).toMatchObject({ token: token.token });
      expect(await roster.join(member("s2", "alice", 12))).toMatchObject({ ok: true });
    });

    it("a holder proven dead is taken over at once, and its record goes", async () => {
      const { roster, facts } = await kit();
      await roster.join(member("s1", "lead", 11));
      facts.set(11, "dead");
      expect(await roster.join(member("s2", "lead", 12))).toMatchObject({
        ok: true,
        took: { from: "s1", reason: "dead", forwarded: 0 },
      });
      const read = await roster.read({ all: true });
      expect(read.ok && read.members.map((entry) => entry.id)).toEqual(["s2"]);
      expect(await roster.heartbeat("s1")).toMatchObject({ ok: false, reason: "lost" });
    });

    it("a stale holder not proven dead keeps its label; once expired it is free", async () => {
      const { roster, advance } = await kit();
      await roster.join(member("s1", "lead", 11));
      advance(31_000);
      expect(await roster.join(member("s2", "lead", 12))).toMatchObject({
        ok: false,
        reason: "label-held-gone",
        holderId: "s1",
      });
      advance(HOUR);
      expect(await roster.join(member("s2", "lead", 12))).toMatchObject({
        ok: true,
        took: { from: "s1", reason: "expired" },
      });
    });

    it("a claim with no record is a join in progress for the grace, then an orphan", async () => {
      const { team, roster, advance, now } = await kit();
      const at = new Date(now()).toISOString();
      const claim = { v: 1, key: "lead", holder: "ghost", at, token: "t-ghost" };
      await team.plant("labels", "lead", `${JSON.stringify(claim)}\n`);
      expect(await roster.join(member("s2", "lead", 12))).toMatchObject({
        ok: false,
        reason: "label-held",
      });
      advance(GRACE_MS + 1_000);
      expect(await roster.join(member("s2", "lead", 12))).toMatchObject({
        ok: true,
        took: { reason: "orphan" },
      });
    });

    it("a holder whose record cannot be read keeps its label until its record is past the TTL", async () => {
      const { team, roster, advance } = await kit();
      await roster.join(member("s1", "lead", 11));
      const newer = { v: 2, id: "s1", label: "lead", pid: 11, since: "a newer muster" };
      await team.plant("sessions", "s1", `${JSON.stringify(newer)}\n`);
      const refused = await roster.join(member("s2", "lead", 12));
      expect(refused).toMatchObject({ ok: false, reason: "label-held", holderId: "s1" });
      expect(!refused.ok && refused.error).toContain("cannot be read");
      const read = await roster.read();
      expect(read.ok && read.unreadable).toEqual([{ id: "s1", state: "unknown" }]);
      advance(HOUR + 1_000);
      expect(await roster.join(member("s2", "lead", 12))).toMatchObject({ ok: true });
    });

    it("many joins of one free label at once: exactly one holder", async () => {
      const { roster, open } = await kit();
      const rosters = [roster, ...(await Promise.all([1, 2, 3, 4, 5, 6, 7].map(() => open())))];
      const answers = await Promise.all(
        rosters.map((each, index) => each.join(member(`r${index}`, "race", 20 + index))),
      );
      const winners = answers.filter((answer) => answer.ok);
      expect(winners).toHaveLength(1);
      const holder = await roster.readClaim("labels", "race");
      for (const loser of answers.filter((answer) => !answer.ok))
        expect(loser).toMatchObject({ holderId: (holder as { holder: string }).holder });
    });
  });

  describe(`liveness on the ${harness.name} store`, () => {
    it.each([
      {
        liveness: "heartbeat",
        fact: "unknown",
        age: 5_000,
        state: "live",
        reason: "heartbeat-fresh",
      },
      {
        liveness: "heartbeat",
        fact: "alive",
        age: 31_000,
        state: "gone",
        reason: "heartbeat-stale",
      },
      { liveness: "heartbeat", fact: "dead", age: 5_000, state: "gone", reason: "process-dead" },
      { liveness: "heartbeat", fact: "dead", age: HOUR + 1, state: "gone", reason: "process-dead" },
      {
        liveness: "heartbeat",
        fact: "unknown",
        age: HOUR + 1,
        state: "expired",
        reason: "past-ttl",
      },
      { liveness: "process", fact: "alive", age: 5 * HOUR, state: "live", reason: "process-alive" },
      { liveness: "process", fact: "dead", age: 60_000, state: "gone", reason: "process-dead" },
      { liveness: "process", fact: "dead", age: HOUR + 1, state: "gone", reason: "process-dead" },
      {
        liveness: "process",
        fact: "unknown",
        age: 60_000,
        state: "live",
        reason: "process-unknown",
      },
    ] as const)(
      "$liveness, process $fact, $age ms since the beat: $state ($reason)",
      async (row) => {
        const { roster, facts, advance } = await kit();
        await roster.join(member("s1", "alice", 500, { liveness: row.liveness }));
        facts.set(500, row.fact);
        advance(row.age);
        const read = await roster.read({ all: true });
        expect(read.ok && read.members[0]).toMatchObject({
          state: row.state,
          reason: row.reason,
          heartbeatAgeMs: row.age,
        });
      },
    );

    // A record of another host (another boot or pid namespace) is judged by its heartbeat alone,
    // even when it is kept live by its process: a pid probe here says nothing of a pid there (it
    // may name some other process, alive or dead), and a check that cannot decide never calls a
    // member dead. That host beats for it; when it stops, the member goes stale, then expires.
    it.each([
      { fact: "alive", age: 5_000, state: "live", reason: "heartbeat-fresh" },
      { fact: "dead", age: 5_000, state: "live", reason: "heartbeat-fresh" },
      { fact: "alive", age: 31_000, state: "gone", reason: "heartbeat-stale" },
      { fact: "dead", age: 31_000, state: "gone", reason: "heartbeat-stale" },
      { fact: "unknown", age: 31_000, state: "gone", reason: "heartbeat-stale" },
      { fact: "alive", age: HOUR + 1, state: "expired", reason: "past-ttl" },
    ] as const)(
      "process-backed on another host, its pid $fact here, $age ms since the beat: $state ($reason)",
      async (row) => {
        const { roster, facts, advance, open } = await kit();
        const there = await open(undefined, "host B");
        await there.join(member("s1", "alice", 500, { liveness: "process" }));
        facts.set(500, row.fact);
        advance(row.age);
        const read = await roster.read({ all: true });
        expect(read.ok && read.members[0]).toMatchObject({
          state: row.state,
          reason: row.reason,
          heartbeatAgeMs: row.age,
        });
      },
    );

    it("a process-backed member of another host beaten by its host stays live; gone stale, it keeps its label", async () => {
      const { roster, facts, advance, open } = await kit();
      const there = await open(undefined, "host B");
      await there.join(member("s1", "alice", 500, { liveness: "process" }));
      facts.set(500, "dead"); // some other pid 500 here, long gone: proves nothing of host B's
      advance(25_000);
      expect(await there.heartbeat("s1")).toMatchObject({ ok: true });
      advance(25_000);
      const read = await roster.read();
      expect(read.ok && read.members[0]).toMatchObject({
        state: "live",
        reason: "heartbeat-fresh",
      });
      advance(10_000);
      // Stale, not dead: its label is reserved for it, and prune keeps it until the TTL.
      expect(await roster.join(member("s2", "alice", 501))).toMatchObject({
        ok: false,
        reason: "label-held-gone",
        holderId: "s1",
      });
      expect(await roster.prune()).toMatchObject({ ok: true, removed: [] });
    });

    it("a heartbeat member whose process is proven alive is never expired: stale, its mail kept", async () => {
      const { roster, facts, advance } = await kit();
      await roster.join(member("s1", "alice", 500));
      await roster.join(member("s2", "bob", 501, { liveness: "process" }));
      facts.set(500, "alive");
      facts.set(501, "alive");
      await roster.send({ from: "bob", to: "alice", body: "while you slept" });
      advance(3 * HOUR);
      const read = await roster.read({ all: true });
      expect(read.ok && read.members.find((each) => each.id === "s1")?.state).toBe("gone");
      expect(await roster.prune()).toMatchObject({ ok: true, removed: [] });
      expect(await roster.heartbeat("s1")).toMatchObject({ ok: true });
      expect(await roster.unread("s1")).toBe(1);
    });

    it("a heartbeat dated far ahead is not believed: the record ages by when it was written", async () => {
      const { team, roster, advance } = await kit();
      await roster.join(member("s1", "alice", 11));
      const read = await roster.read();
      const record = read.ok ? read.members[0]! : undefined;
      const {
        state: _state,
        reason: _reason,
        holdsLabel: _holds,
        heartbeatAgeMs: _age,
        ...saved
      } = record!;
      const ahead = { ...saved, heartbeatAt: "2099-01-01T00:00:00.000Z" };
      await team.plant("sessions", "s1", `${JSON.stringify(ahead)}\n`);
      expect(await roster.read()).toMatchObject({ members: [{ state: "live" }] });
      advance(HOUR + 60_000);
      const later = await roster.read({ all: true });
      expect(later.ok && later.members[0]).toMatchObject({ state: "expired" });
    });
  });
}
