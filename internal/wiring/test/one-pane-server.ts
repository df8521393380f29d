// A stand-in tmux server for the wiring's tests of what muster spawned: it answers list-panes with
// one pane, %7, running `pid` (dead or live) on `socket` while `shown()`, and records the panes
// killed (a killed pane is listed no more).
import type { TmuxRunner } from "@muster/tmux";

export function onePaneServer(
  socket: string,
  pid: number,
  options: { dead?: boolean; shown?: () => boolean } = {},
) {
  const { dead = false, shown = () => true } = options;
  const killed: string[] = [];
  const run: TmuxRunner = async (args) => {
    if (args.includes("kill-pane")) {
      killed.push(args[args.indexOf("-t") + 1] ?? "");
      return { status: 0, stdout: "", stderr: "" };
    }
    const pane = [
      "%7",
      pid,
      "$0",
      "@0",
      0,
      0,
      dead ? 1 : 0,
      "/dev/pts/9",
      "pi",
      "main",
      "/tmp",
      "t",
    ];
    const panes = shown() && !killed.includes("%7") ? `${pane.join("\t")}\n` : "";
    return { status: 0, stdout: `4242\t${socket}\n${panes}`, stderr: "" };
  };
  return { run, killed };
}
