export type { SignalOutcome } from "./activity.ts";
export {
  activityFacts,
  memberActivity,
  noticeDeaths,
  reportSignal,
} from "./activity.ts";
export type { AlertOptions, AlertOutcome } from "./attention.ts";
export { alertAbout, alertDeaths } from "./attention.ts";
export type { BeaterEnd, BeaterLock, BeaterOptions, BeatRound } from "./beater.ts";
export { beaterLockName, holdBeaterLock, keepBeating, runBeater } from "./beater.ts";
export type { BoardFailure, BoardOutcome, TeamBoard } from "./board.ts";
export {
  addCard,
  askAboutCard,
  cardsInProgress,
  changeCard,
  memberOf,
  previewChange,
  readBoard,
  setLead,
  teamBoard,
} from "./board.ts";
export type { DaemonOutcome } from "./codex-daemon.ts";
export { codexDaemonsOf, settleDaemonsFound } from "./codex-daemon.ts";
export { engineHome } from "./engine-home.ts";
export { errorMessage } from "./error-message.ts";
export type { LandAnswer } from "./land.ts";
export { landWork } from "./land.ts";
export { landQueue } from "./land-claim.ts";
export { memberDiff } from "./land-diff.ts";
export { cleanDeadLands } from "./land-scratch.ts";
export { launchLabel } from "./launch-label.ts";
export type { EndOptions } from "./lifetime.ts";
export { closeTeams, endProcess } from "./lifetime.ts";
export type { Migrated, MigrateRefusal, MigrateRequest } from "./migrate.ts";
export { migrateTeam } from "./migrate.ts";
export type { FindMySeatOptions } from "./my-seat.ts";
export { findMyAgent, findMySeat, paneRuns, processRows } from "./my-seat.ts";
export type { NudgeOptions, NudgeOutcome } from "./nudge.ts";
export { nudgePane } from "./nudge.ts";
export type { OpenTeamOptions, TeamOpened } from "./open-team.ts";
export { hostFolder, openTeam } from "./open-team.ts";
export type { SendOutcome, SendRequest, SentTo } from "./send-mail.ts";
export { checkSend, sendMail } from "./send-mail.ts";
export { SERVER_ENV } from "./server-env.ts";
export type {
  SpawnCaller,
  SpawnEffects,
  Spawned,
  SpawnFailure,
  SpawnRequest,
  SpawnState,
} from "./spawn.ts";
export { spawnAgent, spawnedLine, spawnWorks } from "./spawn.ts";
export { claimEnding } from "./spawn-claim.ts";
export type { SpawnTrouble } from "./spawn-look.ts";
export { troubleLine } from "./spawn-look.ts";
export type { KeptDaemon } from "./spawn-records.ts";
export {
  readKeptDaemons,
  readSpawnRecord,
  readSpawnRecords,
  removeSpawnRecord,
  writeKeptDaemons,
  writeSpawnRecord,
} from "./spawn-records.ts";
export { SpawnRefusal } from "./spawn-refusal.ts";
export type { SpawnSeatFacts } from "./spawn-seat.ts";
export { spawnSeat } from "./spawn-seat.ts";
export type { SpawnProgress, SpawnSeen } from "./spawn-wait.ts";
export { notJoinedLine } from "./spawn-wait.ts";
export { removeWorktree, worktreeFacts } from "./spawn-worktree.ts";
export {
  judgeSpawned,
  markEnded,
  markSpawnedEnding,
  spawnedAgents,
  spawnedState,
} from "./spawned.ts";
export type { StartedCaller, StartedEffects } from "./started-label.ts";
export { startedLabelOf } from "./started-label.ts";
export type { ContentsCount, StoreContents } from "./store-contents.ts";
export { readContents } from "./store-contents.ts";
export { type TeamChanges, teamChanges } from "./team-changes.ts";
export { endSpawned, keptLine, quitTarget, teamDown } from "./team-down.ts";
export { readTeamFile } from "./team-file.ts";
export type { StoreChoice, StoreChoiceOptions } from "./team-store.ts";
export {
  allowTeamServer,
  chooseStore,
  denyTeamServer,
  natsTeamName,
  type ServerAllowed,
  type ServerDenied,
} from "./team-store.ts";
export { teamUp } from "./team-up.ts";
export type {
  MemberDown,
  MemberUp,
  TeamDown,
  TeamDownRequest,
  TeamEffects,
  TeamUp,
  TeamUpRequest,
} from "./team-up-types.ts";
export type { WakeAnswer, WakeBatch, WakeDoor, WakeHow } from "./wake-round.ts";
export { wakeRound } from "./wake-round.ts";
export type { InboxWatch, InboxWatchOptions } from "./watch-inbox.ts";
export { watchInbox } from "./watch-inbox.ts";
export type { MailboxesWatchOptions } from "./watch-mailboxes.ts";
export { watchMailboxes } from "./watch-mailboxes.ts";
