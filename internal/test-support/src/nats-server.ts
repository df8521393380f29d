// A real nats-server for tests: `nats-server -js` on a free loopback port with a temporary store
// folder, started from a config file this helper writes, ready once it prints "Server is ready",
// and ended by its pid. Also a three-node cluster (routes on loopback) for the fault tests. Every
// server a test starts is killed by pid: `stop()` on each, and an exit hook for a test that threw
// before it could.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { findNatsServer, INSTALL_NATS_SERVER, natsServerLookedIn } from "./find-nats-server.ts";

export type NatsServer = {
  /** `nats://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** The server's pid: what `stop()` kills. */
  pid: number;
  /** The folder holding the config and the JetStream store. */
  dir: string;
  /** Everything the server printed so far (its log goes to stderr). */
  log(): string;
  /** End the server (SIGKILL by pid) and wait for its exit; the store folder stays for `restart`. */
  kill(): Promise<void>;
  /** Start it again on the same port and store (after `kill`). */
  restart(): Promise<void>;
  /** End it and remove its folder. Safe to call twice. */
  stop(): Promise<void>;
};

export type NatsServerOptions = {
  /** More config text, appended as is (accounts, users, TLS). */
  config?: string | undefined;
  /**
   * The whole config text instead, for the port and store folder chosen here (a configuration
   * a test had muster print, say). `config` is then ignored.
   */
  whole?: ((port: number, storeDir: string) => string | Promise<string>) | undefined;
  /** How long to wait for "Server is ready" (default 15 s). */
  readyMs?: number | undefined;
};

/** The nats-server to run; throws, saying what to do, where there is none. */
export function natsServerPath(): string {
  const found = findNatsServer();
  if (found) return found;
  throw new Error(`no nats-server (looked in ${natsServerLookedIn()}): ${INSTALL_NATS_SERVER}`);
}

/** Whether nats-server can be run here, and its version line. */
export function natsServerVersion(): string | undefined {
  const found = findNatsServer();
  try {
    return found ? execFileSync(found, ["--version"], { encoding: "utf8" }).trim() : undefined;
  } catch {
    return undefined;
  }
}

/** A loopback port nothing listens on now (the kernel's pick, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) if (child.pid) process.kill(child.pid, "SIGKILL");
});

/** Spawn nats-server on `configFile` and wait for its ready line (or its exit, or the deadline). */
function launch(configFile: string, readyMs: number, log: string[]): Promise<ChildProcess> {
  const child = spawn(natsServerPath(), ["-c", configFile], { stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  child.once("exit", () => running.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid) process.kill(child.pid, "SIGKILL");
      reject(new Error(`nats-server was not ready in ${readyMs} ms:\n${log.join("")}`));
    }, readyMs);
    const onData = (chunk: Buffer) => {
      log.push(chunk.toString("utf8"));
      if (log.join("").includes("Server is ready")) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited (${code ?? signal}) before ready:\n${log.join("")}`));
    });
  });
}

function killAndWait(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  process.kill(child.pid, "SIGKILL");
  return exited;
}

/** One server from its whole config text, written beside its store. */
async function serverFrom(
  dir: string,
  port: number,
  configText: string,
  readyMs: number,
): Promise<NatsServer> {
  const configFile = path.join(dir, "nats.conf");
  writeFileSync(configFile, configText, { mode: 0o600 });
  const log: string[] = [];
  let child: ChildProcess | undefined = await launch(configFile, readyMs, log);
  let stopped = false;
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    get pid() {
      return child?.pid ?? 0;
    },
    dir,
    log: () => log.join(""),
    async kill() {
      await killAndWait(child);
      child = undefined;
    },
    async restart() {
      await killAndWait(child);
      child = await launch(configFile, readyMs, log);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await killAndWait(child);
      child = undefined;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Start `nats-server -js` on a free loopback port with a temporary store folder. */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-nats-"));
  const port = await freePort();
  try {
    const config = options.whole
      ? await options.whole(port, path.join(dir, "js"))
      : [
          `listen: "127.0.0.1:${port}"`,
          `jetstream { store_dir: ${JSON.stringify(path.join(dir, "js"))} }`,
          options.config ?? "",
        ].join("\n");
    return await serverFrom(dir, port, config, options.readyMs ?? 15_000);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

export type NatsCluster = {
  /** The three nodes, in order; kill and restart one to test a fault. */
  nodes: NatsServer[];
  /** Every node's URL, for a client that fails over. */
  urls: string[];
  /** End every node and remove their folders. */
  stop(): Promise<void>;
};

/**
 * Three JetStream nodes routed to each other on loopback (cluster `muster-test`), each with its
 * own store folder. Ready once every node printed "Server is ready"; JetStream's meta leader may
 * take a moment more, which a client's first request waits out.
 */
export async function startNatsCluster(options: NatsServerOptions = {}): Promise<NatsCluster> {
  const ports = await Promise.all([0, 1, 2].map(() => freePort()));
  const routes = await Promise.all([0, 1, 2].map(() => freePort()));
  const dirs = ports.map(() => mkdtempSync(path.join(tmpdir(), "muster-nats-node-")));
  const nodes: NatsServer[] = [];
  try {
    const started = ports.map((port, index) => {
      const config = [
        `server_name: "n${index}"`,
        `listen: "127.0.0.1:${port}"`,
        `jetstream { store_dir: ${JSON.stringify(path.join(dirs[index]!, "js"))} }`,
        "cluster {",
        '  name: "muster-test"',
        `  listen: "127.0.0.1:${routes[index]}"`,
        `  routes: [${routes.map((route) => `"nats://127.0.0.1:${route}"`).join(", ")}]`,
        "}",
        options.config ?? "",
      ].join("\n");
      return serverFrom(dirs[index]!, port, config, options.readyMs ?? 30_000).then((node) => {
        nodes.push(node);
        return node;
      });
    });
    const ready = await Promise.all(started);
    return {
      nodes: ready,
      urls: ready.map((node) => node.url),
      stop: async () => {
        await Promise.all(ready.map((node) => node.stop()));
      },
    };
  } catch (error) {
    await Promise.all(nodes.map((node) => node.stop()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
