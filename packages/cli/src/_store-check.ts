// doctor's "team store" check: which store the team is on, and for NATS whether the server answers
// to this member's credentials. The NATS client is loaded only when the team is configured for it.
import { chooseStore } from "@muster/wiring";
import type { Context } from "./_context.js";

export type StoreCheck = {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string | undefined;
  warn?: boolean | undefined;
};

export async function storeCheck(context: Context): Promise<StoreCheck> {
  const name = "team store";
  const chosen = await chooseStore({
    cwd: context.io.cwd,
    env: context.io.env,
    folder: () => context.team(),
  });
  if (!chosen.ok) return { name, ok: false, detail: chosen.error, fix: chosen.fix };
  if (chosen.store === "folder")
    return {
      name,
      ok: true,
      detail: "this machine's team folder (no MUSTER_NATS, no muster.toml)",
    };
  const { connectTeam } = await import("@muster/nats");
  const where = `NATS at ${chosen.settings.servers.join(", ")}, team ${chosen.team.name}`;
  const connected = await connectTeam(chosen.settings, { timeoutMs: 3_000, reconnect: false });
  if (!connected.ok) return { name, ok: false, detail: connected.error, fix: connected.fix };
  await connected.connection.close();
  return {
    name,
    ok: true,
    warn: true,
    detail: `${where} (${chosen.settings.source}) answers; muster does not use it yet: the team is still this machine's folder until the NATS store lands`,
  };
}
