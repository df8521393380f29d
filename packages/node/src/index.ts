export type { TreeActivity } from "./_activity.js";
export { treeActivity } from "./_activity.js";
export type { FileFacts } from "./_fs.js";
export { nodeFs, nodeSleep, readRegularFile } from "./_fs.js";
export type { PathSpelling } from "./_lease-paths.js";
export type { EditCheck, LeaseRoster, RepoFacts, TakeLeaseAnswer } from "./_leases.js";
export {
  checkEdit,
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
  inotifyWatches,
  processAlive,
  processEnviron,
  processFacts,
  processPlace,
  processStart,
  readProcessAncestry,
  readProcessTable,
} from "./_processes.js";
export { repoFiles } from "./_repo-files.js";
export type { TeamFolder, TeamFolderOptions } from "./_team.js";
export { findTeamFolder, insideTeam } from "./_team.js";
export type { RunResult, TmuxRunnerOptions } from "./_tmux.js";
export { createTmuxRunner, createTmuxRunnerAlongside } from "./_tmux.js";
export { cacheRoot, stateRoot } from "./state-root.js";
