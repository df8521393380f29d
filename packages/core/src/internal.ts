// `@muster/core/internal`: the rules only muster's own wiring (`internal/wiring`) calls, apart from
// the public surface in index.ts, as nats.js keeps `kv/src/internal_mod.ts` beside `mod.ts`. No
// promise of stability is made for these: they change with the wiring that uses them.
export { asIfMember } from "./_acting.js";
export type {
  Activity,
  ActivityFacts,
  MemberTrouble,
  RecordStep,
  SignalReport,
} from "./_activity.js";
export { recordSignal, troubleCleared } from "./_activity.js";
export type { AgentInPane, MemberOfPane } from "./_agents.js";
export type { AttentionChannel, AttentionKind, ChannelSetting, ClientView } from "./_attention.js";
export {
  ALERTS_PER_MINUTE,
  alertRate,
  attentionFor,
  attentionLine,
  burstLine,
  clientsToTell,
  mayRaise,
  parseChannels,
} from "./_attention.js";
export type { CallerProcess, CallerResult } from "./_caller.js";
export { findCaller } from "./_caller.js";
export { brakeLine } from "./_conversation.js";
export type { EngineTrouble, TroubleKind, TroubleRow } from "./_engine-trouble.js";
export { engineTrouble, lastWords } from "./_engine-trouble.js";
export type { BeatMember, HostBeats } from "./_host-beats.js";
export { hostBeats } from "./_host-beats.js";
export type { DeliveryPhase, PhaseMarks } from "./_receipt.js";
export type { SignalEffect, SignalRow } from "./_signals.js";
export { claudeRegistrySignal } from "./_signals.js";
export type { EnvironRead, StartedCaller, StartedProcess } from "./_started-label.js";
export { MAX_STARTED_PIDS, startedLabel, startedPids } from "./_started-label.js";
export { refusedArgument } from "./_team-args.js";
export type { JoinAnswer, RosterEntry } from "./_types.js";
export type { MailFacts, MailMode, SpawnedMail } from "./_wake.js";
export { spawnedMail } from "./_wake.js";
export type {
  WakeBook,
  WakeCount,
  WakePlan,
  WakePlanPolicy,
  WakeStep,
} from "./_wake-plan.js";
export {
  bookDone,
  bookSlotsTaken,
  bookWoke,
  EMPTY_WAKE_BOOK,
  planWake,
} from "./_wake-plan.js";
export type { RecordedPlace, WorktreeFacts, WorktreePlan } from "./_worktree.js";
export { madeWorktree, parseWorktreeList, planWorktree, resumePlace } from "./_worktree.js";
