// The interactive dashboard: `muster status --watch` on a terminal, drawn with Ink in the alternate
// screen. The watch loop (_status-watch.ts) hands it each new reading; it lays it out for the
// terminal's width and height (_dashboard-lines.ts: the members scroll, so only the rows on screen
// are drawn), moves a selection with the arrow keys (or j/k, PgUp/PgDn, Home/End), takes the
// person to the selected member's pane on Enter (`muster go`'s own path), shows the person's unread
// mail on m (left unread), runs the actions (n start, x stop, s send, u up: _dashboard-prompt.ts
// asks, _dashboard-actions.ts runs the CLI's own command line, its answer shown in the note
// line), and quits on q, Esc or Ctrl-C, giving the terminal back as it was. Only this command
// loads Ink and React.
import { errorLine, localeSpeaksUtf8 } from "@muster/core";
import { Box, render, Text, useApp, useInput, useWindowSize } from "ink";
import { createElement as h, memo, useEffect, useState } from "react";
import type { Context } from "./_context.js";
import { hasCommand, runAction } from "./_dashboard-actions.js";
import type { DashboardData, MailShown, Tone } from "./_dashboard-data.js";
import { dashboardLines } from "./_dashboard-lines.js";
import { actionKey, type Prompt, promptKey, promptLine, type Step } from "./_dashboard-prompt.js";
import { goTo } from "./_go.js";

type Style = { color?: string; bold?: boolean; dimColor?: boolean; inverse?: boolean };

/** Each tone's look; with colour off (NO_COLOR, TERM=dumb) only bold, dim and inverse remain. */
const TONES: Record<Tone, Style> = {
  working: { color: "green" },
  idle: { color: "cyan" },
  "needs-you": { color: "red", bold: true },
  crashed: { color: "red", bold: true },
  starting: { color: "yellow" },
  gone: { dimColor: true },
  unknown: { dimColor: true },
  trouble: { color: "red", bold: true },
  bold: { bold: true },
  dim: { dimColor: true },
  warn: { color: "yellow" },
  selected: { bold: true, inverse: true },
  plain: {},
};

const styleOf = (tone: Tone, colour: boolean): Style => {
  const style = TONES[tone];
  return colour ? style : { ...style, color: undefined };
};

type Line = ReturnType<typeof dashboardLines>[number];
type RowProps = { line: Line; colour: boolean; drawn: string };

/**
 * One row, drawn again only when its text or tones changed (`drawn`): at rest a redraw ages a few
 * rows, and the full screen of a large team is not built again every two seconds.
 */
const Row = memo(
  ({ line, colour }: RowProps) =>
    h(
      Text,
      { wrap: "truncate-end" },
      ...line.map((piece, index) =>
        h(Text, { key: index, ...styleOf(piece.tone, colour) }, piece.text),
      ),
    ),
  (before, after) => before.drawn === after.drawn && before.colour === after.colour,
);

type Props = {
  data: DashboardData;
  /** When `data` was read: its ages are that much older now. */
  readAt: number;
  colour: boolean;
  utf8: boolean;
  /** Keys are read only from a terminal: raw mode needs one (`< /dev/null` has none). */
  keys: boolean;
  onGo: (label: string) => Promise<string>;
  /** The person's unread mail, shown (delivered) and left unread; or why it cannot be. */
  onMail: () => Promise<MailShown[] | string>;
  /** Run a command line as the CLI runs it: its answer or refusal, as one line. */
  onAction: (argv: readonly string[]) => Promise<{ ok: boolean; line: string }>;
};

