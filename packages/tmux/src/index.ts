export type { Inventory, InventoryResult, Pane } from "./_inventory.js";
export {
  INVENTORY_FORMAT,
  InventoryLineError,
  inventoryArgs,
  listPanes,
  parseInventory,
  parsePaneLine,
} from "./_inventory.js";
export type { OpenedPane, OpenPaneResult, OpenPaneSpec } from "./_open-pane.js";
export {
  checkOpenPaneSpec,
  closePaneArgs,
  OPENED_FORMAT,
  openPane,
  openPaneArgs,
  parseOpenedPane,
} from "./_open-pane.js";
export type { ProcessLink, Seat, SeatReason, SeatResult } from "./_seat.js";
export {
  CODEX_TITLE_ID_LENGTH,
  findCodexSeat,
  findProcessSeat,
  SEAT_REPAIRS,
  seatByCodexThread,
  seatByPane,
  seatByProcess,
  titleShowsThread,
} from "./_seat.js";
export type { ServerIdentity, ServerTarget, TmuxEnv, TmuxRunner } from "./_server.js";
export { PANE_ID, parseTmuxEnv, runTmux, serverArgs } from "./_server.js";
export type { SpawnRecord, StopDecision, StopLook } from "./_spawned.js";
export { decideStop, parseSpawnRecord } from "./_spawned.js";
