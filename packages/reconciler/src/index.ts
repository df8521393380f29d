export type { CodexDaemon, DaemonRow } from "./_codex-daemon.js";
export { codexDaemonHome, codexDaemonsBelow } from "./_codex-daemon.js";
export type {
  AmbiguousSeat,
  Discovery,
  FoundAgent,
  PaneFacts,
  ProcessRow,
  Snapshot,
} from "./_discover.js";
export { discoverAgents, seatKeyOf } from "./_discover.js";
export type { EngineRule } from "./_engines.js";
export { BUILTIN_ENGINES, matchEngine } from "./_engines.js";
export type { Launch, LaunchOptions, LaunchResult, LaunchRule, SpawnedResult } from "./_launch.js";
export {
  findSpawned,
  LAUNCH_ENGINES,
  launchCommand,
  namesSession,
  quitSignal,
  resumesSession,
} from "./_launch.js";
export type { Awaitable, Reconciler, ReconcilerOptions, ScanStatus } from "./_reconcile.js";
export { createReconciler } from "./_reconcile.js";
export type { RegistryEntry } from "./_registry.js";
export { createAgentRegistry } from "./_registry.js";
export type { Scan } from "./_scan-result.js";
export { scanResult } from "./_scan-result.js";
export type { ScanResult, TrackedAgent } from "./_tracked.js";
