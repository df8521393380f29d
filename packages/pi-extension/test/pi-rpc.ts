// A real pi host in RPC mode for the extension's tests: its own HOME and TMPDIR, --offline, no key,
// the faux model, and this package's built extension (or any other source given with `extension`).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const here = import.meta.dirname;
export const PI_CLI = path.join(
  here,
  "..",
  "node_modules",
  "@earendil-works",
  "pi-coding-agent",
  "dist",
  "bundle",
  "cli.js",
);
export const EXTENSION = path.join(here, "..", "dist", "muster", "index.js");
const FAUX = path.join(here, "faux-extension.ts");
/**
 * pi turns on Node's compile cache in the temp folder, and each test pi has a throwaway one: every
 * start compiled pi anew (0.45 s more CPU a start, measured, on a machine where tests wait on
 * CPU). One folder for every test pi, as a user's pi keeps one in its temp folder.
 */
const PI_COMPILE_CACHE = path.join(here, "..", "node_modules", ".cache", "pi-compile-cache");

export type PiRecord = { type: string; [key: string]: unknown };

export type PiOptions = {
  cwd: string;
  sessionId?: string;
  args?: string[];
  env?: Record<string, string | undefined>;
  script?: unknown[];
  extension?: string;
  /**
   * Run pi without root's capabilities, so file modes bind it as they bind any user (a folder
   * without read permission is then unreadable to it). Needs `setpriv` when the tests run as root.
   */
  unprivileged?: boolean;
};

/** The command that starts node, stripped of root's capabilities where asked and needed. */
function nodeCommand(unprivileged: boolean | undefined): [string, string[]] {
  if (!unprivileged || process.getuid?.() !== 0) return [process.execPath, []];
  return ["setpriv", ["--bounding-set=-all", "--inh-caps=-all", process.execPath]];
}

export class Pi {
  readonly child: ChildProcess;
  readonly records: PiRecord[] = [];
  readonly home: string;
  private buffer = "";
  private waiters: { test: (record: PiRecord) => boolean; resolve: (record: PiRecord) => void }[] =
    [];
  private requests = 0;
  stderr = "";

  constructor(options: PiOptions) {
    this.home = mkdtempSync(path.join(tmpdir(), "muster-pi-home-"));
    const temp = path.join(this.home, "tmp");
    mkdirSync(temp);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: this.home,
      TMPDIR: temp,
      MUSTER_FAUX_SCRIPT: JSON.stringify(options.script ?? []),
      NODE_COMPILE_CACHE: PI_COMPILE_CACHE,
      ...options.env,
    };
    const [command, prefix] = nodeCommand(options.unprivileged);
    this.child = spawn(
      command,
      [
        ...prefix,
        PI_CLI,
        "--mode",
        "rpc",
        "--offline",
        "--session-id",
        options.sessionId ?? crypto.randomUUID(),
        "-e",
        options.extension ?? EXTENSION,
        "-e",
        FAUX,
        "--provider",
        "faux",
        "--model",
        "faux-1",
        ...(options.args ?? []),
      ],
      { cwd: options.cwd, env, stdio: ["pipe", "pipe", "pipe"] },
    );
    // The throwaway home goes with the process: 4,200 of them had gathered in the temp folder in
    // a day of test runs.
    this.child.once("exit", () => this.removeHome());
    this.child.stdout!.setEncoding("utf8").on("data", (chunk: string) => this.read(chunk));
    this.child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr += chunk;
    });
  }

  /** RPC framing: split on LF only (readline would also split on U+2028). */
  private read(chunk: string) {
    this.buffer += chunk;
    for (
      let newline = this.buffer.indexOf("\n");
      newline >= 0;
      newline = this.buffer.indexOf("\n")
    ) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, "");
      this.buffer = this.buffer.slice(newline + 1);
      if (!line) continue;
      const record = JSON.parse(line) as PiRecord;
      this.records.push(record);
      this.waiters = this.waiters.filter((waiter) => {
        if (!waiter.test(record)) return true;
        waiter.resolve(record);
        return false;
      });
    }
  }

  /** The first record (already seen, or still to come) that passes the test. */
  waitFor(
    test: (record: PiRecord) => boolean,
    what: string,
    timeoutMs = 45_000,
  ): Promise<PiRecord> {
    const seen = this.records.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`pi: timed out waiting for ${what}; stderr: ${this.stderr.slice(-2000)}`),
          ),
        timeoutMs,
      );
      this.waiters.push({
        test,
        resolve: (record) => {
          clearTimeout(timer);
          resolve(record);
        },
      });
    });
  }

  /** Send a command and wait for its response. */
  async command(command: Record<string, unknown>): Promise<PiRecord> {
    this.requests += 1;
    const id = `req-${this.requests}`;
    this.child.stdin!.write(`${JSON.stringify({ id, ...command })}\n`);
    return this.waitFor(
      (record) => record.type === "response" && record.id === id,
      `the response to ${JSON.stringify(command)}`,
    );
  }

  prompt(message: string) {
    return this.command({ type: "prompt", message });
  }

  /** Notifications the extension sent, in order. */
  notices(): string[] {
    return this.records
      .filter((record) => record.type === "extension_ui_request" && record.method === "notify")
      .map((record) => String(record.message));
  }

  statuses(): string[] {
    return this.records
      .filter(
        (record) =>
          record.type === "extension_ui_request" &&
          record.method === "setStatus" &&
          record.statusKey === "muster",
      )
      .map((record) => String(record.statusText));
  }

  /** Close stdin: pi shuts down in order (session_shutdown fires). */
  async close(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((resolve) =>
      this.child.once("exit", (code) => resolve(code)),
    );
    this.child.stdin!.end();
    return exited;
  }

  kill() {
    this.child.kill("SIGKILL");
    // At once too: a test run may end before the exit event is heard.
    this.removeHome();
  }

  private removeHome() {
    try {
      rmSync(this.home, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // still being written as the process dies: left to the temp folder's own clean-up
    }
  }
}
