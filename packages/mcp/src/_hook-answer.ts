// What a Claude Code hook is given and answers: shared by the hook (`_claude-hook.ts`) and the
// lease guard it runs (`_claude-leases.ts`), so that neither imports the other.
export type HookEvent =
  | "session-start"
  | "user-prompt-submit"
  | "stop"
  | "session-end"
  | "file-changed"
  | "notification"
  | "pre-tool-use"
  | "permission-request";

/**
 * What the hook process answers: its stdout, stderr and exit status; and, when it carries mail,
 * `settle`, called once the answer was written (or failed to be): the mail is acknowledged only
 * then, so an answer lost on the way leaves it unread.
 */
export type HookAnswer = {
  stdout: string;
  stderr: string;
  status: number;
  settle?: ((written: boolean) => Promise<void>) | undefined;
};

export type HookOptions = {
  env: NodeJS.ProcessEnv;
  cwd: string;
  ppid: number;
  /** When Claude Code ran the hook (ms): its signals are ordered by it. Default: this process's start. */
  startedAt?: number | undefined;
};
