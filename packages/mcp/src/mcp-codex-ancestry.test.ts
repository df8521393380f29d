// A Codex that starts the server as its own child (`codex exec`, `codex --no-daemon`): the server
// has its caller's own environment, so its MUSTER_LABEL answers, and no check of the Codex
// processes decides against it. A tool the agent runs under it may be codex-named and carry another
// label (`MUSTER_LABEL=mallory exec -a codex sleep`): it never costs the caller its label. A
// stand-in Codex (a script named codex) with a real codex-named child.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  call,
  cleanupAfterEach,
  connect,
  fakeEngine,
  SERVE,
  scratchUntil,
} from "../test/helpers.ts";

const cleanups = cleanupAfterEach();

describe("a Codex whose server is its own child (ancestry)", () => {
  it("joins as the server's MUSTER_LABEL while a codex-named tool under it names another", async () => {
    const work = scratchUntil(cleanups);
    const toolPid = path.join(work.bin, "tool.pid");
    const codex = fakeEngine(
      work.bin,
      "codex",
      [
        `MUSTER_LABEL=mallory bash -c 'exec -a codex sleep 60' & echo $! > '${toolPid}'`,
        `"${process.execPath}" "${SERVE}"`,
        `kill $(cat '${toolPid}')`,
      ].join("\n"),
    );
    cleanups.push(() => {
      try {
        process.kill(Number(readFileSync(toolPid, "utf8")), "SIGKILL");
      } catch {
        // ended with the stand-in
      }
    });
    const connected = await connect(codex, [], {
      MUSTER_TEAM_DIR: work.teamDir,
      MUSTER_LABEL: "bob",
    });
    cleanups.push(() => connected.close());
    const first = await call(connected.client, "team_roster");
    expect(first.structured.you).toMatchObject({ label: "bob", joined: true });
  });
});
