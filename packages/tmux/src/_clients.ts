// The attached clients of a server, and the pane each shows, in one tmux call; and the calls that
// draw the person's attention: a message on a client, and moving a client to a pane (`muster go`).
// Client names and ttys are paths tmux made (`/dev/pts/3`); a line that is not one is skipped.
import { type ServerTarget, serverArgs, tmuxCommand } from "./_server.js";

/** One attached client: its name, its terminal, and its current pane and window. */
export type Client = { name: string; tty: string; session: string; window: string; pane: string };

/** Also asked for: the user's setting of the alert's channels, as tmux resolves it for a client. */
export type ClientsRead = { clients: Client[]; setting: string | undefined };

const FIELDS = ["client_name", "client_tty", "session_id", "window_id", "pane_id"];
const SETTING = "@muster-attention";
const TTY = /^\/dev\/[A-Za-z0-9/._-]{1,64}$/;
const ID = /^[$@%]\d+$/;

export const listClientsArgs = (target: ServerTarget) => [
  ...serverArgs(target),
  "list-clients",
  "-F",
  [...FIELDS.map((name) => `#{${name}}`), `#{${SETTING}}`].join("\t"),
];

/** The clients a `list-clients` printed; a line that does not hold a client is skipped. */
export function parseClients(stdout: string): ClientsRead {
  const clients: Client[] = [];
  let setting: string | undefined;
  for (const line of stdout.split("\n")) {
    const [name, tty, session, window, pane, ...rest] = line.split("\t");
    if (
      !name ||
      !tty ||
      !TTY.test(tty) ||
      ![session, window, pane].every((id) => ID.test(id ?? ""))
    )
      continue;
    clients.push({ name, tty, session: session!, window: window!, pane: pane! });
    if (rest.length > 0 && rest.join("\t") !== "") setting ??= rest.join("\t");
  }
  return { clients, setting };
}

/** A message on one client's status line for `ms`; `#` doubled so tmux shows it as written. */
export const messageArgs = (target: ServerTarget, client: string, text: string, ms = 5000) => [
  ...serverArgs(target),
  "display-message",
  "-c",
  client,
  "-d",
  String(ms),
  text.replaceAll("#", "##"),
];

/** The tty of a pane, for its window's bell flag. */
export const paneTtyArgs = (target: ServerTarget, pane: string) => [
  ...serverArgs(target),
  "display-message",
  "-p",
  "-t",
  pane,
  "#{pane_tty}",
];

/** A pane's tty as tmux printed it, or undefined when that is not a terminal device's path. */
export const parseTty = (stdout: string) => {
  const tty = stdout.trim();
  return TTY.test(tty) ? tty : undefined;
};

/** The running server's binding of one key in one table (`bind-key -T prefix g …`; exit 1: none). */
export const listKeyArgs = (target: ServerTarget, table: string, key: string) => [
  ...serverArgs(target),
  "list-keys",
  "-T",
  table,
  key,
];

/**
 * What a person types to see a session of that server in their terminal (a session id such as
 * `$3` quoted for the shell).
 */
export const attachCommand = (target: ServerTarget, session: string) =>
  `${tmuxCommand(target)} attach -t ${/^[A-Za-z0-9._-]+$/.test(session) ? session : `'${session.replaceAll("'", "'\\''")}'`}`;

/** Take a client to a pane: its session, its window, then the pane within the window. */
export const goArgs = (target: ServerTarget, client: string | undefined, pane: string) => [
  ...serverArgs(target),
  "switch-client",
  ...(client ? ["-c", client] : []),
  "-t",
  pane,
  ";",
  "select-window",
  "-t",
  pane,
  ";",
  "select-pane",
  "-t",
  pane,
];
