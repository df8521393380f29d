// `muster seat`: where an agent sits — by pane id, by pid, by Codex thread id, or (by default) the
// caller's own seat, proven by ancestry rather than trusted from $TMUX_PANE.
import { printable } from "@muster/core";
import { BUILTIN_ENGINES, discoverAgents } from "@muster/reconciler";
import {
  findCodexSeat,
  findProcessSeat,
  type RunsCodex,
  type SeatResult,
  seatByPane,
} from "@muster/tmux";
import { type Context, Refusal } from "./_context.js";

export type SeatOptions = {
  pane?: string | undefined;
  pid?: number | undefined;
  codexThread?: string | undefined;
};

export async function seatCommand(context: Context, options: SeatOptions) {
  let result: SeatResult;
  if (options.pane !== undefined)
    result = await seatByPane(context.run, options.pane, context.target);
  else if (options.codexThread !== undefined) {
    // A title is only a hint: the pane must run Codex, by the discovery rules over the process table.
    const processes = options.codexThread.trim() === "" ? [] : await context.processes();
    const runsCodex: RunsCodex = (pane) =>
      discoverAgents(
        { panes: [pane], processes, exclude: [process.pid], server: "" },
        BUILTIN_ENGINES,
      ).agents.some((agent) => agent.engine === "codex");
    result = await findCodexSeat(context.run, options.codexThread, context.target, runsCodex);
  } else {
    const pid = options.pid ?? process.ppid;
    result = await findProcessSeat(context.run, await context.processes(), pid, {
      target: context.target,
      claimedPane: options.pid === undefined ? context.here?.pane : undefined,
    });
  }
  if (!result.ok) throw new Refusal(result.reason, result, { candidates: result.candidates ?? [] });
  if (context.json) return context.emit({ ...result.seat, note: result.note ?? null });
  const { seat } = result;
  context.out(
    `${context.color.bold(printable(seat.pane))} in session ${printable(seat.sessionName)} (window ${seat.windowIndex}, pane ${seat.paneIndex}) on ${printable(seat.server)}`,
  );
  if (result.note) context.warn(result.note);
}
