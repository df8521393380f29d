// A real npm registry on loopback for the replays: verdaccio (pinned in tools/package.json) on
// 127.0.0.1 at a free port, its config, storage, users and log in a folder of the caller's, and no
// uplink at all — what is not published to it is not there, so an install that needs anything
// else fails here as it would for a user. A user is created at start; its token lets `pnpm
// release` publish with no real npm token (`releaseTo`). Ended by pid (`stop`), whatever happened.
import { type ChildProcess, spawn } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { bounded } from "./replay-steps.ts";

export type LocalRegistry = {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  /** The npmrc key its auth lines take: `//127.0.0.1:PORT/`. */
  host: string;
  /** A token that may publish. */
  token: string;
  /** Where the published tarballs lie: `<storage>/@scope/name/name-version.tgz`. */
  storage: string;
  /** The server's pid. */
  pid: number;
  /** Ends the server (SIGTERM, then SIGKILL after 5 s) and waits for it. */
  stop: () => Promise<void>;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A port nothing listens on now (the registry takes it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

function verdaccioBin(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("verdaccio/package.json");
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: string };
  return path.join(path.dirname(manifest), bin);
}

const ended = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });

/** Starts the registry in `folder` (created); throws with its log when it does not answer in 30 s. */
export async function startLocalRegistry(folder: string): Promise<LocalRegistry> {
  mkdirSync(folder, { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = path.join(folder, "config.yaml");
  const storage = path.join(folder, "storage");
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(storage)}`,
      `auth: { htpasswd: { file: ${JSON.stringify(path.join(folder, "htpasswd"))} } }`,
      "uplinks: {}",
      "packages: { '**': { access: $all, publish: $authenticated, unpublish: $authenticated } }",
      "web: { enable: false }",
      "max_body_size: 100mb",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  const log = path.join(folder, "verdaccio.log");
  const out = openSync(log, "a");
  const child = spawn(process.execPath, [verdaccioBin(), "--config", config, "--listen", url], {
    stdio: ["ignore", out, out],
  });
  closeSync(out);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await Promise.race([ended(child), sleep(5_000)]);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await ended(child);
    }
  };
  const failed = async (why: string) => {
    await stop();
    return new Error(
      `verdaccio ${why}: ${readFileSync(log, "utf8").trim().split("\n").slice(-10).join(" | ")}`,
    );
  };
  for (let waited = 0; ; waited += 200) {
    if (child.exitCode !== null) throw await failed(`exited ${child.exitCode} at start`);
    const ping = await fetch(`${url}-/ping`).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ping) break;
    if (waited >= 30_000) throw await failed("did not answer /-/ping in 30 s");
    await sleep(200);
  }
  const answer = await fetch(`${url}-/user/org.couchdb.user:release`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "release", password: "release-on-loopback", type: "user" }),
  });
  const { token } = (await answer.json()) as { token?: string };
  if (!token) throw await failed(`gave no token for a new user (HTTP ${answer.status})`);
  return { url, host: `//127.0.0.1:${port}/`, token, storage, pid: child.pid!, stop };
}

/**
 * The repository's own `pnpm release` (build, package checks, changeset publish), with
 * --no-git-tag, to the registry: its .npmrc in `home`, a HOME of the release's own. @muster's
 * packages go to the registry; the rest (what the package checks install) come from the machine's
 * registry as always, with its npm cache. The names it published; throws with its last lines.
 */
export async function releaseTo(
  to: LocalRegistry,
  options: { root: string; home: string; seconds: number },
): Promise<string[]> {
  mkdirSync(options.home, { recursive: true });
  writeFileSync(
    path.join(options.home, ".npmrc"),
    `@muster:registry=${to.url}\n${to.host}:_authToken=${to.token}\n`,
  );
  const noProxy = [process.env.NO_PROXY ?? process.env.no_proxy, "127.0.0.1"]
    .filter(Boolean)
    .join(",");
  // Its whole output, kept apart from the caller's folder (removed when the release passes).
  const log = path.join(tmpdir(), `muster-release-${process.pid}.log`);
  const done = await bounded(path.join(options.root, "pnpmw"), ["release", "--no-git-tag"], {
    cwd: options.root,
    env: {
      ...process.env,
      HOME: options.home,
      npm_config_cache: process.env.npm_config_cache ?? path.join(homedir(), ".npm"),
      NO_PROXY: noProxy,
      no_proxy: noProxy,
    },
    seconds: options.seconds,
    log,
  });
  if (done.status !== 0) {
    // changeset's spinner redraws one line: its frames are dropped from the message.
    const said = stripVTControlCharacters(`${done.stdout}${done.stderr}`).replaceAll("\r", "\n");
    const last = said
      .split("\n")
      .filter((line) => line.trim() && !/Publishing packages/.test(line))
      .slice(-20);
    throw new Error(`exit ${done.status} (all of it in ${log}): ${last.join("\n")}`);
  }
  rmSync(log, { force: true });
  return readdirSync(path.join(to.storage, "@muster")).map((name) => `@muster/${name}`);
}
