// Plain `muster status` (and `--json`) lists the declared members that are down, as the dashboard
// does: one never brought up, and one `muster down` took down, each with what brings it back. The
// built binary from outside tmux, real pi (faux model), a private server `up` starts. `pnpm test`
// keeps the members never brought up (no pi starts).
import { LONG_TESTS } from "@muster/test-support";
import { afterAll, expect, it } from "vitest";
import { check, loadSchemas } from "../test/schema-check.js";
import { PI_ARGS, upKit } from "../test/up-kit.js";

const kit = upKit("muster-status-down-");
afterAll(() => kit.close());
const schemas = loadSchemas();

const TWO = `[[member]]\nlabel = "alice"\nengine = "pi"\n${PI_ARGS}\n\n[[member]]\nlabel = "bob"\nengine = "pi"\n${PI_ARGS}\n`;

it("status lists declared members never brought up as down, with muster up <label>", async () => {
  kit.declare(TWO);
  const read = await kit.muster(["status", "--json"]);
  expect(read.status, read.stderr).toBe(0);
  const document = JSON.parse(read.stdout);
  expect(check(schemas, "status.schema.json", document)).toEqual([]);
  expect(document.down.map((member: { label: string }) => member.label)).toEqual(["alice", "bob"]);
  expect((await kit.muster(["status"])).stdout).toMatch(
    /^ {2}bob \(pi\) is down — muster up bob brings it back$/m,
  );
});

// Brought up and taken down (a real pi): `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
it.skipIf(!LONG_TESTS)(
  "status lists declared members that are down, with muster up <label>",
  async () => {
    kit.declare(TWO);
    const up = await kit.muster(["up", "alice"]);
    expect(up.status, up.stderr).toBe(0);
    const live = await kit.muster(["status", "--json"]);
    expect(live.status, live.stderr).toBe(0);
    const before = JSON.parse(live.stdout);
    expect(check(schemas, "status.schema.json", before)).toEqual([]);
    // bob was never brought up: down; alice is live, so not.
    expect(before.down).toEqual([
      { label: "bob", engine: "pi", ageMs: null, fix: "muster up bob brings it back" },
    ]);
    expect((await kit.muster(["status"])).stdout).toMatch(
      /^ {2}bob \(pi\) is down — muster up bob brings it back$/m,
    );

    const down = await kit.muster(["down", "alice"]);
    expect(down.status, down.stderr).toBe(0);
    const after = JSON.parse((await kit.muster(["status", "--json"])).stdout);
    expect(check(schemas, "status.schema.json", after)).toEqual([]);
    const text = (await kit.muster(["status"])).stdout;
    // Down both: alice by muster down (on the roster still, or off it), bob never up.
    expect(text).toMatch(/^ {2}bob \(pi\) is down — muster up bob brings it back$/m);
    expect(text).toMatch(/^ {2}alice .*is down.*muster up alice brings it back$/m);
    const downLabels = [
      ...after.down.map((member: { label: string }) => member.label),
      ...after.members
        .filter((member: { end: { kind: string } | null }) => member.end?.kind === "down")
        .map((member: { label: string }) => member.label),
    ];
    expect(downLabels.sort()).toEqual(["alice", "bob"]);
  },
  90_000,
);
