// What doctor and `muster install pi` say of an npm source of muster's pi extension: that pi has it
// (pi 1.6.0 keeps a user's npm packages in <agent dir>/npm/node_modules), with the version found,
// or that pi will fetch it at its next start, never that pi installs at its start what it has.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkPi, PI_PACKAGE } from "./engines.js";

const AGENT = "/home/person/.pi/agent";
const SETTINGS = path.join(AGENT, "settings.json");
const INSTALLED = path.join(AGENT, "npm", "node_modules", PI_PACKAGE);

function files(installed: Record<string, string>) {
  return {
    file: SETTINGS,
    text: JSON.stringify({ packages: [`npm:${PI_PACKAGE}@0.1.0`] }),
    read: (file: string) => installed[file],
    exists: (file: string) => file in installed,
    resolve: path.resolve,
  };
}

describe("checkPi for an npm source", () => {
  it("right after pi installed it: where pi loads it from, and its version", () => {
    const check = checkPi(
      files({ [path.join(INSTALLED, "package.json")]: JSON.stringify({ version: "0.1.0" }) }),
    );
    expect(check).toMatchObject({ ok: true });
    expect(check.detail).toBe(
      `pi loads ${PI_PACKAGE} 0.1.0 from ${INSTALLED} (npm:${PI_PACKAGE}@0.1.0)`,
    );
    expect(check.detail).not.toMatch(/at its start/);
  });

  it("not in pi's folder yet: pi fetches it at its next start", () => {
    const check = checkPi(files({}));
    expect(check).toMatchObject({ ok: true, warn: true });
    expect(check.detail).toBe(
      `pi installs npm:${PI_PACKAGE}@0.1.0 from npm at its next start (not in ${INSTALLED} yet)`,
    );
  });
});