function Dashboard({ data, readAt, colour, utf8, keys, onGo, onMail, onAction }: Props) {
  const app = useApp();
  const { columns, rows } = useWindowSize();
  // The selection follows the member (by id) when the order changes; by row when it left.
  const [selected, setSelected] = useState({ id: undefined as string | undefined, row: 0 });
  const [note, setNote] = useState<string | undefined>(undefined);
  const [mail, setMail] = useState<MailShown[] | undefined>(undefined);
  const [prompt, setPrompt] = useState<Prompt | undefined>(undefined);
  // `u` (and x's `d`) are offered once this muster is known to have `muster up` (`down`).
  const [has, setHas] = useState({ up: false, down: false });
  useEffect(() => {
    void Promise.all([hasCommand("up"), hasCommand("down")]).then(([up, down]) =>
      setHas({ up, down }),
    );
  }, []);
  /** A prompt's or an action key's step: the prompt it leaves open, its note, its command. */
  const apply = (step: Step) => {
    setPrompt(step.prompt);
    if (step.note) setNote(step.note);
    if (!step.action) return;
    setNote(step.action.doing);
    void onAction(step.action.argv).then((answer) => setNote(answer.line));
  };
  const last = Math.max(0, data.members.length - 1);
  const found = data.members.findIndex((member) => member.id === selected.id);
  const at = found >= 0 ? found : Math.min(selected.row, last);
  const page = Math.max(1, rows - 8);
  const select = (row: number) => {
    const to = Math.max(0, Math.min(last, row));
    setSelected({ id: data.members[to]?.id, row: to });
  };
  useInput(
    (input, key) => {
      // An open prompt takes every key (Esc closes it): typed text never moves the selection.
      if (prompt) return apply(promptKey(prompt, input, key));
      if (input === "q" || key.escape) return app.exit();
      if (key.upArrow || input === "k") select(at - 1);
      if (key.downArrow || input === "j") select(at + 1);
      if (key.pageUp) select(at - page);
      if (key.pageDown) select(at + page);
      if (key.home) select(0);
      if (key.end) select(last);
      const member = data.members[at];
      if (key.return && member) void onGo(member.label).then(setNote);
      const step = actionKey(input, member?.label, has);
      if (step) return apply(step);
      if (input === "m") {
        if (mail) return setMail(undefined);
        void onMail().then((shown) =>
          typeof shown === "string" ? setNote(shown) : setMail(shown),
        );
      }
    },
    { isActive: keys },
  );
  const lines = dashboardLines(data, {
    width: columns,
    height: rows,
    selected: at,
    note,
    utf8,
    mail,
    elapsedMs: Math.max(0, Date.now() - readAt),
    prompt: prompt && promptLine(prompt, utf8 ? " · " : " | "),
    up: has.up,
  });
  return h(
    Box,
    { flexDirection: "column" },
    ...lines.map((line, row) => h(Row, { key: row, line, colour, drawn: JSON.stringify(line) })),
  );
}

/**
 * The person's unread mail (every member joined from a shell is the person), oldest first: marked
 * delivered, as `muster inbox --peek` marks it, and left unread for `muster inbox`.
 */
async function personMail(
  context: Context,
  members: readonly DashboardData["members"][number][],
): Promise<MailShown[] | string> {
  const people = members.filter((member) => member.person && member.state === "live");
  if (people.length === 0) return "you have not joined from a shell: muster join <label>, then m";
  const roster = await context.roster();
  const now = Date.now();
  const shown: MailShown[] = [];
  for (const person of people) {
    const inbox = await roster.receive(person.id);
    if (!inbox.ok) return inbox.error;
    if (inbox.messages.length > 0)
      await roster.markDelivered(
        person.id,
        inbox.messages.map((message) => message.id),
        "dashboard",
      );
    for (const message of inbox.messages)
      shown.push({
        to: person.label,
        from: message.from.label,
        ageMs: Math.max(0, now - Date.parse(message.sentAt)),
        body: message.body,
      });
  }
  return shown;
}

/**
 * The dashboard, drawn until the person quits; `show` redraws it with a reading (read at `readAt`:
 * the same reading again only ages it).
 */
export function startDashboard(context: Context, first: DashboardData, firstAt = Date.now()) {
  const utf8 = localeSpeaksUtf8(context.io.env);
  const keys = Boolean(context.io.stdin.isTTY);
  let members = first.members;
  const onGo = async (label: string) => {
    const gone = await goTo(context, members, label);
    return gone.ok ? `${gone.label}: pane ${gone.pane}` : errorLine(gone);
  };
  const onMail = () => personMail(context, members);
  const onAction = (argv: readonly string[]) => runAction(context, argv);
  const element = (data: DashboardData, readAt: number) =>
    h(Dashboard, { data, readAt, colour: context.colorOn, utf8, keys, onGo, onMail, onAction });
  const instance = render(element(first, firstAt), {
    stdout: context.io.stdout as NodeJS.WriteStream,
    stdin: context.io.stdin,
    stderr: context.io.stderr as NodeJS.WriteStream,
    // Only a terminal comes here: drawn in place even where CI is set (Ink draws CI's last frame only).
    interactive: true,
    alternateScreen: true,
    exitOnCtrlC: true,
    patchConsole: false,
  });
  return {
    show(data: DashboardData, readAt = Date.now()) {
      members = data.members;
      instance.rerender(element(data, readAt));
    },
    /** Settles once the person quit (q, Esc, Ctrl-C) or `stop` was called. */
    done: instance.waitUntilExit().then(
      () => undefined,
      () => undefined,
    ),
    stop: () => instance.unmount(),
  };
}
