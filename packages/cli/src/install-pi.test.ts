// `muster install pi` with the real pi 1.6.0 (a `pi` on PATH in a throwaway HOME): from a folder
// pi loads the extension (the real pi, started with no -e, answers /team as muster) and doctor says
// so; a .tgz is refused before pi is asked (pi would accept it and then fail at every start), and
// a .tgz pi already has is named by doctor with the fix. The extension npm installed beside muster
// (from a clone) is what pi is given; the real pi loading it from there runs in `pnpm test:long`.
import { execFile, spawn } from "node:child_process";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { LONG_TESTS, tmuxEnv } from "@muster/test-support";
import { afterEach, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const EXTENSION = path.resolve(import.meta.dirname, "..", "..", "pi-extension");
const PI = path.join(
  realpathSync(path.join(EXTENSION, "node_modules", "@earendil-works", "pi-coding-agent")),
  "dist",
  "bundle",
  "cli.js",
);
const execute = promisify(execFile);
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function piHome() {
  const home = mkdtempSync(path.join(tmpdir(), "muster-pi-install-"));
  homes.push(home);
  mkdirSync(path.join(home, "bin"));
  // `pi` as npm's global install gives it, run by this Node (pi needs Node >= 22.19).
  writeFileSync(
    path.join(home, "bin", "pi"),
    `#!/bin/sh\nexec "${process.execPath}" "${PI}" "$@"\n`,
  );
  chmodSync(path.join(home, "bin", "pi"), 0o755);
  const env = tmuxEnv({
    HOME: home,
    TMPDIR: home,
    PI_OFFLINE: "1",
    PI_CODING_AGENT_DIR: undefined,
    MUSTER_TEAM_DIR: path.join(home, "team"),
    PATH: `${path.join(home, "bin")}:/usr/bin:/bin`,
  });
  const muster = (...args: string[]) =>
    execute(process.execPath, [MUSTER, ...args], { cwd: home, env }).then(
      (done) => ({ code: 0, ...done }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  const doctor = async () => {
    const result = await muster("doctor", "--json");
    return (JSON.parse(result.stdout).checks as { name: string }[]).find(
      (check) => check.name === "pi extension",
    );
  };
  return { home, env, muster, doctor };
}

/** The real pi, as the person starts it (no -e), asked /team over RPC: every record until it answers. */
function askPi(env: NodeJS.ProcessEnv, cwd: string) {
  return new Promise<{ type: string; [key: string]: unknown }[]>((resolve, reject) => {
    const pi = spawn(path.join(cwd, "bin", "pi"), ["--mode", "rpc", "--offline"], { cwd, env });
    const records: { type: string; [key: string]: unknown }[] = [];
    let buffer = "";
    const timer = setTimeout(() => {
      pi.kill("SIGKILL");
      reject(new Error(`pi did not answer /team: ${JSON.stringify(records)}`));
    }, 60_000);
    pi.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const line = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 1);
        if (line) records.push(JSON.parse(line));
        if (records.at(-1)?.id === "ask") pi.stdin.end();
      }
    });
    pi.once("close", () => {
      clearTimeout(timer);
      resolve(records);
    });
    pi.stdin.write(`${JSON.stringify({ id: "ask", type: "prompt", message: "/team" })}\n`);
  });
}

/** What muster's /team told the person, if muster's extension answered it. */
const teamSaid = (records: { type: string; [key: string]: unknown }[]) =>
  records.find((record) => record.method === "notify" && /^You are /.test(String(record.message)))
    ?.message;

// pi's own install of the extension, then a real pi loading it (6.2 s in CI's pnpm test):
// `pnpm test:long`. The refusals and the npm source below run in `pnpm test`.
it.skipIf(!LONG_TESTS)(
  "installs the extension from a folder with the real pi, and doctor checks pi will load it",
  async () => {
    const { home, env, muster, doctor } = piHome();
    expect(await doctor()).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/not installed \(muster install pi\)/),
    });
    const dry = await muster("install", "pi", "--dry-run");
    expect(dry.stdout).toMatch(/^pi install npm:@muster\/pi-extension@\d+\.\d+\.\d+$/m);
    const installed = await muster("install", "pi", "--from", EXTENSION);
    expect(installed, installed.stderr).toMatchObject({ code: 0 });
    expect(installed.stdout).toContain(`Ran pi install ${EXTENSION}`);
    expect(installed.stdout).toContain(`pi: pi loads muster's extension from ${EXTENSION}.`);
    expect(readFileSync(path.join(home, ".pi", "agent", "settings.json"), "utf8")).toContain(
      "pi-extension",
    );
    expect(await doctor()).toMatchObject({
      ok: true,
      detail: `pi loads muster's extension from ${EXTENSION}`,
    });
    // The real pi, started as the person starts it, loads what was installed: /team is muster's.
    const loaded = await askPi(env, home);
    expect(loaded.find((record) => record.id === "ask")).toMatchObject({
      success: true,
      data: { disposition: "handled" },
    });
    expect(teamSaid(loaded)).toMatch(/Members \(1\):\n- pi-\S+: pi, /);
    const removed = await muster("install", "pi", "--uninstall");
    expect(removed, removed.stderr).toMatchObject({ code: 0 });
    expect(teamSaid(await askPi(env, home))).toBeUndefined();
    expect(
      JSON.parse(readFileSync(path.join(home, ".pi", "agent", "settings.json"), "utf8")).packages,
    ).toEqual([]);
  },
  120_000,
);

