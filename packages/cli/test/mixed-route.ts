// The plan of mixed-team.test.ts as data: the three engines' labels, the fifteen mails' route
// round the team, the gates that hold each send, and each engine's scripted model. The board and
// lease work rides in the turns the mails start: pi (the lead) lays out the cards, Codex claims
// c1 and leases `src/auth/**` then mails the lead, Claude Code is refused c2 (blocked by c1),
// claims c3 and is refused its Edit of a leased file; after Codex is SIGKILLed, pi's last mail
// sends Claude Code to the board, whose read opens c1 again and tells the lead.
import type { MessagesStep, ScriptStep } from "@muster/test-support";

export type Engine = "pi" | "codex" | "claude";
export const ENGINES = ["pi", "codex", "claude"] as const;
export const LABEL: Record<Engine, string> = { pi: "planner", codex: "coder", claude: "writer" };
const ENGINE: Record<string, Engine> = { p: "pi", x: "codex", c: "claude" };

export type Mail = { number: number; from: Engine; to: Engine; body: string };
const mail = (number: number, from: Engine, to: Engine): Mail => ({
  number,
  from,
  to,
  body: `mail #${number} from ${LABEL[from]} to ${LABEL[to]}`,
});

/**
 * The recipients in order; mail 1 is sent by pi, each later one by the previous recipient. Mail 2
 * is Codex's to the lead; each engine gets 5, from both others.
 */
const ROUTE = [..."xpcxcpxpcxcpxcp"].map((letter) => ENGINE[letter]!);
export const mails = ROUTE.map((to, index) =>
  mail(index + 1, index === 0 ? "pi" : ROUTE[index - 1]!, to),
);
/** After the round and Codex's SIGKILL: pi's mail that sends Claude Code to the board. */
export const recovery = mail(16, "pi", "claude");
export const sendsFrom = (engine: Engine) => mails.filter((each) => each.from === engine);

/** The leased work: Codex's lease, and the file in Claude Code's repository it covers. */
export const LEASE = "src/auth/**";
export const AUTH_FILE = "src/auth/session.ts";
export const AUTH_SOURCE = "export const ttl = 60;\n";
export const AUTH_EDITED = "export const ttl = 30;\n";
export const CARDS = { c1: "auth: sessions", c2: "auth: document sessions", c3: "readme" };

/** A promise that holds a send until the test lets it go. */
export type Gate = { opened: Promise<void>; open(): void };
export function gate(): Gate {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const codexCall = (name: string, args: Record<string, unknown>): ScriptStep => ({
  call: { name, namespace: "mcp__muster", arguments: args },
});

/** Codex: a first turn that joins it, then per wake: read, (c1's work), send the next, done. */
export function codexScript(gates: readonly Gate[]): ScriptStep[] {
  return [
    codexCall("team_roster", {}),
    { text: "Joined." },
    ...sendsFrom("codex").flatMap((each) => [
      codexCall("team_inbox", {}),
      ...(each.number === 2
        ? [
            codexCall("team_claim", { card: "c1" }),
            codexCall("team_lease", { paths: [LEASE], reason: "auth sessions" }),
          ]
        : []),
      {
        ...codexCall("team_send", { to: LABEL[each.to], message: each.body }),
        after: gates[each.number - 1]!.opened,
      },
      { text: "Sent." },
    ]),
  ];
}

const claudeCall = (name: string, args: Record<string, unknown>): MessagesStep => ({
  call: { name, arguments: args },
});
const claudeTeam = (tool: string, args: Record<string, unknown>) =>
  claudeCall(`mcp__muster__${tool}`, args);

/** Claude Code: each wake turn carries the mail; it sends the next (held from its first step). */
export function claudeScript(gates: readonly Gate[], file: string): MessagesStep[] {
  const edit = [
    claudeCall("Read", { file_path: file }),
    claudeCall("Edit", { file_path: file, old_string: "ttl = 60", new_string: "ttl = 30" }),
  ];
  return [
    ...sendsFrom("claude").flatMap((each) => {
      const work =
        each.number === 4
          ? [
              claudeTeam("team_claim", { card: "c2" }),
              claudeTeam("team_claim", { card: "c3" }),
              ...edit,
            ]
          : [];
      const [first, ...rest] = [
        ...work,
        claudeTeam("team_send", { to: LABEL[each.to], message: each.body }),
        { text: "Sent." },
      ];
      return [{ ...first!, after: gates[each.number - 1]!.opened }, ...rest];
    }),
    // Woken by the recovery mail: the board read opens c1 (its holder is dead); claim it, edit.
    claudeTeam("team_cards", {}),
    claudeTeam("team_claim", { card: "c1" }),
    ...edit,
    { text: "Took c1 over." },
  ];
}

/**
 * pi: the first turn (a prompt) makes itself the lead and lays out the cards; each later send
 * from a wake, held by a gate file (pi's model runs in pi's process: its bash tool waits for the
 * file); the two board notices (c2 refused as blocked, c1 open again) wake it for a turn of its own.
 */
export function piScript(gateFile: (number: number) => string): unknown[] {
  const held = (number: number) => ({
    tool: "bash",
    args: {
      command: `for i in $(seq 1200); do [ -e '${gateFile(number)}' ] && exit 0; sleep 0.05; done; exit 1`,
    },
  });
  const send = (each: Mail) => [
    ...(each.number === 1 ? [] : [held(each.number)]),
    { tool: "team_send", args: { to: LABEL[each.to], message: each.body } },
    { text: "Sent." },
  ];
  const [first, second, ...later] = sendsFrom("pi");
  return [
    { tool: "team_lead", args: { label: LABEL.pi } },
    { tool: "team_add", args: { title: CARDS.c1 } },
    { tool: "team_add", args: { title: CARDS.c2, after: ["c1"] } },
    { tool: "team_add", args: { title: CARDS.c3 } },
    ...send(first!),
    ...send(second!),
    { text: "Noted: c2 waits for c1." },
    ...later.flatMap(send),
    ...send(recovery),
    { text: "Noted: c1 is open again." },
  ];
}
