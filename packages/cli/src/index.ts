export type { GlobalOptions, Io } from "./_context.js";
export { Refusal, UsageError } from "./_context.js";
export { callerId, findCaller } from "./_identity.js";
export { main } from "./_main.js";