/** The CLI and the extension as `npm install -g` of both tarballs lays them out (from a clone). */
function installedBeside(home: string, extensionVersion: string) {
  const modules = path.join(home, "prefix", "lib", "node_modules", "@muster");
  const cli = path.join(modules, "cli");
  const extension = path.join(modules, "pi-extension");
  for (const entry of ["package.json", "dist"])
    cpSync(path.join(path.dirname(MUSTER), "..", entry), path.join(cli, entry), {
      recursive: true,
    });
  for (const entry of ["dist", "skills"])
    cpSync(path.join(EXTENSION, entry), path.join(extension, entry), { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(EXTENSION, "package.json"), "utf8"));
  writeFileSync(
    path.join(extension, "package.json"),
    JSON.stringify({ ...manifest, version: extensionVersion }),
  );
  return { muster: path.join(cli, "dist", "muster.js"), extension };
}

it("gives pi the extension npm installed beside muster, of its own version, else npm's", async () => {
  const { home, env } = piHome();
  const version = JSON.parse(readFileSync(path.join(EXTENSION, "package.json"), "utf8")).version;
  const dryRun = (muster: string) =>
    execute(process.execPath, [muster, "install", "pi", "--dry-run"], { cwd: home, env });
  const beside = installedBeside(path.join(home, "same"), version);
  expect((await dryRun(beside.muster)).stdout).toContain(`pi install ${beside.extension}\n`);
  const other = installedBeside(path.join(home, "other"), "0.0.1-other");
  expect((await dryRun(other.muster)).stdout).toMatch(
    /^pi install npm:@muster\/pi-extension@\d+\.\d+\.\d+$/m,
  );
}, 30_000);

// The whole install with the real pi: `pnpm test:long` (MUSTER_LONG_TESTS).
it.skipIf(!LONG_TESTS)(
  "the real pi loads the extension from beside muster, with no node_modules of its own",
  async () => {
    const { home, env, doctor } = piHome();
    const version = JSON.parse(readFileSync(path.join(EXTENSION, "package.json"), "utf8")).version;
    const { muster, extension } = installedBeside(home, version);
    const installed = await execute(process.execPath, [muster, "install", "pi"], {
      cwd: home,
      env,
    });
    expect(installed.stdout).toContain(`Ran pi install ${extension}`);
    expect(await doctor()).toMatchObject({
      ok: true,
      detail: `pi loads muster's extension from ${extension}`,
    });
    // pi gives its extensions their peers (pi itself, typebox): none are installed beside it.
    expect(teamSaid(await askPi(env, home))).toMatch(/Members \(1\):\n- pi-\S+: pi, /);
  },
  120_000,
);

it("refuses a .tgz before pi sees it, and doctor names one pi already has, with the fix", async () => {
  const { home, muster, doctor } = piHome();
  const refused = await muster("install", "pi", "--from", "./muster-pi-extension-0.1.0.tgz");
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/fails at every start: unpack it and pass the folder/);
  mkdirSync(path.join(home, ".pi", "agent"), { recursive: true });
  writeFileSync(
    path.join(home, ".pi", "agent", "settings.json"),
    JSON.stringify({ packages: ["../../muster-pi-extension-0.1.0.tgz"] }),
  );
  expect(await doctor()).toMatchObject({
    ok: false,
    detail: expect.stringMatching(/fails at every start/),
    fix: "pi remove ../../muster-pi-extension-0.1.0.tgz && muster install pi",
  });
});

it("without pi on PATH it says how to get pi, and the command to run", async () => {
  const { home, muster } = piHome();
  rmSync(path.join(home, "bin", "pi"));
  const result = await muster("install", "pi", "--json");
  expect(result.code).toBe(1);
  expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, reason: "no-pi" });
  expect(result.stderr).toMatch(
    /pi is not on PATH: install pi \(npm install -g @earendil-works\/pi-coding-agent\), then run pi install npm:@muster\/pi-extension@\d/,
  );
}, 30_000);

it("--uninstall with muster's extension not in pi's settings removes nothing and says so, pi or not", async () => {
  const { home, muster } = piHome();
  rmSync(path.join(home, "bin", "pi"));
  const result = await muster("install", "pi", "--uninstall", "--json");
  expect(result.code, result.stderr).toBe(0);
  expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, commands: [] });
  const plain = await muster("install", "pi", "--uninstall");
  expect(plain.stdout).toMatch(/muster's extension is not in .*settings\.json: nothing to remove/);
}, 30_000);
