// Test-only pi tools for the activity tests: `hold` keeps its turn running until the file named
// by MUSTER_HOLD_FILE exists; `ask` waits on the person with ui.confirm, as a permission
// extension would.
import { existsSync } from "node:fs";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

export default function activityTools(pi: ExtensionAPI) {
  pi.registerTool({
    name: "hold",
    label: "Hold",
    description: "Wait until the test lets the turn go on.",
    parameters: Type.Object({}),
    async execute() {
      while (!existsSync(process.env.MUSTER_HOLD_FILE ?? "/nonexistent"))
        await new Promise((resolve) => setTimeout(resolve, 50));
      return { content: [{ type: "text", text: "released" }], details: {} };
    },
  });
  pi.registerTool({
    name: "ask",
    label: "Ask",
    description: "Ask the person before going on.",
    parameters: Type.Object({}),
    async execute(_id, _params, _signal, _update, ctx) {
      const yes = await ctx.ui.confirm("Go on?", "The test decides.");
      return { content: [{ type: "text", text: yes ? "yes" : "no" }], details: {} };
    },
  });
}
