export type { BoardFailure, BoardOutcome, TeamBoard } from "./board.ts";
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
} from "./board.ts";
export { errorMessage } from "./error-message.ts";
export type { FindMySeatOptions } from "./my-seat.ts";
export { findMyAgent, findMySeat, paneRuns, processRows } from "./my-seat.ts";
export type { NudgeOptions, NudgeOutcome } from "./nudge.ts";
export { nudgePane } from "./nudge.ts";
export type { OpenTeamOptions } from "./open-team.ts";
export { openTeam, teamDir } from "./open-team.ts";
export type {
  SpawnCaller,
  SpawnEffects,
  Spawned,
  SpawnFailure,
  SpawnRequest,
  SpawnState,
} from "./spawn.ts";
export { spawnAgent, spawnedLine } from "./spawn.ts";
export {
  checkLabel,
  readSpawnRecord,
  readSpawnRecords,
  removeSpawnRecord,
  writeSpawnRecord,
} from "./spawn-records.ts";
export { SpawnRefusal } from "./spawn-refusal.ts";
export { createWorktree } from "./spawn-worktree.ts";
export { engineInPane, judgeSpawned, spawnedAgents } from "./spawned.ts";
export type { InboxWatch, InboxWatchOptions } from "./watch-inbox.ts";
export { watchInbox } from "./watch-inbox.ts";
export type { MailboxesWatchOptions } from "./watch-mailboxes.ts";
export { watchMailboxes } from "./watch-mailboxes.ts";
