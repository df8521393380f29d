// The effects a command's context builds on first use (_context.ts), and the wiring's error
// helpers the way out needs (_main.ts): imported only then, and through this module, because a
// dynamic import of a package's index keeps the whole package in the bundle's chunk for it (the
// spawn code with every `muster roster`); named here, only these functions and what they run load.
export { createTmuxRunner, findTeamFolder } from "@muster/node";
export {
  closeTeams,
  endProcess,
  errorMessage,
  openTeam,
  processRows,
  SpawnRefusal,
} from "@muster/wiring";
