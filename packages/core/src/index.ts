export type { Acted, ActingRefusal, ActingSteps, MembershipChange, MemberUse } from "./_acting.js";
export { actAsMember, MEMBER_USE, membershipLine } from "./_acting.js";
export type { ActivityReason, ActivityState, ActivityView, RecordedState } from "./_activity.js";
export { activityNow, isPerson, wakeFromOutside } from "./_activity.js";
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
export type { Caller } from "./_caller.js";
export {
  callerId,
  codexMemberId,
  codexThreadOf,
  isSessionId,
  memberIdOf,
  sandboxedMemberId,
} from "./_caller.js";
export type { Capability, Serves } from "./_capabilities.js";
export { CAPABILITIES } from "./_capabilities.js";
export type { CodexStatusChange } from "./_codex-status.js";
export { codexStatusChange, codexStatusSignal } from "./_codex-status.js";
export {
  BRAKE_WORDS,
  CONVERSATION_TURNS,
  CONVERSATION_WINDOW_MS,
  conversationTurns,
} from "./_conversation.js";
export type { EndFacts, LastState, MemberEnd } from "./_crash.js";
export { absentMembers, bringBack, memberEnd } from "./_crash.js";
export type { DownMember } from "./_down-members.js";
export { DOWN_WORDS, downMembers } from "./_down-members.js";
export type { ModelAnswer, ModelCheck, ModelEngine, ModelRefusal } from "./_engine-model.js";
export { MODEL_ASKS, modelCheck, modelRefusal } from "./_engine-model.js";
export type { SeatFacts, SeatProof } from "./_go.js";
export { chooseGo, proveSeat } from "./_go.js";
export type {
  JoinContext,
  JoinOutcome,
  JoinRequest,
  KeptRecord,
  SessionView,
  TeamAccess,
} from "./_join.js";
export { joinKeeper, joinTeam, tookOverLine } from "./_join.js";
export type { LabelChoice, LabelHolder, LabelSources, SessionProcess } from "./_label.js";
export { chooseLabel, heldLabels, holderOf, leftBehind, ownHeld, shownMembers } from "./_label.js";
export type { LandOutcome, LandQueue, LandRefusal } from "./_land.js";
export {
  branchRef,
  ignoredInTheWay,
  landingRefusal,
  landMailToLead,
  landMailToMember,
  landQueueLine,
  leasesToRelease,
  mayLand,
  planLand,
  shownPaths,
  splitNul,
  statusPaths,
  untrustedCheck,
} from "./_land.js";
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
  DEFAULT_LEASE_MS,
  describeLease,
  leaseRefusalLine,
  leaseStanding,
  uncheckedLine,
} from "./_lease.js";
export { advisoryLine, unmatchedLine, unmatchedPatterns } from "./_lease-notes.js";
export type { LocaleEnv } from "./_locale.js";
export { localeSpeaksUtf8 } from "./_locale.js";
export type { MailReach } from "./_mail-reach.js";
export { mailReach } from "./_mail-reach.js";
export type { MailSender, MailShown, SenderRecord, SenderStanding } from "./_mail-view.js";
export {
  mailForAgent,
  mailListForAgent,
  mailWakeLine,
  senderStanding,
  TEAMMATE_NOTICE,
} from "./_mail-view.js";
export type { ChainProcess, NotifiedMember, NotifyOrigin } from "./_notify-origin.js";
export { notifyOrigin } from "./_notify-origin.js";
export type { PrintableOptions } from "./_printable.js";
export { printable, printableData } from "./_printable.js";
export type {
  PhaseMark,
  ReceiptEntry,
  RecipientWait,
  WaitGoal,
  WaitReport,
  WakeFailure,
  WakeHeld,
} from "./_receipt.js";
export { PHASE_WORDS, parseWaitGoal, waitReport } from "./_receipt.js";
export { recipientLine } from "./_recipient-doing.js";
export type { RefusalFixOptions } from "./_refusal.js";
export {
  errorLine,
  joinFailureLine,
  NO_ROSTER_FIX,
  oneSentence,
  refusalPasses,
} from "./_refusal.js";
export type { SendMember, SendPlan, SendPlanRefusal, SendSender } from "./_send-plan.js";
export { planSend, sendLabels } from "./_send-plan.js";
export { WORKING_BELIEVED_MS } from "./_signals.js";
export type { StartedLabel } from "./_started-label.js";
export { isCodexDaemon } from "./_started-label.js";
export type { TeamStatus } from "./_status.js";
export { teamStatus } from "./_status.js";
export { didYouMean, nearestName, withSuggestion } from "./_suggest.js";
export type { DeclaredMember, DeclaredTeam, TeamFileRefusal } from "./_team-file.js";
export { declaredTeam } from "./_team-file.js";
export { teamLine } from "./_team-line.js";
export { addTmuxBlock, GO_KEY, removeTmuxBlock, userGoKey } from "./_tmux-conf.js";
export type { MemberState, RosterView, Standing, TookOver, Watching } from "./_types.js";
export type {
  Delivery,
  MailSetting,
  RecentWake,
  WakeDoor,
  WakePolicy,
  WakeTarget,
} from "./_wake.js";
export {
  canDeliverWake,
  DEFAULT_WAKE_POLICY,
  decideDelivery,
  MAIL_MODES,
  mailMode,
  mailSetting,
  mayWake,
  replyHops,
} from "./_wake.js";
export type { WakeRate, WakeRateSetting } from "./_wake-rate.js";
export { heldWords, wakeRate, wakeRateSetting } from "./_wake-rate.js";
export type { PathPattern, PatternCheck } from "./_wildmatch.js";
export { normalisePattern } from "./_wildmatch.js";
export type { WorktreeAfterStop, WorktreeEntry } from "./_worktree.js";
export { worktreeAfterStop, worktreeMark, worktreeRemovedLine } from "./_worktree.js";
