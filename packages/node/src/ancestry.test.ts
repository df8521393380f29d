// A process's ancestry from /proc: the rows the whole table has for it and each process above
// it, and no other; a pid that is gone gives an empty chain, never someone else's.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readProcessAncestry, readProcessTable } from "./index.js";

describe("readProcessAncestry", () => {
  it("is the chain from a process up to pid 1, each row as the whole table has it", async () => {
    // bash (a child of this test) → sleep: the sleeper's chain runs through bash and this process.
    const shell = spawn("bash", ["-c", "sleep 30 & echo $!; wait"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    let sleeper: number | undefined;
    try {
      sleeper = Number(
        await new Promise<string>((resolve) =>
          shell.stdout!.once("data", (data) => resolve(String(data))),
        ),
      );
      // Until the forked child has run its exec it is still bash, and the two reads below could
      // see it on either side of the exec (seen in CI): read once it is the sleep.
      const name = () => readFileSync(`/proc/${sleeper}/comm`, "utf8").trim();
      for (let tries = 0; tries < 200 && name() !== "sleep"; tries += 1)
        await new Promise((resolve) => setTimeout(resolve, 25));
      const [chain, table] = await Promise.all([readProcessAncestry(sleeper), readProcessTable()]);
      if (!chain.ok || !table.ok) throw new Error("no process table");
      const pids = chain.processes.map((row) => row.pid);
      expect(pids.slice(0, 3)).toEqual([sleeper, shell.pid, process.pid]);
      expect(chain.processes.at(-1)?.ppid).toBe(0);
      for (const row of chain.processes)
        expect(row).toEqual(table.processes.find((other) => other.pid === row.pid));
      // Each row's parent is the next row: nothing that is not above the process.
      for (const [index, row] of chain.processes.slice(0, -1).entries())
        expect(chain.processes[index + 1]?.pid).toBe(row.ppid);
    } finally {
      // Killing bash leaves its background sleep running: it is ended by its own pid.
      if (sleeper) process.kill(sleeper, "SIGKILL");
      shell.kill();
    }
  });

  it("is empty for a process that is not there", async () => {
    const chain = await readProcessAncestry(2 ** 22 + 12345);
    expect(chain).toEqual({ ok: true, processes: [], source: "proc" });
  });
});
