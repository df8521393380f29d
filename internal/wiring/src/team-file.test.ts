// muster.toml's team, refused as `muster up`, `down` and the dashboard say it: what is wrong, its
// line, then the fix, once. A throwaway repository's muster.toml, read by the wiring's readTeamFile.
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { errorLine } from "@muster/core";
import { afterAll, expect, test } from "vitest";
import { readTeamFile } from "./team-file.ts";

const repo = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-team-file-")));
execFileSync("git", ["init", "-q", repo]);
afterAll(() => rmSync(repo, { recursive: true, force: true }));

test.each([
  ["a key it does not know", '[[member]]\nlabel = "a"\nengine = "pi"\ncomand = "x"\n', 4],
  [
    "a label twice",
    '[[member]]\nlabel = "a"\nengine = "pi"\n[[member]]\nlabel = "A"\nengine = "pi"\n',
    4,
  ],
  ["no engine", '[[member]]\nlabel = "a"\n', 1],
  ["an engine it cannot start", '[[member]]\nlabel = "a"\nengine = "bash"\n', 3],
  ["a label that is not one", '[[member]]\nlabel = "../x"\nengine = "pi"\n', 2],
  ["args beyond the model", '[[member]]\nlabel = "a"\nengine = "pi"\nargs = ["-e", "x"]\n', 4],
  ["text that is not TOML", 'x = 1\n[[member]\nlabel = "a"\n', 2],
])("%s: its line, then the fix once", async (_what, text, line) => {
  writeFileSync(path.join(repo, "muster.toml"), text);
  const team = await readTeamFile({ cwd: repo, env: {} });
  expect(team.ok).toBe(false);
  if (team.ok) return;
  expect(team.error).toContain(`(line ${line})`);
  expect(team.error).not.toContain(team.fix);
  expect(team.error).not.toContain("undefined");
  const said = errorLine(team);
  expect(said.split(team.fix)).toHaveLength(2);
});
