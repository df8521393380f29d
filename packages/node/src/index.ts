export type { TreeActivity } from "./_activity.js";
export { treeActivity } from "./_activity.js";
export type { FileFacts } from "./_fs.js";
export { nodeFs, nodeSleep } from "./_fs.js";
export type { LeaseRoster, RepoFacts, TakeLeaseAnswer } from "./_leases.js";
export {
  gitHooksFolder,
  holdingLeases,
  pathsBlocked,
  repoFacts,
  repoPattern,
  stagedPaths,
  takeLease,
} from "./_leases.js";
export type { ProcessFact, ProcessRow, ProcessTable } from "./_processes.js";
export {
  processAlive,
  processFacts,
  processPlace,
  processStart,
  readProcessTable,
} from "./_processes.js";
export type { TeamFolder, TeamFolderOptions } from "./_team.js";
export { findTeamFolder, insideTeam, stateRoot } from "./_team.js";
export type { RunResult, TmuxRunnerOptions } from "./_tmux.js";
export { createTmuxRunner } from "./_tmux.js";
