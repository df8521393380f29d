// Before `muster up` opens anything: can each engine it would start work here? Installed (on
// PATH), set up for muster (spawn's check, doctor's engine checks) and, by its own offline status
// command (doctor's), with a model it may use; core's modelRefusal says which answers prove it
// cannot. An engine that cannot is refused in one line with its words and the fix, rather than
// started and waited on until the time limit.
import { MODEL_ASKS, type ModelEngine, modelRefusal } from "@muster/core";
import type { SpawnFailure } from "@muster/wiring";
import type { Context } from "./_context.js";
import { askModel } from "./_doctor-models.js";
import { engineReady } from "./_spawn-ready.js";

const AGAIN = "muster up again";

/** The refusal for a member's engine that cannot work here; undefined when it can (or is not known). */
export async function upReady(
  context: Context,
  member: { engine: string; args: readonly string[]; cwd: string },
): Promise<SpawnFailure | undefined> {
  const { engine } = member;
  const asks = Object.hasOwn(MODEL_ASKS, engine) ? (engine as ModelEngine) : undefined;
  const [answer, setUp] = await Promise.all([
    asks && askModel(context, asks),
    engineReady(context, { engine }, { extra: member.args, cwd: member.cwd }, AGAIN),
  ]);
  let refusal = asks && answer ? modelRefusal(asks, answer, member.args) : undefined;
  // pi 1.6.0's list has come back empty on a loaded machine once, and full the next time: a second
  // answer must say so too before pi is refused for it.
  if (asks && refusal?.reason === "engine-no-model")
    refusal = modelRefusal(asks, await askModel(context, asks), member.args);
  // Not installed at all says more than not set up for muster; set up says more than a model.
  if (refusal && (refusal.reason === "engine-missing" || !setUp))
    return {
      ok: false,
      reason: refusal.reason,
      error: `${refusal.error}, so nothing was started`,
      fix: `${refusal.fix}; then ${AGAIN}`,
    };
  return setUp;
}
