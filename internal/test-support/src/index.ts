export type { ClaudeHome } from "./claude-home.ts";
export { CLAUDE_VERSION, claudeHome } from "./claude-home.ts";
export type { CodexHome, RealCodex } from "./codex.ts";
export {
  codexHome,
  endCodexDaemons,
  managedDaemons,
  offlineCodex,
  realCodex,
  userTexts,
} from "./codex.ts";
export { NATS_SERVER_MISSING } from "./find-nats-server.ts";
export { LONG_TESTS, rounds } from "./long.ts";
export { heartbeatMember } from "./members.ts";
export type { NatsCluster, NatsServer, NatsServerOptions } from "./nats-server.ts";
export {
  freePort,
  natsServerPath,
  natsServerVersion,
  startNatsCluster,
  startNatsServer,
} from "./nats-server.ts";
export type { AttachedClient, PrivateTmux, RunResult } from "./private-tmux.ts";
export {
  assertPrivateSocket,
  attachClient,
  runGuarded,
  startPrivateTmux,
  tmuxEnv,
} from "./private-tmux.ts";
export type {
  MessagesRequest,
  MessagesStep,
  ScriptedMessages,
} from "./scripted-messages.ts";
export { startScriptedMessages } from "./scripted-messages.ts";
export type { ScriptedModel, ScriptStep } from "./scripted-model.ts";
export { startScriptedModel } from "./scripted-model.ts";
export { SYNTHETIC_AGENT, syntheticSnapshot } from "./synthetic.ts";
export type { TcpPause } from "./tcp-pause.ts";
export { startTcpPause } from "./tcp-pause.ts";
export { onlyInserted } from "./user-bytes.ts";
export { eventually, lineQueue } from "./wait.ts";
