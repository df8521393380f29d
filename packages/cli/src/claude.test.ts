// A real Claude Code 2.1.332, offline (`claude -p` against the scripted Messages API model), set up
// by `muster install claude` in a throwaway HOME, beside a real pi member. Its model's team_send
// reaches pi; pi's reply lands while Claude's turn is still running, and the Stop hook continues
// that turn with it. The TUI in a tmux pane is proven under `pnpm test:long` (claude-tui.test.ts),
// and so is this (MUSTER_LONG_TESTS): a real Claude Code and a real pi; `pnpm test` checks the hooks
// muster answers Claude Code with, fed Claude Code's own input (hook.test.ts, hook-guard.test.ts).
import { eventually, LONG_TESTS } from "@muster/test-support";
import { afterEach, expect, it } from "vitest";
import { claudeKit, claudePrint, piMember, requestText } from "../test/claude.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it.skipIf(!LONG_TESTS)(
  "a real Claude Code's team_send reaches a pi member, whose reply continues Claude's turn at Stop",
  async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const kit = await claudeKit([
      {
        call: {
          name: "mcp__muster__team_send",
          arguments: { to: "reviewer", message: "hello from a real Claude Code" },
        },
      },
      { text: "Sent.", after: held },
      { text: "Read the reply." },
    ]);
    cleanups.push(() => kit.close());
    const pi = piMember(kit, "reviewer", [
      { tool: "team_send", args: { to: "writer", message: "thanks, got it" } },
      { text: "replied" },
    ]);
    cleanups.push(() => pi.kill());
    pi.command({ type: "prompt", message: "/team join reviewer --wake" });
    await eventually(
      async () => {
        const read = await kit.roster.read();
        // Joined with wake on: pi started with --muster-label joins by itself without it first.
        return (
          read.ok &&
          read.members.some((member) => member.label === "reviewer" && member.watching.wake)
        );
      },
      Boolean,
      "the pi member to join with wake on",
      { attempts: 300 },
    );

    const run = claudePrint(kit, "tell the reviewer hello");
    // The pi member receives Claude's mail, wakes, and replies while Claude's turn is held open.
    const [mail] = await eventually(pi.mail, (list) => list.length > 0, "the mail to reach pi", {
      attempts: 600,
    });
    expect((mail!.message as { details: unknown }).details).toMatchObject({
      from: { label: "writer" },
      body: "hello from a real Claude Code",
    });
    const claude = await eventually(
      async () => {
        const read = await kit.roster.read();
        return read.ok ? read.members.find((member) => member.agent === "claude") : undefined;
      },
      Boolean,
      "Claude Code to be a member",
    );
    await eventually(
      () => kit.roster.unread(claude!.id),
      (count) => count === 1,
      "pi's reply to reach Claude's mailbox",
      { attempts: 600 },
    );
    release();
    const result = await run;
    expect(result.status, result.stderr).toBe(0);

    const scripted = kit.model.requests.filter((request) => request.scripted);
    // The tool answered as muster's: sent, by a member (not a guest).
    expect(requestText(scripted[1]!.body)).toMatch(/\\"ok\\":true.*\\"guest\\":null/);
    // Stop continued the same run with the reply: one more request, carrying the mail.
    expect(scripted).toHaveLength(3);
    expect(requestText(scripted[2]!.body)).toContain("Team mail arrived while you worked");
    expect(requestText(scripted[2]!.body)).toContain("thanks, got it");
    expect(await kit.roster.unread(claude!.id)).toBe(0);
  },
  90_000,
);
