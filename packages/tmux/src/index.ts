export type { Inventory, InventoryResult, Pane } from "./_inventory.js";
export {
  INVENTORY_FORMAT,
  InventoryLineError,
  inventoryArgs,
  listPanes,
  parseInventory,
  parsePaneLine,
} from "./_inventory.js";
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
