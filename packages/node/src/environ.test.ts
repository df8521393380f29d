import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { processEnviron, processStart } from "./index.js";

describe("processEnviron: a process's environment at its start", () => {
  it.runIf(process.platform === "linux")(
    "reads the block its starter gave it, with its start time read after",
    async () => {
      const child = spawn("sleep", ["30"], {
        env: { PATH: process.env.PATH, MUSTER_LABEL: "bob" },
      });
      try {
        const pid = child.pid!;
        const read = processEnviron(pid);
        expect(read).toEqual({ ok: true, environ: expect.any(String), start: processStart(pid) });
        if (read.ok) expect(read.environ.split("\0")).toContain("MUSTER_LABEL=bob");
      } finally {
        child.kill("SIGKILL");
      }
    },
  );

  it("a process that is gone, or no pid at all, is unreadable, not an empty environment", async () => {
    const child = spawn("true");
    const pid = child.pid!;
    await new Promise((resolve) => child.once("exit", resolve));
    const gone = process.platform === "linux" ? "unreadable" : "unsupported";
    expect(processEnviron(pid)).toEqual({ ok: false, reason: gone });
    expect(processEnviron(-1)).toEqual({ ok: false, reason: gone });
  });
});
