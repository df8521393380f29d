// After `/new` in a real Codex TUI (0.171.0, offline against the scripted model, in a private tmux
// pane, a throwaway HOME set up by `muster install codex --wake`): the thread it left is gone, the
// new thread's member holds the label, and mail to that label still wakes the TUI, into the new
// thread. Long (a real TUI, two threads, a wake): behind MUSTER_LONG_TESTS.
import path from "node:path";
import { eventually, LONG_TESTS, realCodex, userTexts } from "@muster/test-support";
import { joinAsThisProcess, openTestTeam } from "@muster/test-team";
import { afterEach, describe, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const CODEX = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "codex");
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  const errors: unknown[] = [];
  for (const cleanup of cleanups.splice(0).reverse())
    await Promise.resolve()
      .then(cleanup)
      .catch((error) => errors.push(error));
  if (errors.length > 0) throw errors[0];
});

describe.skipIf(!LONG_TESTS)("a real Codex TUI after /new", () => {
  it("the thread it left is gone, the new thread holds the label, and mail to it still wakes the TUI", async () => {
    const codex = await realCodex({
      prefix: "muster-codex-new-",
      codex: CODEX,
      muster: MUSTER,
      install: ["--wake"],
      label: "coder",
      script: [
        {
          call: {
            name: "team_send",
            namespace: "mcp__muster",
            arguments: { to: "reviewer", message: "from the first thread" },
          },
        },
        { text: "Sent." },
        { call: { name: "team_roster", namespace: "mcp__muster", arguments: {} } },
        { text: "Listed." },
        { call: { name: "team_inbox", namespace: "mcp__muster", arguments: {} } },
        { text: "Read it." },
      ],
    });
    cleanups.push(() => codex.close());
    const { model, screen, submit } = codex;
    const roster = await openTestTeam(codex.teamDir);
    await joinAsThisProcess(roster, "reviewer", "peer");
    const diagnose = () =>
      [
        `the pane:\n${screen()}`,
        `the model's requests: ${JSON.stringify(model.requests.map(userTexts))}`,
      ].join("\n");
    const type = (text: string) => codex.server.tmux("send-keys", "-t", "main", "-l", text);
    const enter = () => codex.server.tmux("send-keys", "-t", "main", "Enter");
    const idleAfter = (said: string) =>
      eventually(
        () => screen(),
        (text) => text.includes(said) && !text.includes("esc to interrupt"),
        `Codex to be idle after "${said}"`,
        { attempts: 200 },
      );
    const coder = async () => {
      const read = await roster.read();
      return read.ok ? read.members.find((member) => member.label === "coder") : undefined;
    };

    await codex.start();
    await submit("tell the reviewer");
    await eventually(
      async () => {
        const inbox = await roster.receive("peer");
        return inbox.ok ? inbox.messages.map((message) => message.body) : [];
      },
      (bodies) => bodies.includes("from the first thread"),
      "the first thread's mail",
    );
    const first = (await coder())!;
    expect(first.id).toMatch(/^codex-/);
    await idleAfter("Sent.");

    type("/new");
    // Codex 0.171 asks where the new conversation runs: the current worktree (its first choice).
    // An Enter that comes before the composer has taken the command in submits "/new" to the
    // model as a prompt (seen in CI, and here 1 run in 4): wait until the pane shows it typed,
    // then press Enter until the question shows (a TUI may drop an Enter).
    await eventually(
      () => screen(),
      (text) => text.includes("› /new"),
      "the typed /new in Codex's composer",
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    await eventually(
      () => {
        if (screen().includes("Where should the new conversation run?")) return true;
        enter();
        return false;
      },
      (asked) => asked,
      "Codex's question about the new conversation",
      { attempts: 40, intervalMs: 500 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${diagnose()}`);
    });
    enter();
    // The new thread's empty prompt: the old thread's turn is no longer on the screen.
    await eventually(
      () => screen(),
      (text) => !text.includes("Sent.") && text.includes("Ask Codex"),
      "the new thread's prompt",
      { attempts: 200 },
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await submit("list the team");
    const second = await eventually(
      coder,
      (member) => member !== undefined && member.id !== first.id,
      "the new thread to hold coder",
      { attempts: 200 },
    );
    await idleAfter("Listed.");
    const read = await roster.read({ all: true });
    expect(read.ok && read.members.find((member) => member.id === first.id)).toBeFalsy();
    expect(second).toMatchObject({ agent: "codex", state: "live", watching: { wake: true } });

    const before = model.requests.length;
    const sent = await roster.send({ from: "peer", to: "coder", body: "after the new thread" });
    expect(sent.ok).toBe(true);
    const woke = await eventually(
      () =>
        model.requests.findIndex(
          (request, index) =>
            index >= before &&
            userTexts(request).some((text) => text.includes("after the new thread")),
        ),
      (index) => index >= 0,
      "the wake to reach Codex's model",
      { attempts: 400 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${diagnose()}`);
    });
    // The wake went into the new thread: its turn carries the new thread's prompt, not the old one's.
    expect(userTexts(model.requests[woke]!)).toContain("list the team");
    expect(userTexts(model.requests[woke]!)).not.toContain("tell the reviewer");
  }, 180_000);
});
