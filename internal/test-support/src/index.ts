export { nodeFs, processStart, procFacts, readProcessLinks } from "./node-fs.ts";
export type { PrivateTmux, RunResult } from "./private-tmux.ts";
export { assertPrivateSocket, runGuarded, startPrivateTmux, tmuxEnv } from "./private-tmux.ts";
