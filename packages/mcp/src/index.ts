export type { Caller, CallMeta, Guest, GuestReason, IdentityEffects, Member } from "./_identity.js";
export { createIdentifier, threadOf } from "./_identity.js";
export { formatMail } from "./_mail-text.js";
export type { MusterServerOptions } from "./_server.js";
export { createMusterServer, runMcpServer } from "./_server.js";
