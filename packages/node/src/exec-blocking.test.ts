// runProgram blocking (spawnSync) and alongside (output to unlinked files, the caller's own
// synchronous work done meanwhile) answer as the evented run (execFile) does, case for case: a
// short-lived command may take any and read the same status, output and timeout.
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { runProgram } from "./_exec.js";
import { runAlongside } from "./_run-alongside.js";

const cases: [string, string, string[], { timeoutMs?: number }][] = [
  ["a clean exit with output on both streams", "sh", ["-c", "echo out; echo err >&2"], {}],
  ["a refusal's status", "sh", ["-c", "echo out; exit 3"], {}],
  ["a program that is not there", "muster-no-such-program", [], {}],
  ["a child killed by a signal", "sh", ["-c", "echo before; kill -9 $$"], {}],
  [
    "a child that outlives its timeout",
    "sh",
    ["-c", "echo started; exec sleep 5"],
    { timeoutMs: 200 },
  ],
];

describe("runProgram blocking", () => {
  it.each(cases)("answers as the evented run does: %s", async (_name, binary, args, options) => {
    const evented = await runProgram(binary, args, options);
    const blocking = await runProgram(binary, args, { ...options, blocking: true });
    expect(blocking).toEqual(evented);
  });

  it.each(cases)(
    "alongside answers as the evented run does: %s",
    async (_name, binary, args, options) => {
      const evented = await runProgram(binary, args, options);
      const alongside = await runAlongside(binary, args, options);
      expect(alongside).toEqual(evented);
    },
  );
});

describe("runAlongside", () => {
  it("runs while the caller's synchronous work goes on, and leaves no file behind", async () => {
    const before = readdirSync(tmpdir()).filter((name) => name.startsWith("muster-run-"));
    const running = runAlongside("sh", ["-c", "sleep 0.3; echo done"]);
    // Started at the call: it is in the process table before this process waits on anything.
    const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8");
    expect(children.trim()).not.toBe("");
    const started = Date.now();
    while (Date.now() - started < 300); // this process's own work, while the child sleeps
    const answer = await running;
    expect(answer).toEqual({ status: 0, stdout: "done\n", stderr: "" });
    expect(Date.now() - started).toBeLessThan(280 + 300);
    const after = readdirSync(tmpdir()).filter((name) => name.startsWith("muster-run-"));
    expect(after).toEqual(before);
  });

  it("the child writes to a file, not a pipe: no stream is made for its output", async () => {
    const answer = await runAlongside("sh", ["-c", "readlink /proc/self/fd/1 /proc/self/fd/2"]);
    expect(answer.stdout).not.toMatch(/pipe:/);
    expect(answer.stdout).toMatch(/muster-run-.* \(deleted\)\n.*muster-run-.* \(deleted\)\n$/);
  });

  it("a large answer is read whole (past a pipe's 64 kB)", async () => {
    const answer = await runAlongside("sh", ["-c", "head -c 300000 /dev/zero | tr '\\0' x"]);
    expect(answer.stdout.length).toBe(300_000);
  });
});
