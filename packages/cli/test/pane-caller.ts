// `muster` run from a new shell pane of a private tmux server: the pane is the command's seat, as
// it is for a person at a terminal. Its stdout and exit status come back through files; its stderr
// too, or (`stderrToPane`) it goes to the pane's terminal, whose screen comes back instead.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eventually, type PrivateTmux } from "@muster/test-support";
import { MUSTER } from "./run.js";

export type PaneRun = {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The pane muster ran in (it stays, running `sleep`). */
  pane: string;
  /** The pane's screen once muster ended, with `stderrToPane`. */
  screen: string;
};

const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

const readOr = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};

/** A `fromPane(args, cwd)` for `server`, keeping its scripts and outputs under `scratch`. */
export function paneCaller(server: () => PrivateTmux, scratch: string, defaultCwd: string) {
  let callers = 0;
  return async function fromPane(
    args: string[],
    cwd = defaultCwd,
    options: { stderrToPane?: boolean; env?: Record<string, string> } = {},
  ): Promise<PaneRun> {
    callers += 1;
    const out = path.join(scratch, `caller-${callers}`);
    const script = path.join(scratch, `caller-${callers}.sh`);
    // `env` is the calling shell's own (the server's global environment stays as it is).
    const exported = Object.entries(options.env ?? {}).map(([name, value]) => `${name}=${value}`);
    const quoted = [
      ...(exported.length > 0 ? ["env", ...exported] : []),
      process.execPath,
      MUSTER,
      ...args,
    ].map(quote);
    const stderr = options.stderrToPane ? "" : ` 2> ${out}.err`;
    // The script changes folder itself: tmux's own -c would expand a format in the folder's name.
    writeFileSync(
      script,
      `cd -- ${quote(cwd)} || exit 1\n${quoted.join(" ")} > ${out}.out${stderr}\necho $? > ${out}.status\nsleep 600\n`,
    );
    const pane = server()
      .tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main", `sh ${script}`)
      .trim();
    const status = await eventually(
      () => readOr(`${out}.status`).trim(),
      (text) => text !== "",
      `muster ${args.join(" ")}`,
      { attempts: 900, intervalMs: 100 },
    );
    return {
      pane,
      status: Number(status),
      stdout: readOr(`${out}.out`),
      stderr: readOr(`${out}.err`),
      screen: options.stderrToPane ? server().tmux("capture-pane", "-p", "-J", "-t", pane) : "",
    };
  };
}
