// `--json` is the contract for scripts and agents: every command's document is described by a
// JSON Schema in packages/cli/schemas, and what the built CLI prints conforms to it.
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { lineQueue, tmuxEnv } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { check, loadSchemas } from "../test/schema-check.js";
import { COMMANDS } from "./_commands.js";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-schemas-")));
const NOWHERE = ["-L", "muster-test-000000000000"];
const schemas = loadSchemas();
const env = { MUSTER_TEAM_DIR: path.join(scratch, "team"), HOME: scratch };
// A nudger `send` started may still write in the team folder: retried (ENOTEMPTY), as Node does.
afterAll(() => rmSync(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));

function muster(args: string[]): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MUSTER, ...args], {
      cwd: scratch,
      env: tmuxEnv(env),
      stdio: ["ignore", "pipe", "ignore"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.once("close", (status) => resolve({ status, stdout }));
  });
}

/** Run a command with --json; its document, checked against `schema`. */
async function conforms(schema: string, args: string[], status = 0) {
  const result = await muster([...args, "--json"]);
  expect(result.status).toBe(status);
  const document = JSON.parse(result.stdout);
  expect(check(schemas, `${schema}.schema.json`, document)).toEqual([]);
  return document;
}

describe("every command's --json document has a schema, with ok in it", () => {
  const streams = new Set(["mcp"]); // speaks MCP on stdio, not --json
  it.each(Object.keys(COMMANDS).filter((name) => !streams.has(name)))("%s", (name) => {
    const schema = schemas.get(`${name}.schema.json`);
    expect(schema, `packages/cli/schemas/${name}.schema.json`).toBeDefined();
    // Every document is an object with `ok` in it: no bare arrays.
    const parts = (schema?.anyOf as Record<string, unknown>[] | undefined) ?? [schema];
    expect(parts.length).toBeGreaterThan(0);
    for (const part of parts) {
      expect(part?.type).toBe("object");
      expect(part?.required).toContain("ok");
    }
  });

  it("every schema file parses and every $ref resolves", () => {
    for (const name of schemas.keys()) expect(() => check(schemas, name, {})).not.toThrow();
  });

  it("the checker notices a document that drifts from its schema", () => {
    expect(
      check(schemas, "leave.schema.json", { ok: true, id: "a", left: true, label: "alice" }),
    ).toEqual([]);
    expect(check(schemas, "leave.schema.json", { id: "a", left: "yes", extra: 1 })).toEqual([
      '$: "ok" is missing',
      '$: "label" is missing',
      '$.left: is "yes", not true',
      '$: "extra" is not in the schema',
    ]);
  });
});

describe("what the CLI prints conforms", () => {
  it("the team's commands, mail and refusals", async () => {
    await conforms("roster", ["roster"]);
    await conforms("join", ["join", "alice", "--id", "a1", ...NOWHERE]);
    await conforms("join", ["join", "Bob", "--id", "b1", "--wake", ...NOWHERE]);
    await conforms("heartbeat", ["heartbeat", "--id", "a1"]);
    await conforms("status", ["status", ...NOWHERE]);
    await conforms("agents", ["agents", ...NOWHERE]);
    const sent = await conforms("send", ["send", "bob", "hello", "--id", "a1"]);
    await conforms("send", ["send", "all", "again", "--id", "a1", "--reply-to", sent.id]);
    await conforms("inbox", ["inbox", "--id", "b1", "--peek"]);
    await conforms("inbox-all", ["inbox", "--all", "--id", "b1"]);
    await conforms("inbox", ["inbox", "--id", "b1"]);
    await conforms("roster", ["roster", "--all"]);
    await conforms("error", ["send", "nobody", "hi", "--id", "a1"], 1);
    await conforms("error", ["heartbeat", "--id", "stranger"], 1);
    await conforms("error", ["seat", "--pane", "%999", ...NOWHERE], 1);
    await conforms("doctor", ["doctor", ...NOWHERE], 1);
    await conforms("leave", ["leave", "--id", "b1"]);
    await conforms("prune", ["prune"]);
  });

  it("inbox --follow --json: each line is a message document", async () => {
    const child = spawn(process.execPath, [MUSTER, "inbox", "--follow", "--json", "--id", "a1"], {
      cwd: scratch,
      env: tmuxEnv(env),
      stdio: ["ignore", "pipe", "ignore"],
    });
    const lines = lineQueue(child.stdout);
    await conforms("join", ["join", "carol", "--id", "c1", ...NOWHERE]);
    await conforms("send", ["send", "alice", "followed", "--id", "c1"]);
    const line = JSON.parse(await lines.next());
    expect(line.body).toBe("followed");
    expect(check(schemas, "inbox-follow.schema.json", line)).toEqual([]);
    child.kill("SIGTERM");
  });
});
