// Preloaded into a `muster` run (NODE_OPTIONS=--import=<this file>) by import-graph.test.ts: every
// module the run loads, in order, is written to the file MUSTER_IMPORT_TRACE names when it exits
// (also when a command ends itself with process.exit, as the hooks do).
import { writeFileSync } from "node:fs";
import module from "node:module";

const loaded: string[] = [];
module.registerHooks({
  load(url, context, nextLoad) {
    loaded.push(url);
    return nextLoad(url, context);
  },
});
const file = process.env.MUSTER_IMPORT_TRACE;
if (file) process.on("exit", () => writeFileSync(file, `${loaded.join("\n")}\n`));
