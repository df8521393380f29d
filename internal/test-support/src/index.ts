export { LONG_TESTS, rounds } from "./long.ts";
export type { PrivateTmux, RunResult } from "./private-tmux.ts";
export { assertPrivateSocket, runGuarded, startPrivateTmux, tmuxEnv } from "./private-tmux.ts";
export { SYNTHETIC_AGENT, syntheticSnapshot } from "./synthetic.ts";
export { eventually, lineQueue } from "./wait.ts";
