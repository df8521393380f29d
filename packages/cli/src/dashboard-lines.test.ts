// The dashboard's layout: every line fits the terminal (a 60-column side pane, and narrower), a
// member is one row whatever its label, the selection and the selected member's cards and leases
// are shown, and where the locale is not UTF-8 nothing but ASCII is drawn.
import { describe, expect, it } from "vitest";
import type { DashboardData, Line } from "./_dashboard-data.js";
import { dashboardLines, dashboardOrder } from "./_dashboard-lines.js";
import type { MemberView } from "./_status-read.js";

const member = (
  label: string,
  agent: string,
  activity: Partial<MemberView["activity"]> & { state: MemberView["activity"]["state"] },
  extra: Partial<MemberView> = {},
): MemberView => ({
  id: `${label}-1`,
  label,
  agent,
  state: "live",
  why: "",
  pid: 1,
  seat: { server: "/tmp/tmux-0/default", session: "$0", pane: "%3", sessionName: "main" },
  heartbeatAgeMs: 0,
  watching: { armed: true, wake: false },
  unread: 0,
  oldestUnreadAgeMs: null,
  holdsLabel: true,
  activity: { ageMs: 12_000, signal: null, reason: "reported", ...activity },
  person: false,
  end: null,
  ...extra,
});

const DATA: DashboardData = {
  team: "muster",
  members: [
    member("reviewer", "claude", { state: "needs-you" }, { unread: 2 }),
    member("a-label-of-thirty-two-characters", "codex", { state: "working", ageMs: 7_200_000 }),
    member("writer", "pi", { state: "unknown", reason: "stale" }),
    member("gone-one", "pi", { state: "gone" }, { state: "gone", why: "its process ended" }),
  ],
  cards: [
    {
      id: "c3",
      title: "a card title long enough to be cut at sixty columns wide",
      owner: "reviewer",
      since: "",
    },
  ],
  lead: "writer",
  blocked: [{ id: "c5", title: "ship it", blockers: ["c3"] }],
  leases: [{ pattern: "core/src/**", holder: "reviewer", mode: "write" }],
  warnings: ["tmux did not answer"],
  agents: [
    { pane: "%3", engine: "claude", label: "reviewer" },
    { pane: "%9", engine: "codex", label: null },
  ],
};

const text = (line: Line) => line.map((piece) => piece.text).join("");
const screen = (width: number, selected = 0, utf8 = true) =>
  dashboardLines(DATA, { width, selected, utf8 }).map(text);

