// Test-only pi extension: registers pi's scripted `faux` model, so tests drive real tool calls with
// no key and no network. MUSTER_FAUX_SCRIPT is a JSON list of steps, each { "text" } or
// { "tool", "args" } (with "argsFrom": a JSON file whose fields join the args when the step is
// taken, such as the id of the mail a reply answers); once it runs out, every turn answers "ok". With MUSTER_FAUX_TURNS set, each
// start of pi's agent loop appends the time (Date.now()) to that file: when a turn started, for
// a pi in a pane that no RPC stream reports on.
import { appendFileSync, readFileSync } from "node:fs";

import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

type Args = Parameters<typeof fauxToolCall>[1];
type Step = { text: string } | { tool: string; args: Args; argsFrom?: string };

/** A tool step's message, its args joined by its file's at the moment the model is asked. */
const toolStep = (step: { tool: string; args: Args; argsFrom?: string }) =>
  step.argsFrom === undefined
    ? fauxAssistantMessage(fauxToolCall(step.tool, step.args))
    : () => {
        const more = JSON.parse(readFileSync(step.argsFrom as string, "utf8")) as Args;
        return fauxAssistantMessage(fauxToolCall(step.tool, { ...step.args, ...more }));
      };

export default function fauxForTests(pi: ExtensionAPI) {
  const steps = JSON.parse(process.env.MUSTER_FAUX_SCRIPT ?? "[]") as Step[];
  const faux = fauxProvider({ provider: "faux", models: [{ id: "faux-1" }] });
  faux.setResponses([
    ...steps.map((step) => ("tool" in step ? toolStep(step) : fauxAssistantMessage(step.text))),
    ...Array.from({ length: 50 }, () => fauxAssistantMessage("ok")),
  ]);
  pi.registerProvider(faux.provider);
  const turns = process.env.MUSTER_FAUX_TURNS;
  if (turns) pi.on("agent_start", () => appendFileSync(turns, `${Date.now()}\n`));
}
