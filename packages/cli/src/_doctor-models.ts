// `muster doctor`'s look at whether each engine muster is set up in has a model: each engine's own
// offline command (core's MODEL_ASKS: no model call), run at once for every such engine, its answer
// read by core's modelCheck. This file only runs the commands.
import { execFile } from "node:child_process";
import { MODEL_ASKS, type ModelAnswer, type ModelEngine, modelCheck } from "@muster/core";
import type { Context } from "./_context.js";

/** How long an engine's status command may take (pi lists its models in about 2 s here). */
const ASK_TIMEOUT_MS = 15_000;

/** Run `engine`'s own offline status command (doctor's, and `muster up`'s before it starts one). */
export function askModel(context: Context, engine: ModelEngine): Promise<ModelAnswer> {
  const [program, ...args] = MODEL_ASKS[engine].argv;
  return new Promise((resolve) => {
    execFile(
      program,
      args,
      { env: context.io.env, cwd: context.io.cwd, timeout: ASK_TIMEOUT_MS, encoding: "utf8" },
      (error, stdout, stderr) => {
        const failure = error as (NodeJS.ErrnoException & { killed?: boolean }) | null;
        if (failure?.code === "ENOENT") return resolve({ found: false });
        const status = !failure ? 0 : failure.killed ? null : Number(failure.code) || 1;
        resolve({ found: true, status, stdout, stderr });
      },
    );
  });
}

/** One check per engine that is set up: "<engine> model", a warning where it has none. */
export async function modelChecks(context: Context, engines: readonly ModelEngine[]) {
  return Promise.all(
    engines.map(async (engine) => ({
      name: `${engine} model`,
      ...modelCheck(engine, await askModel(context, engine)),
    })),
  );
}
