import { describe, expect, it } from "vitest";
import { recordWake } from "./_wake.js";
import {
  canDeliverWake,
  DEFAULT_WAKE_POLICY,
  decideDelivery,
  MAIL_MODES,
  mailMode,
  mailSetting,
  mayWake,
  type RecentWake,
  replyHops,
} from "./index.js";
import { spawnedMail } from "./internal.js";

const NOW = 10_000_000;
const listening = { armed: true, wake: true };
const wakes = (count: number, ago = 1_000): RecentWake[] =>
  Array.from({ length: count }, (_, index) => ({ at: NOW - ago - index, messageId: `m${index}` }));

describe("decideDelivery", () => {
  it.each([
    {
      rule: "a session that does not listen gets nothing pushed",
      message: { id: "x", urgent: true },
      watching: { armed: false, wake: true },
      recent: [],
      delivery: { action: "hold", reason: "not-listening" },
    },
    {
      rule: "listening without wake: mail at the next turn",
      message: { id: "x", urgent: true },
      watching: { armed: true, wake: false },
      recent: [],
      delivery: { action: "deliver", wake: false, reason: "no-wake" },
    },
    {
      rule: "waking, normal mail: a follow-up",
      message: { id: "x" },
      watching: listening,
      recent: [],
      delivery: { action: "deliver", wake: true, mode: "follow-up" },
    },
    {
      rule: "waking, urgent mail: steers",
      message: { id: "x", urgent: true },
      watching: listening,
      recent: [],
      delivery: { action: "deliver", wake: true, mode: "steer" },
    },
    {
      rule: "at the hop limit it still wakes",
      message: { id: "x", hops: DEFAULT_WAKE_POLICY.maxHops },
      watching: listening,
      recent: [],
      delivery: { action: "deliver", wake: true, mode: "follow-up" },
    },
    {
      rule: "over the hop limit it never wakes, even urgent",
      message: { id: "x", hops: DEFAULT_WAKE_POLICY.maxHops + 1, urgent: true },
      watching: listening,
      recent: [],
      delivery: { action: "deliver", wake: false, reason: "hop-limit" },
    },
    {
      rule: "at most 6 wakes a minute: the 7th is quiet",
      message: { id: "x" },
      watching: listening,
      recent: wakes(6),
      delivery: { action: "deliver", wake: false, reason: "rate-limited" },
    },
    {
      rule: "wakes older than the window do not count",
      message: { id: "x" },
      watching: listening,
      recent: wakes(6, DEFAULT_WAKE_POLICY.windowMs),
      delivery: { action: "deliver", wake: true, mode: "follow-up" },
    },
    {
      rule: "a broadcast wakes a recipient once",
      message: { id: "m0" },
      watching: listening,
      recent: wakes(1),
      delivery: { action: "deliver", wake: false, reason: "already-woken" },
    },
  ])("$rule", ({ message, watching, recent, delivery }) => {
    expect(decideDelivery(message, watching, recent, NOW)).toEqual(delivery);
  });

  it("honours a caller's policy", () => {
    const policy = { maxHops: 0, maxWakes: 1, windowMs: 10 };
    expect(decideDelivery({ id: "a", hops: 1 }, listening, [], NOW, policy)).toMatchObject({
      reason: "hop-limit",
    });
    expect(
      decideDelivery({ id: "a" }, listening, [{ at: NOW - 5, messageId: "b" }], NOW, policy),
    ).toMatchObject({
      reason: "rate-limited",
    });
  });
});

describe("recordWake", () => {
  it("keeps the wakes inside the window and adds the new one", () => {
    const kept = recordWake(
      [
        { at: NOW - DEFAULT_WAKE_POLICY.windowMs, messageId: "old" },
        { at: NOW - 5, messageId: "recent" },
      ],
      { at: NOW, messageId: "new" },
    );
    expect(kept.map((wake) => wake.messageId)).toEqual(["recent", "new"]);
  });

  it("a run of wakes reaches the limit exactly", () => {
    let recent: RecentWake[] = [];
    const decisions = Array.from({ length: 8 }, (_, index) => {
      const delivery = decideDelivery({ id: `m${index}` }, listening, recent, NOW + index);
      if (delivery.action === "deliver" && delivery.wake)
        recent = recordWake(recent, { at: NOW + index, messageId: `m${index}` });
      return delivery.action === "deliver" && delivery.wake;
    });
    expect(decisions).toEqual([true, true, true, true, true, true, false, false]);
  });
});