describe("the dashboard's lines", () => {
  it.each([60, 40, 24])("fit %i columns, one row per member", (width) => {
    const lines = screen(width);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
    const rows = lines.filter((line) => /^(› | {2})[^%\s]\S*\s+(claude|codex|pi)\s/.test(line));
    expect(rows).toHaveLength(DATA.members.length);
  });

  it("at 60 columns says who needs you, what each does, and the mail waiting", () => {
    const lines = screen(60);
    expect(lines[0]).toBe("muster · team muster · 4 members");
    expect(lines).toContain("tmux did not answer");
    const row = (label: string) => lines.find((line) => line.slice(2).startsWith(label)) ?? "";
    expect(row("reviewer")).toMatch(/^› reviewer\s+claude\s+needs-you 12s\s+2$/);
    // A label longer than its column is cut with a mark, never wrapped.
    expect(row("a-label-of")).toMatch(/^ {2}a-label-of-t…\s+codex\s+working 2h\s+-$/);
    expect(row("writer")).toMatch(/unknown 12s \(stale\)/);
    expect(row("gone-one")).toMatch(/gone \(its process ended\)/);
    // The selected member's pane, card and lease.
    expect(lines).toContain("reviewer: pane main:%3 · card c3 · lease core/src/**");
    expect(lines).toContain("Cards in progress (1) lead writer");
    expect(lines).toContain("Agents in tmux (2)");
    expect(lines).toContain("Blocked (1)");
    expect(lines).toContain("  c5   waits c3    ship it");
    expect(lines).toContain("  %9    codex   not joined");
    expect(lines.at(-1)).toBe("↑↓ · enter go · n start · x stop · s send · m mail · q quit");
  });

  it("a crashed member: when, what it was doing, listed early, with what brings it back", () => {
    const end = {
      kind: "crashed" as const,
      ageMs: 180_000,
      found: true,
      last: "working" as const,
      fix: "muster up bob brings it back",
    };
    const bob = member("bob", "codex", { state: "gone" }, { state: "gone", end, seat: null });
    const down = member(
      "dan",
      "pi",
      { state: "gone" },
      {
        state: "gone",
        seat: null,
        end: { ...end, kind: "down", last: null, fix: "muster up dan brings it back" },
      },
    );
    const data = { ...DATA, members: dashboardOrder([...DATA.members, down, bob]) };
    expect(data.members.map((each) => each.label).slice(0, 2)).toEqual(["reviewer", "bob"]);
    const lines = dashboardLines(data, { width: 60, selected: 1, utf8: true, elapsedMs: 60_000 });
    const row = lines.find((line) => text(line).slice(2).startsWith("bob "))!;
    expect(text(row)).toMatch(/^› bob\s+codex\s+crashed 4m ago \(was working\)/);
    expect(row.find((piece) => piece.text.startsWith("crashed"))?.tone).toBe("crashed");
    const all = lines.map(text);
    expect(all).toContain("bob: muster up bob brings it back · no pane");
    expect(all).toContain("Crashed or down (2)");
    expect(all).toContain("  dan         down    muster up dan brings it back");
    expect(all).toContain("  bob         crashed muster up bob brings it back");
  });

  it("an action's prompt takes the keys' line; u is offered where muster up is", () => {
    const asked = dashboardLines(DATA, {
      width: 60,
      selected: 0,
      utf8: true,
      prompt: "stop bob? y yes",
    });
    expect(asked.map(text).at(-1)).toBe("stop bob? y yes");
    const up = dashboardLines(DATA, { width: 60, selected: 0, utf8: true, up: true }).map(text);
    expect(up.at(-1)).toBe("↑↓  enter go  n start  x stop  s send  u up  m mail  q quit");
    const wide = dashboardLines(DATA, { width: 90, selected: 0, utf8: true, up: true }).map(text);
    expect(wide.at(-1)).toBe("↑↓ · enter go · n start · x stop · s send · u up · m mail · q quit");
  });

  it("moves the mark with the selection", () => {
    const lines = screen(60, 2);
    expect(lines.filter((line) => line.startsWith("›"))).toEqual([
      expect.stringMatching(/^› writer/),
    ]);
    expect(lines).toContain("writer: pane main:%3");
  });

  it("is ASCII where the locale is not UTF-8", () => {
    for (const line of screen(60, 0, false)) expect(line).toMatch(/^[\x20-\x7e]*$/);
  });

  it("shows the person's mail when asked, one line each, its control characters made visible", () => {
    const mail = [
      { to: "sam", from: "reviewer", ageMs: 65_000, body: "PR is ready\nsecond line" },
      { to: "sam", from: "lead", ageMs: 1_000, body: "\u001b[2Jcleared?" },
    ];
    const lines = dashboardLines(DATA, { width: 60, selected: 0, utf8: true, mail }).map(text);
    expect(lines).toContain("Your mail (2) shown, not marked read");
    expect(lines).toContain("  reviewer  1m   PR is ready");
    expect(lines).toContain("  lead      1s   \\x1b[2Jcleared?");
    const none = dashboardLines(DATA, { width: 60, selected: 0, utf8: true, mail: [] }).map(text);
    expect(none).toContain("No mail waits for you.");
  });

  it("text hidden in tag characters or zero-width ones is drawn visibly: titles, mail, agents, leases, the land queue", () => {
    const hidden = [..."push"]
      .map((c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!))
      .join("");
    const data: DashboardData = {
      ...DATA,
      members: [member("reviewer", `claude${hidden}`, { state: "needs-you" })],
      cards: [{ id: "c3", title: `ship${hidden}\u200b`, owner: "reviewer", since: "" }],
      blocked: [{ id: "c5", title: `wait${hidden}`, blockers: ["c3"] }],
      leases: [{ pattern: `src/${hidden}`, holder: "reviewer", mode: "write" }],
      land: `land: reviewer landing${hidden}`,
    };
    const mail = [{ to: "sam", from: "lead", ageMs: 1_000, body: `go${hidden}` }];
    const lines = dashboardLines(data, { width: 200, selected: 0, utf8: true, mail }).map(text);
    const all = lines.join("\n");
    expect(all).not.toMatch(/[\u{e0000}-\u{e007f}\u200b]/u);
    expect(all).toContain("ship\\u{e0070}\\u{e0075}");
    expect(all).toContain("wait\\u{e0070}");
    expect(all).toContain("go\\u{e0070}");
    expect(all).toContain("src/\\u{e0070}");
    expect(all).toContain("landing\\u{e0070}");
  });

  it("an empty team says how to join", () => {
    const lines = dashboardLines(
      {
        ...DATA,
        members: [],
        cards: [],
        blocked: [],
        leases: [],
        lead: null,
        warnings: [],
        agents: [],
      },
      { width: 60, selected: 0, utf8: true },
    ).map(text);
    expect(lines).toContain("  nobody has joined yet (muster join <label>)");
  });
});

describe("a team taller than the pane", () => {
  const many: DashboardData = {
    ...DATA,
    warnings: [],
    members: Array.from({ length: 1000 }, (_, index) =>
      member(`m${index}`, "pi", { state: index >= 997 ? "needs-you" : "idle" }),
    ),
  };
  const text = (lines: Line[]) => lines.map((line) => line.map((piece) => piece.text).join(""));

  it("draws at most `height` lines: the title first, the keys last, the members scrolled", () => {
    const lines = text(dashboardLines(many, { width: 80, height: 20, selected: 0, utf8: true }));
    expect(lines).toHaveLength(20);
    expect(lines[0]).toMatch(/^muster · team muster · 1000 members \(1-\d+ shown\)$/);
    expect(lines[1]).toMatch(/^ {2}LABEL/);
    expect(lines.at(-1)).toBe("↑↓ · enter go · n start · x stop · s send · m mail · q quit");
  });

  it("lists who needs the person first", () => {
    const ordered = { ...many, members: dashboardOrder(many.members) };
    const lines = text(dashboardLines(ordered, { width: 80, height: 20, selected: 0, utf8: true }));
    expect(lines.slice(2, 5).map((line) => line.slice(2).split(" ")[0])).toEqual([
      "m997",
      "m998",
      "m999",
    ]);
    expect(lines[2]).toMatch(/^› m997\s+pi\s+needs-you/);
  });

  it("keeps the selected member on screen, and ages what it shows by the time since reading", () => {
    const lines = text(
      dashboardLines(many, { width: 80, height: 20, selected: 500, utf8: true, elapsedMs: 60_000 }),
    );
    expect(lines.find((line) => line.startsWith("› "))).toMatch(/^› m500\s+pi\s+idle 1m/);
    expect(lines[0]).toMatch(/\(\d+-\d+ shown\)/);
    expect(lines.some((line) => line.slice(2).startsWith("m0 "))).toBe(false);
  });
});
