// Whether an engine muster is set up in has a model it may use, as `muster doctor` asks it: each
// engine's own offline command that makes no model call (pi's model list, Codex's and Claude
// Code's sign-in status), and what its answer means. A key that is there may still be refused, and
// a service may still be out of reach: only a model call would know, and doctor makes none, so a
// good answer is "not verified". Pure: the caller runs the command and hands in what it printed.
import { quotedLine } from "./_engine-trouble.js";

/** The engines doctor asks, each with its name for a person and the command (measured offline). */
export const MODEL_ASKS = {
  pi: { name: "pi", argv: ["pi", "--offline", "--list-models"] },
  codex: { name: "Codex", argv: ["codex", "login", "status"] },
  claude: { name: "Claude Code", argv: ["claude", "auth", "status"] },
} as const;

export type ModelEngine = keyof typeof MODEL_ASKS;

/** What the command did: its exit status (null: it did not answer in time) and output; or none. */
export type ModelAnswer =
  | { found: true; status: number | null; stdout: string; stderr: string }
  | { found: false };

/** The check doctor shows: a warning where the engine has no model, else "not verified". */
export type ModelCheck = { ok: true; warn?: boolean; detail: string; fix?: string };

const NOT_VERIFIED = "not verified: doctor calls no model";

const firstLine = (text: string) =>
  quotedLine(text.split("\n").find((line) => line.trim() !== "") ?? "");

/** What `engine`'s answer says about its model. */
export function modelCheck(engine: ModelEngine, answer: ModelAnswer): ModelCheck {
  const { name, argv } = MODEL_ASKS[engine];
  const command = argv.join(" ");
  if (!answer.found)
    return {
      ok: true,
      warn: true,
      detail: `${argv[0]} is not on PATH, so muster spawn ${engine} cannot start it`,
      fix: `install ${name}, or put ${argv[0]} on PATH`,
    };
  if (answer.status === null)
    return { ok: true, warn: true, detail: `${command} did not answer in time: ${NOT_VERIFIED}` };
  const text = `${answer.stdout}\n${answer.stderr}`;
  if (engine === "pi") {
    if (/No models available/.test(text))
      return {
        ok: true,
        warn: true,
        detail: `pi has no model: ${command} says "${firstLine(text.slice(text.indexOf("No models available")))}"`,
        fix: "a provider's key in the environment (e.g. ANTHROPIC_API_KEY) or /login in pi; or spawn it with -- --provider NAME --model ID",
      };
    const models = answer.stdout.split("\n").filter((line) => line.trim() !== "").length - 1;
    return {
      ok: true,
      detail: `${Math.max(0, models)} model(s) with a key (${command}); ${NOT_VERIFIED}`,
    };
  }
  if (engine === "codex")
    return answer.status === 0
      ? { ok: true, detail: `Codex says "${firstLine(answer.stdout)}"; ${NOT_VERIFIED}` }
      : {
          ok: true,
          warn: true,
          detail: `Codex is not signed in: it says "${firstLine(/Not logged in/.test(text) ? "Not logged in" : text)}"`,
          fix: "codex login (an API key: printenv OPENAI_API_KEY | codex login --with-api-key); a model_provider of your own in config.toml needs none",
        };
  let status: { loggedIn?: unknown; authMethod?: unknown; apiKeySource?: unknown } = {};
  try {
    status = JSON.parse(answer.stdout);
  } catch {
    return { ok: true, warn: true, detail: `${command} printed no status: ${NOT_VERIFIED}` };
  }
  if (status.loggedIn !== true)
    return {
      ok: true,
      warn: true,
      detail: `Claude Code is not logged in (${command})`,
      fix: "/login in Claude Code, or set ANTHROPIC_API_KEY where you spawn it",
    };
  const how = [status.authMethod, status.apiKeySource].filter((part) => typeof part === "string");
  return {
    ok: true,
    detail: `Claude Code is logged in${how.length > 0 ? ` (${how.join(", ")})` : ""}; ${NOT_VERIFIED}`,
  };
}

/** Why `muster up` will not start an engine: it is not there, or its own status proves it cannot work. */
export type ModelRefusal = {
  reason: "engine-missing" | "engine-no-model" | "engine-not-signed-in";
  error: string;
  fix: string;
};

/**
 * Whether `engine`'s answer proves it cannot run a turn, so that `muster up` refuses before it
 * starts it (rather than waiting out its time limit): it is not on PATH, pi has no model, Claude
 * Code is not logged in. Codex's "Not logged in" proves nothing (a model_provider of one's own
 * needs no login; its sign-in screen shows at start, where the spawn reads it), nor does a command
 * that did not answer in time. Nor is pi's empty list for a member whose own `args` choose its
 * provider or model: pi lists without them, and a provider an extension registers has been seen
 * missing from that list under load (pi 1.6.0) while the member then ran.
 */
export function modelRefusal(
  engine: ModelEngine,
  answer: ModelAnswer,
  args: readonly string[] = [],
): ModelRefusal | undefined {
  const { name, argv } = MODEL_ASKS[engine];
  if (!answer.found)
    return {
      reason: "engine-missing",
      error: `${name} is not installed here (${argv[0]} is not on PATH)`,
      fix: `install ${name}, or put ${argv[0]} on PATH`,
    };
  if (answer.status === null || engine === "codex") return undefined;
  const check = modelCheck(engine, answer);
  if (!check.warn) return undefined;
  const chooses = args.some((arg) => /^--(provider|model)(=|$)/.test(arg));
  if (engine === "pi" && check.detail.startsWith("pi has no model") && !chooses)
    return {
      reason: "engine-no-model",
      error: check.detail,
      fix: 'a provider\'s key in the environment (e.g. ANTHROPIC_API_KEY) or /login in pi, or args = ["--provider", "NAME", "--model", "ID"] in its [[member]]',
    };
  if (engine === "claude" && check.detail.includes("is not logged in"))
    return {
      reason: "engine-not-signed-in",
      error: check.detail,
      fix: "/login in Claude Code, or set ANTHROPIC_API_KEY where you run muster up",
    };
  return undefined;
}
