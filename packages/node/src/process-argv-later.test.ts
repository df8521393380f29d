// readProcessTable({ argvLater: true }): each row's argv read from /proc when first asked, not in
// the pass over every process (a cmdline read is most of that pass: `muster agents` asks for the
// argv of the processes in its panes only). A row whose process is gone, or whose pid is another
// process's by then, answers an empty argv, never another process's command line.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { readProcessTable } from "./index.js";

describe("readProcessTable argvLater", () => {
  it("answers the same rows as the whole read", async () => {
    const [later, now] = [await readProcessTable({ argvLater: true }), await readProcessTable()];
    if (!later.ok || !now.ok || later.source !== "proc") return;
    const mine = (table: typeof now) => table.processes.find((row) => row.pid === process.pid);
    expect({ ...mine(later) }).toEqual({ ...mine(now) });
    expect(mine(later)?.argv).toEqual(mine(now)?.argv);
  });

  it("answers an empty argv for a process gone before it was asked", async () => {
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    await once(child, "spawn");
    const later = await readProcessTable({ argvLater: true });
    if (!later.ok || later.source !== "proc") return child.kill();
    const row = later.processes.find((each) => each.pid === child.pid);
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(row?.argv).toEqual([]);
  });
});
