// Typing the nudge into a pane: the effects around @muster/tmux's rules. Two looks a moment apart
// (tmux, and the pane's process tree), the verdict; then the fixed text, a look that the input line
// holds exactly the prompt and the text, Enter, and a look that it was submitted. Never Escape,
// never Ctrl-C: the only keys are those `nudgeArgs` names.
import { type TreeActivity, treeActivity } from "@muster/node";
import {
  type NudgeVerdict,
  nudgeArgs,
  nudgeVerdict,
  type PaneLook,
  parseLook,
  type ServerTarget,
  submitted,
  typedCheck,
} from "@muster/tmux";

type Run = (args: string[]) => Promise<{ status: number | null; stdout: string; stderr: string }>;

export type NudgeOptions = {
  /** Runs tmux (the arguments name the server). */
  run: Run;
  target: ServerTarget;
  pane: string;
  /** How long the two looks are apart: an agent that changes nothing for this long is idle. */
  quietMs?: number | undefined;
  sleep?: ((ms: number) => Promise<void>) | undefined;
  /** The pane's process tree right now (default: /proc). */
  activity?: ((pid: number) => TreeActivity | undefined) | undefined;
  /** Called once the pane was judged ready, just before typing (a claim per message goes here). */
  beforeTyping?: (() => Promise<boolean>) | undefined;
};

export type NudgeOutcome =
  | { ok: true }
  | {
      ok: false;
      reason: Extract<NudgeVerdict, { ok: false }>["reason"] | "no-pane" | "claimed" | "raced";
      why: string;
    }
  | { ok: false; reason: "not-submitted"; why: string };

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Type the nudge into `pane` if its agent is idle at an empty prompt; say what happened. */
export async function nudgePane(options: NudgeOptions): Promise<NudgeOutcome> {
  const args = nudgeArgs(options.target, options.pane);
  if (!args) return { ok: false, reason: "no-pane", why: `${options.pane} is not a pane id` };
  const sleep = options.sleep ?? pause;
  const activity = options.activity ?? treeActivity;
  const look = async (): Promise<PaneLook | undefined> => {
    const [info, screen] = await Promise.all([options.run(args.look), options.run(args.screen)]);
    if (info.status !== 0 || screen.status !== 0) return undefined;
    return parseLook(info.stdout, screen.stdout);
  };
  const sample = async () => {
    const pane = await look();
    const processes = pane ? activity(pane.panePid) : undefined;
    return pane && processes ? { look: pane, processes } : undefined;
  };
  const first = await sample();
  if (!first) return { ok: false, reason: "no-pane", why: "the pane or its processes are gone" };
  await sleep(options.quietMs ?? 400);
  const second = await sample();
  if (!second) return { ok: false, reason: "no-pane", why: "the pane or its processes are gone" };
  const verdict = nudgeVerdict(first, second);
  if (!verdict.ok) return verdict;
  if (options.beforeTyping && !(await options.beforeTyping()))
    return { ok: false, reason: "claimed", why: "another muster process nudged for this mail" };
  await options.run(args.text);
  // The echo may lag a moment behind the keys: look a few times before deciding.
  let typed: ReturnType<typeof typedCheck> = "unknown";
  for (let attempt = 0; attempt < 10 && typed === "unknown"; attempt += 1) {
    await sleep(50);
    const now = await look();
    typed = now ? typedCheck(now) : "unknown";
  }
  if (typed === "ours-at-end") {
    await options.run(args.erase);
    return {
      ok: false,
      reason: "raced",
      why: "someone typed at the same moment: nudge taken back",
    };
  }
  if (typed === "unknown")
    return {
      ok: false,
      reason: "raced",
      why: "the input line changed while typing: not submitted",
    };
  await options.run(args.submit);
  for (let attempt = 0; attempt < 10; attempt += 1) {
    await sleep(100);
    const after = await look();
    if (after && submitted(after)) return { ok: true };
  }
  return { ok: false, reason: "not-submitted", why: "the nudge was typed but not submitted" };
}
