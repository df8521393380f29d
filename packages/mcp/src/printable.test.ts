// Every text an MCP tool returns reaches a model's context and, through the client, a terminal:
// controls planted in every free-text field of a record (agent, cwd, seat) and of a message
// (sender, recipient, reply-to, forward) — and in the server's own folder name — come back shown
// (`\x1b`), never raw, from every tool. The structured content passes the same rule.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  call,
  cleanupAfterEach,
  connect,
  fakeEngine,
  joinPeer,
  roster,
  SERVE,
  scratchUntil,
} from "../test/helpers.ts";
import { TOOLS } from "./_tools.js";

const cleanups = cleanupAfterEach();

const ESC = "\u001b";
/** A clipboard write, a title, a screen clear, an 8-bit CSI, a bidi override. */
const HOSTILE = `${ESC}]52;c;cm0gLXJmIH4=\u0007${ESC}]0;pwned\u0007${ESC}[2J\u009b31m\u202e`;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these bytes
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Rewrite a JSON file in the team folder with `change` applied, as another process might. */
function plant(file: string, change: (value: Record<string, unknown>) => Record<string, unknown>) {
  writeFileSync(file, JSON.stringify(change(JSON.parse(readFileSync(file, "utf8")))));
}

describe("controls planted in every field come back shown, from every tool", () => {
  it("no tool's text carries a raw control; the planted text is there, visibly", async () => {
    const work = scratchUntil(cleanups);
    const team = await roster(work.teamDir);
    const peer = await joinPeer(team, "reviewer");
    // The server runs in a folder whose name is hostile too (a clone can be named anything).
    const folder = path.join(work.dir, `repo-${HOSTILE}`);
    mkdirSync(folder);
    const claude = fakeEngine(
      work.bin,
      "claude",
      `cd "${folder}" && "${process.execPath}" "${SERVE}"`,
    );
    const { client } = await connect(claude, [], {
      MUSTER_TEAM_DIR: work.teamDir,
      MUSTER_LABEL: "writer",
    });
    cleanups.push(() => client.close());
    const me = (await call(client, "team_roster")).structured.you as { id: string };

    // The peer's record: every free-text field hostile.
    plant(path.join(work.teamDir, "sessions", `${peer}.json`), (record) => ({
      ...record,
      agent: `pi${HOSTILE}`,
      cwd: `/work/${HOSTILE}`,
      seat: {
        server: `/tmp/tmux-0/default${HOSTILE}`,
        serverPid: 1,
        session: `$1${HOSTILE}`,
        sessionName: `main${HOSTILE}`,
        window: `@1${HOSTILE}`,
        windowIndex: 0,
        pane: `%1${HOSTILE}`,
        paneIndex: 0,
      },
    }));
    // A message to the server's member: every free-text field hostile.
    const sent = await team.send({ from: peer, to: "writer", body: `look${HOSTILE}` });
    expect(sent.ok).toBe(true);
    const box = path.join(work.teamDir, "mail", me.id, "new");
    const [file] = readdirSync(box);
    plant(path.join(box, file!), (message) => ({
      ...message,
      from: { id: `${peer}`, label: `reviewer${HOSTILE}` },
      to: `writer${HOSTILE}`,
      replyTo: `m-${HOSTILE}`,
      forwardedFrom: { id: `old${HOSTILE}`, label: `old-writer${HOSTILE}` },
    }));
    const card = await call(client, "team_add", {
      title: `fix ${HOSTILE}`,
      body: `why ${HOSTILE}`,
    });
    if (process.env.SHOW_TEXTS) console.log("ADD", card.text, JSON.stringify(card.structured));
    const cardId = String((card.structured.card as { id?: string } | undefined)?.id ?? "c1");

    // Every tool, with arguments that make it read or echo the planted text.
    const calls: Record<string, Record<string, unknown>> = {
      team_roster: {},
      team_inbox: {},
      team_send: { to: `reviewer`, message: `hi ${HOSTILE}`, reply_to: `m-${HOSTILE}` },
      team_leases: {},
      team_lease: {
        paths: [`src/${HOSTILE}`, path.join(folder, "..", "elsewhere")],
        reason: HOSTILE,
      },
      team_release: { paths: [`src/${HOSTILE}`] },
      team_cards: {},
      team_card: { card: cardId },
      team_add: { title: `again ${HOSTILE}` },
      team_claim: { card: cardId },
      team_ask: { card: cardId, question: `why ${HOSTILE}?` },
      team_handoff: { card: cardId, to: `reviewer${HOSTILE}`, message: HOSTILE },
      team_drop: { card: cardId, reason: `stuck ${HOSTILE}` },
      team_done: { card: cardId, note: `done ${HOSTILE}` },
      team_lead: { to: `lead${HOSTILE}` },
      team_spawn: { engine: `pi${HOSTILE}`, label: `kid`, task: HOSTILE },
      team_diff: { label: "reviewer" },
      team_land: { target: "reviewer", check: `echo ${HOSTILE}`, dry_run: true },
    };
    expect(Object.keys(calls).sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
    let shown = 0;
    const raw: string[] = [];
    const texts: Record<string, string> = {};
    for (const [name, args] of Object.entries(calls)) {
      const answer = await call(client, name, args);
      if (RAW.test(answer.text)) raw.push(name);
      if (answer.text.includes("\\x1b")) shown += 1;
      texts[name] = answer.text;
    }
    expect(raw).toEqual([]);
    // The planted text did reach the answers (shown), so the check is not of empty texts: the
    // record's seat and agent, the message's sender and reply-to among them.
    expect(texts.team_roster).toContain("pane %1\\x1b]52;c;");
    expect(texts.team_roster).toContain("(pi\\x1b]52;c;");
    expect(texts.team_inbox).toContain('Team mail from "reviewer\\x1b]52;c;');
    // A message naming a label its sender's id does not hold is not vouched for.
    expect(texts.team_inbox).toContain('unverifiable (this id now holds "reviewer")');
    expect(texts.team_inbox).toContain("> look\\x1b]52;c;");
    expect(texts.team_inbox).toContain("replying to m-\\x1b]52;c;");
    // The lead and spawn refusals quote the label and engine as given; a card whose title holds
    // controls is refused by the board on write and on read, so it quotes none.
    expect(texts.team_lead).toContain("lead\\x1b]52;c;");
    expect(texts.team_spawn).toContain("pi\\x1b]52;c;");
    expect(shown).toBeGreaterThanOrEqual(4);
  });
});
