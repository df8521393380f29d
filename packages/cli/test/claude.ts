// A real Claude Code 2.1.332 for the tests, offline: a throwaway home (test-support's claudeHome)
// set up by `muster install claude`, the scripted Messages API server as its model. Beside it, a
// real pi in RPC mode (the faux model, its own HOME) as the team member it talks to.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import type { Roster } from "@muster/roster";
import {
  claudeHome,
  type MessagesStep,
  type ScriptedMessages,
  startScriptedMessages,
} from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";

export const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
export const CLAUDE = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "claude");
const PI_PACKAGE = path.resolve(import.meta.dirname, "..", "..", "pi-extension");
const PI_CLI = path.join(
  PI_PACKAGE,
  "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js",
);
const EXTENSION = path.join(PI_PACKAGE, "dist", "muster", "index.js");
const FAUX = path.join(PI_PACKAGE, "test", "faux-extension.ts");

export type ClaudeKit = {
  home: string;
  repo: string;
  roster: Roster;
  model: ScriptedMessages;
  /** The environment Claude Code runs in. */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
};

/**
 * A home configured by `muster install claude`, and the scripted model it talks to; the team folder
 * is the home's own unless `teamDir` names another (a team shared with other engines).
 */
export async function claudeKit(
  script: MessagesStep[],
  label = "writer",
  teamDir?: string,
): Promise<ClaudeKit> {
  const model = await startScriptedMessages(script);
  const { home, repo, env } = claudeHome({ baseUrl: model.baseUrl, label, teamDir });
  execFileSync(process.execPath, [MUSTER, "install", "claude"], { cwd: repo, env });
  return {
    home,
    repo,
    roster: await openTestTeam(env.MUSTER_TEAM_DIR!),
    model,
    env,
    close: async () => {
      await model.close();
      // Claude Code's and pi's last writes may still land as they exit.
      rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

export type PiRecord = { type: string; [key: string]: unknown };

/** A real pi in RPC mode on the kit's team, joined as `label` with mail that wakes it. */
export function piMember(kit: ClaudeKit, label: string, script: unknown[] = []) {
  const home = path.join(kit.home, `pi-${label}`);
  mkdirSync(path.join(home, "tmp"), { recursive: true });
  const child: ChildProcess = spawn(
    process.execPath,
    [
      PI_CLI,
      "--mode",
      "rpc",
      "--offline",
      "-e",
      EXTENSION,
      "-e",
      FAUX,
      "--provider",
      "faux",
      "--model",
      "faux-1",
      "--muster-label",
      label,
    ],
    {
      cwd: kit.repo,
      env: {
        PATH: kit.env.PATH,
        HOME: home,
        TMPDIR: path.join(home, "tmp"),
        MUSTER_TEAM_DIR: kit.env.MUSTER_TEAM_DIR,
        MUSTER_FAUX_SCRIPT: JSON.stringify(script),
      },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  const records: PiRecord[] = [];
  let buffer = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      if (line.trim()) records.push(JSON.parse(line) as PiRecord);
    }
  });
  child.stderr!.resume();
  let requests = 0;
  return {
    records,
    command(command: Record<string, unknown>) {
      requests += 1;
      child.stdin!.write(`${JSON.stringify({ id: `req-${requests}`, ...command })}\n`);
    },
    /** Mail the extension pushed into the session. */
    mail: () =>
      records.filter(
        (record) =>
          record.type === "message_start" &&
          (record.message as { customType?: string })?.customType === "muster-mail",
      ),
    kill: () => child.kill("SIGKILL"),
  };
}

/** Run `claude -p` to its end in the kit's repository. */
export function claudePrint(kit: ClaudeKit, prompt: string, timeoutMs = 60_000) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(CLAUDE, ["-p", "--dangerously-skip-permissions", prompt], {
      cwd: kit.repo,
      env: kit.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** The text a request's messages carry, for asserts on what the model was shown. */
export const requestText = (body: Record<string, unknown>) => JSON.stringify(body.messages ?? []);
