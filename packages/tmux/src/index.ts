export { decodeFreeText, freeText } from "./_format.js";
export type { Inventory, InventoryResult, Pane } from "./_inventory.js";
export {
  INVENTORY_FORMAT,
  InventoryLineError,
  inventoryArgs,
  listPanes,
  parseInventory,
  parsePaneLine,
  parseServerLine,
  SERVER_FORMAT,
} from "./_inventory.js";
export type { NudgeVerdict, PaneLook, PaneProcesses } from "./_nudge.js";
export {
  NUDGE_KEYS,
  NUDGE_LOOK_FORMAT,
  NUDGE_TEXT,
  nudgeArgs,
  nudgeVerdict,
  PROMPTS,
  parseLook,
  submitted,
  typedCheck,
} from "./_nudge.js";
export type { OpenedPane, OpenPaneResult, OpenPaneSpec } from "./_open-pane.js";
export {
  checkOpenPaneSpec,
  closePaneArgs,
  OPENED_FORMAT,
  openPane,
  openPaneArgs,
  parseOpenedPane,
} from "./_open-pane.js";
export type { ProcessLink, RunsCodex, Seat, SeatReason, SeatResult } from "./_seat.js";
export {
  CODEX_TITLE_FULL_LENGTH,
  CODEX_TITLE_ID_LENGTH,
  findCodexSeat,
  findProcessSeat,
  SEAT_REPAIRS,
  seatByCodexThread,
  seatByPane,
  seatByProcess,
  titleShowsThread,
} from "./_seat.js";
export type { NoServer, ServerIdentity, ServerTarget, TmuxEnv, TmuxRunner } from "./_server.js";
export { noServer, PANE_ID, parseTmuxEnv, runTmux, serverArgs, serverName } from "./_server.js";
export type { SpawnRecord, StopDecision, StopLook } from "./_spawned.js";
export { decideStop, parseSpawnRecord } from "./_spawned.js";
