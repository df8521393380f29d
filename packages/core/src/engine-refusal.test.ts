import { describe, expect, it } from "vitest";
import { modelRefusal } from "./index.js";

const said = (status: number | null, stdout: string, stderr = "") =>
  ({ found: true, status, stdout, stderr }) as const;

// What `muster up` refuses by: only an answer that proves the engine cannot run a turn.
describe("modelRefusal", () => {
  it.each([
    ["pi", { found: false } as const, "engine-missing"],
    ["claude", { found: false } as const, "engine-missing"],
    ["codex", { found: false } as const, "engine-missing"],
    [
      "pi",
      said(0, "", "No models available. Use /login to log into a provider\n"),
      "engine-no-model",
    ],
    ["claude", said(1, '{"loggedIn": false, "authMethod": "none"}'), "engine-not-signed-in"],
    // Codex with a model provider of its own needs no login: not proof.
    ["codex", said(1, "", "Not logged in\n"), undefined],
    ["pi", said(0, "provider  model\nfaux      faux-1\n"), undefined],
    ["claude", said(0, '{"loggedIn": true, "authMethod": "api_key"}'), undefined],
    // No answer in time, or none to read: not proof either.
    ["pi", said(null, ""), undefined],
    ["claude", said(0, "not json"), undefined],
  ] as const)("%s %j → %s", (engine, answer, reason) => {
    const refusal = modelRefusal(engine, answer);
    expect(refusal?.reason).toBe(reason);
    if (refusal) expect(refusal.fix).not.toBe("");
  });

  it("takes pi's empty list as no proof for a member whose args choose its provider or model", () => {
    const empty = said(0, "", "No models available. Use /login to log into a provider\n");
    expect(modelRefusal("pi", empty, ["--provider", "faux", "--model", "faux-1"])).toBeUndefined();
    expect(modelRefusal("pi", empty, ["--model=faux-1"])).toBeUndefined();
    expect(modelRefusal("pi", empty, ["--offline"])?.reason).toBe("engine-no-model");
  });
});
