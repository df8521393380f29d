export type { Client, ClientsRead } from "./_clients.js";
export {
  attachCommand,
  goArgs,
  listClientsArgs,
  listKeyArgs,
  messageArgs,
  paneTtyArgs,
  parseClients,
  parseTty,
} from "./_clients.js";
export type { RunsCodex } from "./_codex-seat.js";
export { findCodexSeat, seatByCodexThread } from "./_codex-seat.js";
export type { Inventory, InventoryResult, Pane } from "./_inventory.js";
export { inventoryArgs, listPanes, parseInventory } from "./_inventory.js";
export type { NudgeVerdict, PaneLook, PaneProcesses } from "./_nudge.js";
export { NUDGE_TEXT, nudgeArgs, nudgeVerdict, parseLook, submitted, typedCheck } from "./_nudge.js";
export type { OpenedPane, OpenPaneResult, OpenPaneSpec } from "./_open-pane.js";
export { closePaneArgs, openPane } from "./_open-pane.js";
export type { PaneText } from "./_pane-text.js";
export { readPaneText } from "./_pane-text.js";
export type { ProcessLink, Seat, SeatReason, SeatResult } from "./_seat.js";
export { currentSeat, findProcessSeat, seatByPane } from "./_seat.js";
export type { NoServer, ServerIdentity, ServerTarget, TmuxEnv, TmuxRunner } from "./_server.js";
export { parseTmuxEnv, runTmux, serverArgs } from "./_server.js";
export type { SpawnRecord, StopDecision, StopScan } from "./_spawned.js";
export { decideStop, parseSpawnRecord } from "./_spawned.js";
export type { LaunchCaller, LaunchMatch, LaunchScan } from "./_spawned-label.js";
export { launchOf, launchPids } from "./_spawned-label.js";