describe("a wake that failed", () => {
  it("counts against the rate, but never makes its message 'already woken': it is tried again", () => {
    const failed: RecentWake[] = [{ at: NOW - 10, messageId: "x", failed: true }];
    expect(decideDelivery({ id: "x" }, listening, failed, NOW)).toEqual({
      action: "deliver",
      wake: true,
      mode: "follow-up",
    });
    const many = Array.from({ length: 6 }, (_, index) => ({
      at: NOW - 10 - index,
      messageId: "x",
      failed: true,
    }));
    expect(decideDelivery({ id: "x" }, listening, many, NOW)).toMatchObject({
      reason: "rate-limited",
    });
  });
});

describe("canDeliverWake: only a process that can start the member's turn takes its wake", () => {
  const codex = { agent: "codex", engineHome: "/home/ann/.codex", place: "boot-1" };
  const here = { engine: "codex", engineHome: "/home/ann/.codex", place: "boot-1" };
  it.each([
    ["the member's own Codex home, on its host", codex, here, true],
    [
      "another Codex home (a Claude Code member's HOME)",
      codex,
      { ...here, engineHome: "/home/bob/.codex" },
      false,
    ],
    [
      "a record that names no home: cannot decide",
      { ...codex, engineHome: undefined },
      here,
      false,
    ],
    ["this process knows no home of its own", codex, { ...here, engineHome: undefined }, false],
    ["another engine's member", { ...codex, agent: "claude" }, here, false],
    ["another host", { ...codex, place: "boot-2" }, here, false],
  ])("%s", (_, member, process, expected) => {
    expect(canDeliverWake(member, process)).toBe(expected);
  });
});

describe("replyHops", () => {
  const known = new Map([
    ["m1", 0],
    ["m2", 3],
    ["bad", -2],
    ["odd", 1.5],
  ]);
  const hopsOf = (id: string) => known.get(id);

  it.each([
    ["a new thread starts at 0", undefined, 0],
    ["a reply to a first message is hop 1", "m1", 1],
    ["a reply counts one more than the message it answers", "m2", 4],
    ["a reply to a message not known counts as the first reply", "unknown", 1],
    ["a negative count read from a file is not trusted", "bad", 1],
    ["a fractional count read from a file is not trusted", "odd", 1],
  ])("%s", (_rule, replyTo, hops) => {
    expect(replyHops(replyTo, hopsOf)).toBe(hops);
  });

  it("two agents replying to each other stop waking one another past the hop limit", () => {
    const seen = new Map<string, number>();
    let replyTo: string | undefined;
    const wakes: boolean[] = [];
    for (let turn = 0; turn < 8; turn += 1) {
      const id = `t${turn}`;
      const hops = replyHops(replyTo, (messageId) => seen.get(messageId));
      seen.set(id, hops);
      const delivery = decideDelivery({ id, hops }, listening, [], NOW);
      wakes.push(delivery.action === "deliver" && delivery.wake);
      replyTo = id;
    }
    expect(wakes).toEqual([true, true, true, true, true, false, false, false]);
  });
});

describe("mailMode", () => {
  it.each([
    [{ armed: false, wake: false }, "off"],
    [{ armed: false, wake: true }, "off"],
    [{ armed: true, wake: false }, "quiet"],
    [{ armed: true, wake: true }, "wakes"],
  ] as const)("%j is %s, and every mode is explained", (watching, mode) => {
    expect(mailMode(watching)).toBe(mode);
    expect(MAIL_MODES[mode]).toMatch(/^mail /);
  });

  it("the mode agrees with the wake policy: off holds, quiet never wakes", () => {
    for (const watching of [
      { armed: false, wake: true },
      { armed: true, wake: false },
      { armed: true, wake: true },
    ]) {
      const delivery = decideDelivery({ id: "x" }, watching, [], NOW);
      const mode = mailMode(watching);
      expect(delivery.action === "hold").toBe(mode === "off");
      expect(delivery.action === "deliver" && delivery.wake).toBe(mode === "wakes");
    }
  });
});

