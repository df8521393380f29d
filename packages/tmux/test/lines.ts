// Inventory output as tmux prints it (in INVENTORY_FORMAT, free text escaped), and a fake runner.
import type { TmuxRunner } from "../src/index.ts";

/** Free text as tmux's substitutions escape it. */
export const escaped = (text: string) =>
  text.replaceAll("\\", "\\\\").replaceAll("\t", "\\t").replaceAll("\n", "\\n");

/** The server's line: its pid and socket path. */
export const serverLine = (pid = 4242, socket = "/tmp/tmux-0/default") =>
  `${pid}\t${escaped(socket)}`;

/** One pane line as tmux prints it. */
export function line(
  id: number,
  pid: number,
  title: string,
  overrides: {
    dead?: boolean;
    session?: number;
    sessionName?: string;
    path?: string;
    command?: string;
  } = {},
) {
  return [
    `%${id}`,
    overrides.dead ? "" : String(pid),
    `$${overrides.session ?? 0}`,
    `@${id}`,
    String(id),
    "0",
    overrides.dead ? "1" : "0",
    `/dev/pts/${id}`,
    escaped(overrides.command ?? "node"),
    escaped(overrides.sessionName ?? "main"),
    escaped(overrides.path ?? "/repo"),
    escaped(title),
  ].join("\t");
}

/** The whole output: the server's line, then the pane lines. */
export const listing = (...lines: string[]) => [serverLine(), ...lines, ""].join("\n");

/** A runner that answers from a function of the arguments, and records every call. */
export function fakeRunner(
  answer: (args: string[]) => {
    status: number | null;
    stdout?: string;
    stderr?: string;
    timedOutAfterMs?: number;
  },
) {
  const calls: string[][] = [];
  const run: TmuxRunner = async (args) => {
    calls.push(args);
    const result = answer(args);
    return {
      status: result.status,
      stdout: result.stdout ?? "",
      stderr: result.stderr ?? "",
      timedOutAfterMs: result.timedOutAfterMs,
    };
  };
  return { run, calls };
}
