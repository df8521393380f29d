export type {
  AmbiguousPlacement,
  Discovery,
  FoundAgent,
  PaneFacts,
  ProcessRow,
  Snapshot,
} from "./_discover.js";
export { discoverAgents, identityOf, routeOf } from "./_discover.js";
export type { EngineRule, Entrypoint } from "./_engines.js";
export { BUILTIN_ENGINES, COMM_LENGTH, entrypoint, matchEngine, packageName } from "./_engines.js";
export type { Look } from "./_probe.js";
export { probeResult } from "./_probe.js";
export type {
  Awaitable,
  ProbeResult,
  ProbeStatus,
  Reconciler,
  ReconcilerOptions,
  TrackedAgent,
} from "./_reconcile.js";
export { createReconciler, DEFAULT_MISSES } from "./_reconcile.js";
export type { RegistryEntry } from "./_registry.js";
export { createAgentRegistry } from "./_registry.js";
