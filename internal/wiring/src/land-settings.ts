// What a land reads from the repository's muster.toml (`[land] base`, `[land] check`), and the
// check commands the person has confirmed. A check from muster.toml is a command a clone's author
// chose: it runs only once the person has confirmed that command for that repository, as direnv
// does and as `muster nats allow` does for a server; the confirmations are kept in the person's own
// config folder ($XDG_CONFIG_HOME/muster/land-checks.json), never in a repository.
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { readRegularFile } from "@muster/node";

export type LandSettings = { base?: string | undefined; check?: string | undefined };

const MAX_BYTES = 64 * 1024;

/** `[land]` of `<root>/muster.toml`: its base and check, or why it is not read. */
export async function landSettings(
  root: string,
): Promise<{ ok: true; settings: LandSettings } | { ok: false; error: string }> {
  let text: string;
  try {
    text = readRegularFile(path.join(root, "muster.toml"));
  } catch {
    return { ok: true, settings: {} };
  }
  if (text.length > MAX_BYTES) return { ok: false, error: "muster.toml is larger than 64 KiB" };
  // Loaded only here: every command loads the wiring, and only a land reads TOML.
  const { parse } = await import("smol-toml");
  let document: Record<string, unknown>;
  try {
    document = parse(text) as Record<string, unknown>;
  } catch {
    return { ok: false, error: "muster.toml does not parse; fix it (TOML) and land again" };
  }
  const land = document.land;
  if (land === undefined) return { ok: true, settings: {} };
  if (typeof land !== "object" || land === null || Array.isArray(land))
    return {
      ok: false,
      error: "muster.toml's land is not a table; write [land] with base and check",
    };
  const table = land as Record<string, unknown>;
  for (const [key, value] of Object.entries(table))
    if (!["base", "check"].includes(key) || typeof value !== "string" || value.trim() === "")
      return {
        ok: false,
        error: `muster.toml's land.${JSON.stringify(key).slice(1, -1)} is not a known string key (base, check)`,
      };
  return {
    ok: true,
    settings: { base: table.base as string | undefined, check: table.check as string | undefined },
  };
}

/** One confirmation: this command, in this repository (its main checkout, resolved). */
export type ConfirmedCheck = { repository: string; command: string };

/** The person's confirmations: `$XDG_CONFIG_HOME/muster/land-checks.json` (else `~/.config/…`). */
export function confirmedChecksFile(env: NodeJS.ProcessEnv = process.env): string {
  const config =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : path.join(env.HOME || os.homedir(), ".config");
  return path.join(config, "muster", "land-checks.json");
}

/** The confirmations in `file`; none when it is absent, not a small regular file, or unreadable. */
export function readConfirmedChecks(file: string): ConfirmedCheck[] {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const facts = fstatSync(descriptor);
    if (!facts.isFile() || facts.size > 1024 * 1024) return [];
    const document = JSON.parse(readFileSync(descriptor, "utf8")) as { confirmed?: unknown };
    if (!Array.isArray(document.confirmed)) return [];
    return document.confirmed.filter(
      (entry): entry is ConfirmedCheck =>
        typeof entry?.repository === "string" && typeof entry?.command === "string",
    );
  } catch {
    return [];
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

export const isConfirmed = (file: string, check: ConfirmedCheck) =>
  readConfirmedChecks(file).some(
    (entry) => entry.repository === check.repository && entry.command === check.command,
  );

/** Keep `check` confirmed (0600, its folder 0700), written whole and renamed into place. */
export function confirmCheck(file: string, check: ConfirmedCheck): void {
  if (isConfirmed(file, check)) return;
  const kept = readConfirmedChecks(file);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, `${JSON.stringify({ v: 1, confirmed: [...kept, check] }, null, 2)}\n`, {
    mode: 0o600,
  });
  renameSync(next, file);
}
