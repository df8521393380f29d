// The one refusal the spawn wiring throws inside itself; spawnAgent returns it as a value, and the
// CLI's commands that read spawn records turn it into their exit status.

/** What was refused (a stable reason) and, in one line, what to do. */
export class SpawnRefusal extends Error {
  readonly reason: string;
  constructor(reason: string, line: string) {
    super(line);
    this.reason = reason;
  }
}