describe("mayWake: live, holding its label, taking wakes", () => {
  const member = { state: "live", holdsLabel: true, watching: { armed: true, wake: true } };
  it.each([
    ["a live member that takes wakes", member, true],
    ["one that is gone", { ...member, state: "gone" }, false],
    ["one whose label another took", { ...member, holdsLabel: false }, false],
    ["one that does not take wakes", { ...member, watching: { armed: true, wake: false } }, false],
  ])("%s: %s", (_, target, expected) => {
    expect(mayWake(target)).toBe(expected);
  });
});

describe("mailSetting: one setting for the mail mode, read by every door", () => {
  it.each([
    [{ MUSTER_MAIL: "off" }, { armed: false, wake: false }],
    [{ MUSTER_MAIL: "quiet" }, { armed: true, wake: false }],
    [{ MUSTER_MAIL: "wakes" }, { armed: true, wake: true }],
    [{ MUSTER_MAIL: "WAKES" }, { armed: true, wake: true }],
    // The older spelling `muster install codex --wake` writes, still read.
    [{ MUSTER_WAKE: "1" }, { armed: true, wake: true }],
    [{ MUSTER_WAKE: "0" }, { armed: true, wake: false }],
    // MUSTER_MAIL is the one setting: it wins over the older one.
    [
      { MUSTER_MAIL: "off", MUSTER_WAKE: "1" },
      { armed: false, wake: false },
    ],
    [{}, undefined],
    [{ MUSTER_MAIL: "" }, undefined],
  ])("%o", (env, watching) => {
    expect(mailSetting(env)).toEqual({ ok: true, watching });
  });

  it("a value it does not know is refused with the three it knows, never guessed", () => {
    expect(mailSetting({ MUSTER_MAIL: "loud" })).toMatchObject({
      ok: false,
      reason: "bad-mail-mode",
      error: 'MUSTER_MAIL is "loud"',
      fix: "set MUSTER_MAIL to off, quiet or wakes",
    });
    expect(mailSetting({ MUSTER_WAKE: "yes" })).toMatchObject({
      ok: false,
      reason: "bad-mail-mode",
    });
  });
});

describe("spawnedMail: a spawned member wakes for its mail unless asked to be quiet", () => {
  it.each([
    { rule: "nothing set: wakes", env: {}, quiet: false, mode: "wakes" },
    { rule: "--quiet: quiet", env: {}, quiet: true, mode: "quiet" },
    {
      rule: "--quiet over the shell's wakes",
      env: { MUSTER_MAIL: "wakes" },
      quiet: true,
      mode: "quiet",
    },
    {
      rule: "the shell's MUSTER_MAIL=quiet",
      env: { MUSTER_MAIL: "quiet" },
      quiet: false,
      mode: "quiet",
    },
    {
      rule: "the shell's MUSTER_MAIL=off",
      env: { MUSTER_MAIL: " OFF " },
      quiet: false,
      mode: "off",
    },
    {
      rule: "the shell's older MUSTER_WAKE=0",
      env: { MUSTER_WAKE: "0" },
      quiet: false,
      mode: "quiet",
    },
    {
      rule: "the shell's older MUSTER_WAKE=1",
      env: { MUSTER_WAKE: "1" },
      quiet: false,
      mode: "wakes",
    },
  ] as const)("$rule", ({ env, quiet, mode }) => {
    expect(spawnedMail(env, { quiet })).toEqual({ ok: true, mode, env: { MUSTER_MAIL: mode } });
  });

  it("the pane gets the shell's wake rate too, and a setting no door knows is refused", () => {
    expect(spawnedMail({ MUSTER_WAKE_PER_MINUTE: " 2 " })).toEqual({
      ok: true,
      mode: "wakes",
      env: { MUSTER_MAIL: "wakes", MUSTER_WAKE_PER_MINUTE: "2" },
    });
    expect(spawnedMail({ MUSTER_MAIL: "loud" }, { quiet: true })).toEqual({
      ok: false,
      reason: "bad-mail-mode",
      error: 'MUSTER_MAIL is "loud"',
      fix: "set MUSTER_MAIL to off, quiet or wakes",
    });
  });
});
