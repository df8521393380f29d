export type { FileFacts, RosterFs } from "./_fs.js";
export { FILE_MODE, FOLDER_MODE } from "./_fs.js";
export type { History, HistoryEntry } from "./_history.js";
export { mailHistory } from "./_history.js";
export type { Inbox, Message, Receipt, SendInput, SendRefusal } from "./_mail.js";
export type {
  LabelClaim,
  Liveness,
  MemberState,
  ProcessFact,
  ProcessFacts,
  RosterPolicy,
  Seat,
  SessionRecord,
  Watching,
} from "./_record.js";
export { DEFAULT_POLICY, memberState, parseRecord } from "./_record.js";
export type {
  HeartbeatResult,
  JoinInput,
  JoinRefusalReason,
  JoinResult,
  Member,
  OpenResult,
  PruneResult,
  RosterOptions,
  TeamRead,
} from "./_roster.js";
export { CLAIM_GRACE_MS, LOCK_STALE_MS, openRoster, Roster } from "./_roster.js";
export type { Validation } from "./_validate.js";
export {
  labelKey,
  MAX_BODY_BYTES,
  RESERVED_LABELS,
  utf8Length,
  validateId,
  validateLabel,
} from "./_validate.js";
