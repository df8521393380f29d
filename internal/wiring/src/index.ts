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
export { findMyAgent, findMySeat, paneRuns, processRows } from "./my-seat.js";
export type { NudgeOptions, NudgeOutcome } from "./nudge.js";
export { nudgePane } from "./nudge.js";
export type { OpenTeamOptions } from "./open-team.js";
export { openTeam, teamDir } from "./open-team.js";
export type {
  SpawnCaller,
  SpawnEffects,
  Spawned,
  SpawnFailure,
  SpawnRequest,
  SpawnState,
} from "./spawn.js";
export { spawnAgent, spawnedLine } from "./spawn.js";
export {
  checkLabel,
  readSpawnRecord,
  readSpawnRecords,
  removeSpawnRecord,
  writeSpawnRecord,
} from "./spawn-records.js";
export { SpawnRefusal } from "./spawn-refusal.js";
export { createWorktree } from "./spawn-worktree.js";
export { engineInPane, judgeSpawned, spawnedAgents } from "./spawned.js";
export type { InboxWatch, InboxWatchOptions } from "./watch-inbox.js";
export { watchInbox } from "./watch-inbox.js";
export type { MailboxesWatchOptions } from "./watch-mailboxes.js";
export { watchMailboxes } from "./watch-mailboxes.js";
