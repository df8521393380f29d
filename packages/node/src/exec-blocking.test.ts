// runProgram blocking (spawnSync) answers as the evented run (execFile) does, case for case: a
// short-lived command may take either and read the same status, output and timeout.
import { describe, expect, it } from "vitest";
import { runProgram } from "./_exec.js";

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
});
