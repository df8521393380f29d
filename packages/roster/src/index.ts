export type { ActivityChange, ActivityFields, ActivityResult } from "./_activity.js";
export type { Board, BoardOptions, BoardRead, LeadDecision } from "./_board.js";
export type {
  BoardFileRefusal,
  CardChange,
  CardDecision,
  ClaimAfter,
  OwnerVerdictRule,
} from "./_board-change.js";
export type { BoardMembersView, BoardMemberView, BoardSnapshot } from "./_board-read.js";
export type { CardEvent, CardHistoryEntry, CardRecord, CardState } from "./_card-file.js";
export type { ClaimRequest, ClaimResult, ClaimVerdict, Takeover } from "./_claim.js";
export type { Claim } from "./_claim-read.js";
export type { FolderOpened, OpenRefusal } from "./_folder-open.js";
export { openFolderStore } from "./_folder-open.js";
export type { FileFacts, RosterFs } from "./_fs.js";
export type { History, HistoryEntry } from "./_history.js";
export type { Inbox } from "./_inbox.js";
export type { JoinInput, JoinRefusalReason, JoinResult, TookOver } from "./_join.js";
export type { ClaimSpace } from "./_layout.js";
export type {
  LeaseEntry,
  LeaseHolderState,
  LeaseHolds,
  LeaseInput,
  LeasesRead,
  TakeLeaseResult,
} from "./_leases.js";
export type { MemberState, ProcessFact, ProcessFacts, RosterPolicy } from "./_liveness.js";
export type { Member, TeamRead, UnreadableMember } from "./_members.js";
export type { EndingResult, HeartbeatResult, LeaveResult } from "./_membership.js";
export type { Message } from "./_message.js";
export type { OpenResult, RosterOptions } from "./_open.js";
export { openRoster } from "./_open.js";
export type { KeptMember, PruneResult } from "./_prune.js";
export { WAKE_CLAIM_MS } from "./_prune.js";
export type {
  MarkResult,
  MessageReceipt,
  ReceiptMark,
  ReceiptPhase,
  RecipientReceipt,
  WakeFailure,
  WakeHeld,
} from "./_receipts.js";
export type {
  Activity,
  ActivityState,
  Ended,
  Liveness,
  Seat,
  SessionRecord,
  Watching,
} from "./_record.js";
export type { Roster } from "./_roster.js";
export type {
  Delivery,
  Receipt,
  SendInput,
  SendRefusal,
  Undelivered,
} from "./_send.js";
export { bodyRefusal, SEND_FIXES } from "./_send.js";
export type {
  Created,
  Listed,
  Listing,
  MailEntry,
  MailListing,
  MailStore,
  ReceiptStore,
  Replaced,
  Retired,
  RosterStore,
  Stored,
  StoredMark,
  StoreSpace,
} from "./_store.js";
export type { HeldLabel } from "./_team.js";
export type { Brake, ConversationTurns } from "./_turns.js";
export type { Validation } from "./_validate.js";
export {
  bodyTooLarge,
  MAX_BODY_BYTES,
  plantedRecord,
  validateLabel,
} from "./_validate.js";
export type { WakeSlotResult, WakeSlots } from "./_wake-rate.js";
