// The plan of loop-brake-engines.test.ts as data: replies bounced round pi → Codex → Claude Code →
// pi, each an answer (reply_to) to the conversation's first mail, so all of them are one
// conversation one hop deep (answers to answers would stop waking at core's hop limit, the 6th
// mail, before the conversation's budget: a ring of replies is braked by its hops first, the
// budget holds where the answers fan out); a scripted model per engine that sends each when the test lets it go, with the
// id it answers filled in then (Codex's and Claude Code's step arguments, pi's gate file). Past
// core's budget the ring stops by itself: the braked mail wakes no one. The last send is Codex's,
// in a turn the person starts, answering the braked mail.
import { CONVERSATION_TURNS } from "@muster/core";
import type { MessagesStep, ScriptStep } from "@muster/test-support";
import { type Engine, type Gate, LABEL } from "./mixed-route.ts";
import type { MixedScripts } from "./mixed-team.ts";

/** The lead: a fourth member, the test's own process, told of the brake. */
export const LEAD = "lead";
const RING: readonly Engine[] = ["pi", "codex", "claude"];
/** The first braked mail: the conversation's budget, plus one. */
export const BRAKED = CONVERSATION_TURNS + 1;
/** The person's send, in a turn they start: another braked mail of the conversation. */
export const BY_PERSON = BRAKED + 1;

export type RingMail = { number: number; from: Engine; to: Engine; body: string };
const ringMail = (number: number, from: Engine): RingMail => {
  const to = RING[(RING.indexOf(from) + 1) % 3]!;
  return { number, from, to, body: `ring #${number} from ${LABEL[from]} to ${LABEL[to]}` };
};
/** Mail 1 to the first braked, each sent by the one the mail before woke. */
export const ring = Array.from({ length: BRAKED }, (_, index) =>
  ringMail(index + 1, RING[index % 3]!),
);
/** Codex answering the braked mail when the person asks it to read its mail. */
export const byPerson = ringMail(BY_PERSON, ring[BRAKED - 1]!.to);
const sendsOf = (engine: Engine) =>
  [...ring, byPerson].filter((mail) => mail.from === engine && mail.number > 1);

/** The arguments of each scripted send, by mail number: the test sets `reply_to` before its gate. */
export const sendArgs = new Map<number, Record<string, unknown>>(
  [...ring, byPerson].map((mail) => [mail.number, { to: LABEL[mail.to], message: mail.body }]),
);

function codexScript(gates: readonly Gate[]): ScriptStep[] {
  const call = (name: string, args: Record<string, unknown>) => ({
    call: { name, namespace: "mcp__muster", arguments: args },
  });
  return [
    call("team_roster", {}),
    { text: "Joined." },
    ...sendsOf("codex").flatMap((mail): ScriptStep[] => [
      call("team_inbox", {}),
      { ...call("team_send", sendArgs.get(mail.number)!), after: gates[mail.number - 1]!.opened },
      { text: "Answered." },
    ]),
  ];
}

function claudeScript(gates: readonly Gate[]): MessagesStep[] {
  return sendsOf("claude").flatMap((mail): MessagesStep[] => [
    {
      call: { name: "mcp__muster__team_send", arguments: sendArgs.get(mail.number)! },
      after: gates[mail.number - 1]!.opened,
    },
    { text: "Answered." },
  ]);
}

function piScript(gateFile: (number: number) => string): unknown[] {
  const first = ring[0]!;
  return [
    { tool: "team_lead", args: { label: LEAD } },
    { tool: "team_send", args: sendArgs.get(first.number) },
    { text: "Sent." },
    ...sendsOf("pi").flatMap((mail) => [
      {
        tool: "bash",
        args: {
          command: `for i in $(seq 1200); do [ -e '${gateFile(mail.number)}' ] && exit 0; sleep 0.05; done; exit 1`,
        },
      },
      { tool: "team_send", args: sendArgs.get(mail.number), argsFrom: gateFile(mail.number) },
      { text: "Answered." },
    ]),
  ];
}

export const ringScripts: MixedScripts = {
  codex: codexScript,
  claude: (gates) => claudeScript(gates),
  pi: piScript,
};
