// The one refusal the spawn wiring throws inside itself; spawnAgent returns it as a value, and the
// CLI's commands that read spawn records turn it into their exit status.
import { errorLine } from "@muster/core";

/** What was refused (a stable reason), what happened, and apart from it what to do. */
export class SpawnRefusal extends Error {
  readonly reason: string;
  readonly error: string;
  readonly fix: string | undefined;
  constructor(reason: string, error: string, fix?: string) {
    super(errorLine({ error, fix }));
    this.reason = reason;
    this.error = error;
    this.fix = fix;
  }
}
