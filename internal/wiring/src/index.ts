export type { BoardFailure, BoardOutcome, TeamBoard } from "./board.js";
export {
  addCard,
  askAboutCard,
  cardsInProgress,
  changeCard,
  memberOf,
  readBoard,
  sendNotices,
  setLead,
  teamBoard,
} from "./board.js";
export { errorMessage } from "./error-message.js";
export type { FindMySeatOptions } from "./my-seat.js";
export { findMyAgent, findMySeat, processRows } from "./my-seat.js";
export type { NudgeOptions, NudgeOutcome } from "./nudge.js";
export { nudgePane } from "./nudge.js";
export type { OpenTeamOptions } from "./open-team.js";
export { openTeam, teamDir } from "./open-team.js";
export type { InboxWatch, InboxWatchOptions } from "./watch-inbox.js";
export { watchInbox } from "./watch-inbox.js";
