// A real Claude Code 2.1.332 TUI, asking the person's permission (`--permission-mode default`), in a
// window of a private tmux server that an attached client does not show, offline (the scripted
// Messages API model), set up by `muster install claude`: its PermissionRequest hook makes the
// member `needs-you` in `muster status --json` at once, the alert is drawn on the attached client,
// and once the person allows the command the turn ends `idle`. A Claude Code start costs seconds:
// `pnpm test:long` only.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import {
  type AttachedClient,
  attachClient,
  eventually,
  LONG_TESTS,
  type PrivateTmux,
  startPrivateTmux,
} from "@muster/test-support";
import { afterAll, expect, it } from "vitest";
import { CLAUDE, type ClaudeKit, claudeKit } from "../test/claude.js";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
let kit: ClaudeKit | undefined;
let tmux: PrivateTmux | undefined;
let client: AttachedClient | undefined;
afterAll(async () => {
  client?.close();
  tmux?.kill();
  await new Promise((resolve) => setTimeout(resolve, 500));
  await kit?.close();
});

it.skipIf(!LONG_TESTS)(
  "a real Claude Code at a permission prompt needs you, is alerted on the client, and ends idle",
  async () => {
    kit = await claudeKit([
      {
        call: {
          name: "Bash",
          arguments: { command: "touch made.txt", description: "Make the file" },
        },
      },
      { text: "Made." },
    ]);
    const env = kit.env;
    tmux = startPrivateTmux({ command: "sleep 600", env });
    const pane = tmux
      .tmux(
        "new-window",
        "-d",
        "-P",
        "-F",
        "#{pane_id}",
        "-c",
        kit.repo,
        `${CLAUDE} --permission-mode default`,
      )
      .trim();
    // A real client on a pseudo-terminal, showing the first window (not Claude's).
    const screen = path.join(kit.home, "client-screen");
    client = await attachClient(tmux, screen);
    const drawn = client.drawn;
    const writer = () => {
      const status = JSON.parse(
        execFileSync(process.execPath, [MUSTER, "status", "--json"], {
          cwd: kit!.repo,
          env,
          encoding: "utf8",
        }),
      ) as { members: { label: string; activity: { state: string; signal: string | null } }[] };
      return status.members.find((member) => member.label === "writer");
    };
    const own = () => tmux!.tmux("capture-pane", "-p", "-t", pane);
    await eventually(writer, (member) => member?.activity.state === "idle", "Claude to join idle", {
      attempts: 600,
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${own()}`);
    });

    tmux.tmux("send-keys", "-t", pane, "-l", "make a file");
    await new Promise((resolve) => setTimeout(resolve, 300));
    tmux.tmux("send-keys", "-t", pane, "Enter");
    const waiting = await eventually(
      writer,
      (member) => member?.activity.state === "needs-you",
      "the permission prompt to show as needs-you",
      { attempts: 300 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${own()}`);
    });
    // status may show Claude's own registry's word beside it; the record holds the hook's signal.
    expect(waiting?.activity.signal).toMatch(/^claude\/(permission-request|registry-waiting)$/);
    // Claude's registry may say so before the hook's report lands in the record: wait for it.
    const recorded = async () => {
      const read = await kit!.roster.read();
      return read.ok ? read.members.find((member) => member.label === "writer") : undefined;
    };
    await eventually(
      recorded,
      (record) => record?.activity?.signal === "claude/permission-request",
      "the PermissionRequest hook's report in the record",
    );
    await eventually(drawn, (text) => text.includes("muster: writer needs you"), "the alert drawn");
    expect(existsSync(path.join(kit.repo, "made.txt"))).toBe(false);

    // The person allows it in Claude's pane: the command runs and the turn ends idle. The hook
    // reports the request before Claude draws its dialog, and the dialog drops keys that come too
    // soon after it is drawn (an Enter was lost in 3 of 4 runs at load 16): press Enter once it
    // asks, and again while it still asks.
    await eventually(own, (text) => text.includes("Do you want to proceed?"), "the dialog drawn");
    await eventually(
      async () => {
        tmux!.tmux("send-keys", "-t", pane, "Enter");
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        return own();
      },
      (text) => !text.includes("Do you want to proceed?"),
      "the dialog answered",
      { attempts: 10 },
    );
    const ended = await eventually(
      writer,
      (member) => member?.activity.state === "idle",
      "the turn to end idle once allowed",
      { attempts: 300 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${own()}`);
    });
    expect(ended?.activity.signal).toMatch(/^claude\//);
    expect(existsSync(path.join(kit.repo, "made.txt"))).toBe(true);
  },
  180_000,
);
