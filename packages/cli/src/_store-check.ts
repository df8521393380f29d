// doctor's checks of the team's store: which store the team is on, and for NATS the store itself —
// the server answers to this member's credentials, how the connection is protected (TLS), and the
// team's bucket is there with the team's settings. The NATS client is loaded only when the team
// is configured for it.
import { chooseStore } from "@muster/wiring";
import type { Context } from "./_context.js";

export type StoreCheck = {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string | undefined;
  warn?: boolean | undefined;
};

/** Whether every server URL names this machine (loopback): traffic that never leaves it. */
const onThisMachine = (servers: readonly string[]) =>
  servers.every((server) => {
    const host = new URL(server).hostname.replace(/^\[(.*)\]$/, "$1");
    return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
  });

/**
 * The store's checks: for a folder team one line (doctor checks the folder itself); for a NATS
 * team the server with these credentials, TLS, and the bucket. `nats`: whether the team is there.
 */
export async function storeChecks(
  context: Context,
): Promise<{ nats: boolean; checks: StoreCheck[] }> {
  const name = "team store";
  const chosen = await chooseStore({
    cwd: context.io.cwd,
    env: context.io.env,
    folder: () => context.team(),
  });
  if (!chosen.ok)
    return { nats: false, checks: [{ name, ok: false, detail: chosen.error, fix: chosen.fix }] };
  if (chosen.store === "folder") {
    const detail = "this machine's team folder (no MUSTER_NATS, no muster.toml)";
    return { nats: false, checks: [{ name, ok: true, detail }] };
  }
  const { connectTeam, openBucket, teamResources } = await import("@muster/nats");
  const servers = chosen.settings.servers;
  const where = `NATS at ${servers.join(", ")}, team ${chosen.team.name}`;
  const connected = await connectTeam(chosen.settings, { timeoutMs: 3_000, reconnect: false });
  if (!connected.ok)
    return {
      nats: true,
      checks: [{ name, ok: false, detail: connected.error, fix: connected.fix }],
    };
  const connection = connected.connection;
  const checks: StoreCheck[] = [
    { name, ok: true, detail: `${where} (${chosen.settings.source}) answers these credentials` },
  ];
  const tls = chosen.settings.tls || connection.info?.tls_required === true;
  checks.push(
    tls
      ? { name: "NATS TLS", ok: true, detail: "the connection is encrypted (TLS)" }
      : onThisMachine(servers)
        ? { name: "NATS TLS", ok: true, detail: "in the clear on this machine (loopback)" }
        : {
            name: "NATS TLS",
            ok: true,
            warn: true,
            detail: "the team's mail crosses the network in the clear",
            fix: "give the server TLS (muster nats config --tls-cert FILE --tls-key FILE) and use a tls:// URL",
          },
  );
  const bucket = teamResources(chosen.team.id).bucket;
  try {
    // As a member opens it: neither made nor changed here, only compared with the team's settings.
    await openBucket(connection, bucket);
    checks.push({ name: "NATS bucket", ok: true, detail: `${bucket} has the team's settings` });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    const fix = (error as { fix?: unknown }).fix;
    checks.push({
      name: "NATS bucket",
      ok: false,
      detail: typeof fix === "string" ? text.replace(`: ${fix}`, "") : text,
      fix: typeof fix === "string" ? fix : "check the team's server (muster nats init)",
    });
  } finally {
    await connection.close();
  }
  return { nats: true, checks };
}
