// Test wiring: a team folder, members joined straight through the roster, a fake engine (a shell
// script named like the engine, so discovery recognises it), and the SDK's own client talking to
// the built server over stdio.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Roster } from "@muster/roster";
import { joinAsThisProcess, openTestTeam } from "@muster/test-team";
import { afterEach } from "vitest";

export const SERVE = path.join(import.meta.dirname, "serve.mjs");

export type Scratch = { dir: string; teamDir: string; bin: string; cleanup(): void };

/**
 * What to undo after each test of the file calling this, last first. Every cleanup runs even when
 * one fails: a skipped tmux kill or server close would leave a fake engine running.
 */
export function cleanupAfterEach(): (() => unknown)[] {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse())
      await Promise.resolve()
        .then(cleanup)
        .catch(() => undefined);
  });
  return cleanups;
}

/** A scratch folder, removed with the test's other cleanups. */
export function scratchUntil(cleanups: (() => unknown)[]): Scratch {
  const work = scratch();
  cleanups.push(() => work.cleanup());
  return work;
}

export function scratch(): Scratch {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-mcp-"));
  return {
    dir,
    teamDir: path.join(dir, "team"),
    bin: path.join(dir, "bin"),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export const roster = (teamDir: string): Promise<Roster> => openTestTeam(teamDir);

/** A member kept live by this test process; its id is `peer-<label>`. */
export const joinPeer = (team: Roster, label: string) => joinAsThisProcess(team, label);

/** A script named `engine` (claude, codex, …) in `folder`: discovery sees a shell running it. */
export function fakeEngine(folder: string, engine: string, body: string): string {
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, engine);
  writeFileSync(file, `#!/bin/bash\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

export type Connected = { client: Client; close(): Promise<void>; stderr: () => string };

/** Start the server through `command` and connect the SDK's client to it. */
export async function connect(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: "muster-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, close: () => client.close(), stderr: () => stderr };
}

type ToolAnswer = { text: string; structured: Record<string, unknown>; isError: boolean };

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  meta?: Record<string, unknown>,
): Promise<ToolAnswer> {
  const answer = await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) });
  const content = answer.content as { type: string; text: string }[];
  return {
    text: content.map((part) => part.text).join("\n"),
    structured: (answer.structuredContent ?? {}) as Record<string, unknown>,
    isError: answer.isError === true,
  };
}
