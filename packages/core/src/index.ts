export type { Activity, ActivitySignal, ActivityState } from "./_activity.js";
export { activityAfter, BUSY_BELIEVED_MS, believedActivity, wakeFromOutside } from "./_activity.js";
export type { AgentInPane, MemberOfPane } from "./_agents.js";
export { memberOfAgent } from "./_agents.js";
export type {
  BoardActor,
  Card,
  CardEvent,
  CardHistoryEntry,
  CardOwner,
  CardState,
} from "./_board-card.js";
export { parseCardId } from "./_board-card.js";
export type {
  BoardChange,
  BoardDecision,
  BoardRefusal,
  BoardRefusalReason,
  BoardView,
} from "./_board-decision.js";
export { boardFailureLine } from "./_board-decision.js";
export type { LeadDecision } from "./_board-lead.js";
export { decideLead } from "./_board-lead.js";
export type { BoardMember, BoardMembers, OwnerVerdict } from "./_board-members.js";
export { ownerVerdict, releaseCard } from "./_board-members.js";
export type { BoardNotice, BoardNoticeKind } from "./_board-notice.js";
export { decideChange } from "./_board-rules.js";
export type { CardFilter, ListedCard } from "./_board-view.js";
export { listCards } from "./_board-view.js";
export type { Caller, CallerProcess, CallerResult } from "./_caller.js";
export { callerId, findCaller } from "./_caller.js";
export type { JoinContext, JoinOutcome, JoinRequest, SessionView, TeamAccess } from "./_join.js";
export { joinTeam, tookOverLine } from "./_join.js";
export type { LabelChoice, LabelHolder, LabelSources } from "./_label.js";
export {
  chooseLabel,
  heldLabels,
  holderOf,
  ownHeld,
  shownMembers,
} from "./_label.js";
export type {
  AskHow,
  BlockedPath,
  CompiledLease,
  HolderState,
  Lease,
  LeaseConflict,
  LeaseRequest,
  LeaseStanding,
} from "./_lease.js";
export {
  blockedPathLine,
  blockedPaths,
  checkLeaseRequest,
  compileLeases,
  describeLease,
  leaseRefusalLine,
  leaseStanding,
} from "./_lease.js";
export type { PrintableOptions } from "./_printable.js";
export { printable } from "./_printable.js";
export type {
  DeliveryPhase,
  MailReach,
  PhaseMark,
  PhaseMarks,
  RecipientWait,
  WaitGoal,
  WaitReport,
} from "./_receipt.js";
export { MAIL_REACH_WORDS, mailReach, PHASE_WORDS, parseWaitGoal, waitReport } from "./_receipt.js";
export type { RefusalFixOptions } from "./_refusal.js";
export { errorLine, joinFailureLine, NO_ROSTER_FIX, oneSentence } from "./_refusal.js";
export type { TeamStatus } from "./_status.js";
export { teamStatus } from "./_status.js";
export type {
  JoinAnswer,
  MemberState,
  RosterEntry,
  RosterView,
  Standing,
  TookOver,
  Watching,
} from "./_types.js";
export type { Delivery, MailFacts, MailMode, RecentWake, WakePolicy, WakeTarget } from "./_wake.js";
export {
  DEFAULT_WAKE_POLICY,
  decideDelivery,
  MAIL_MODES,
  mailMode,
  mayWake,
  recordWake,
  replyHops,
} from "./_wake.js";
export type { PathPattern, PatternCheck } from "./_wildmatch.js";
export { normalisePattern } from "./_wildmatch.js";
export type { WorktreeEntry, WorktreePlan } from "./_worktree.js";
export { parseWorktreeList, planWorktree } from "./_worktree.js";
