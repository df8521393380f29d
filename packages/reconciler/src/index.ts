export type {
  AmbiguousSeat,
  Discovery,
  FoundAgent,
  PaneFacts,
  ProcessRow,
  Snapshot,
} from "./_discover.js";
export { discoverAgents, identityOf, seatKeyOf } from "./_discover.js";
export type { EngineRule } from "./_engines.js";
export { BUILTIN_ENGINES, COMM_LENGTH, matchEngine } from "./_engines.js";
export type { Entrypoint } from "./_entrypoint.js";
export { entrypoint, packageName, programName } from "./_entrypoint.js";
export type { Launch, LaunchOptions, LaunchResult, LaunchRule, SpawnedResult } from "./_launch.js";
export { BUILTIN_LAUNCHES, findSpawned, launchCommand, quitSignal } from "./_launch.js";
export type { Awaitable, Reconciler, ReconcilerOptions, ScanStatus } from "./_reconcile.js";
export { createReconciler, DEFAULT_MISSES, DEFAULT_SCAN_TIMEOUT_MS } from "./_reconcile.js";
export type { RegistryEntry } from "./_registry.js";
export { createAgentRegistry } from "./_registry.js";
export type { Miss, ScanInput, ScanMemory, ScanOutcome } from "./_scan.js";
export { adoptAgent, emptyMemory, reconcileScan } from "./_scan.js";
export type { Scan } from "./_scan-result.js";
export { scanResult } from "./_scan-result.js";
export type { ScanResult, TrackedAgent } from "./_tracked.js";
