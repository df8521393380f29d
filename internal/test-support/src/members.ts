// A member as store and roster tests join it by the dozen: a pi member that listens without being
// woken, kept live by its heartbeat, with this test process's pid.

/** The join request for member `id` under `label` (heartbeat-live, listening, never woken). */
export const heartbeatMember = (id: string, label: string) => ({
  id,
  label,
  agent: "pi",
  pid: process.pid,
  watching: { armed: true, wake: false },
  liveness: "heartbeat" as const,
});
