export type { Allowance, AllowedJudgement } from "./_allowed.js";
export {
  addAllowed,
  allowanceFor,
  allowedFile,
  judgeAllowed,
  readAllowed,
  removeAllowed,
} from "./_allowed.js";
export type { Connected, ConnectOptions, ConnectRefusal } from "./_connect.js";
export { connectTeam, publicKeyOf } from "./_connect.js";
export type { Bucket, BucketOptions, Conditional, Entry } from "./_kv.js";
export { createKey, openBucket, putKey } from "./_kv.js";
export { listKeys } from "./_list.js";
export type { OpenStoreOptions, StoreOpened } from "./_open-store.js";
export { openNatsStore } from "./_open-store.js";
export type { MemberKey, ServerConfigInput, TeamConfig } from "./_server-config.js";
export {
  DEFAULT_LISTEN,
  isMemberKey,
  listenRefusal,
  newMemberKey,
  serverConfig,
} from "./_server-config.js";
export type { NatsSettings, SettingsInput, SettingsRefusal, StoreSettings } from "./_settings.js";
export { storeSettings } from "./_settings.js";
export type { NatsStore } from "./_store.js";
export { natsStore } from "./_store.js";
export type { TeamName } from "./_team-name.js";
export { normaliseOrigin, teamName, teamResources } from "./_team-name.js";
