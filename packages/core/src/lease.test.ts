import { describe, expect, it } from "vitest";
import {
  blockedPathLine,
  blockedPaths,
  checkLeaseRequest,
  compileLeases,
  type HolderState,
  type Lease,
  leaseRefusalLine,
  leaseStanding,
} from "./index.js";

const NOW = 1_000_000;
const lease = (fields: Partial<Lease> & Pick<Lease, "pattern">): Lease => ({
  id: `l-${fields.pattern}`,
  holder: "bob",
  holderId: "bob-id",
  mode: "exclusive",
  takenAt: NOW - 1_000,
  expiresAt: NOW + 60_000,
  ...fields,
});
const clock = (at: number) => `t+${(at - NOW) / 1000}s`;

describe("leaseStanding", () => {
  it.each([
    ["live", { holds: true }],
    ["stale", { holds: true }],
    ["unknown", { holds: true }],
    ["dead", { holds: false, reason: "holder-dead" }],
    ["expired", { holds: false, reason: "holder-expired" }],
    ["absent", { holds: false, reason: "holder-left" }],
  ] as const)("a %s holder: %j", (holder, standing) => {
    expect(leaseStanding(lease({ pattern: "src" }), holder as HolderState, NOW)).toEqual(standing);
  });
  it("the TTL bounds even a live holder", () => {
    const ended = lease({ pattern: "src", expiresAt: NOW });
    expect(leaseStanding(ended, "live", NOW)).toEqual({ holds: false, reason: "ttl-expired" });
    expect(leaseStanding(ended, "unknown", NOW)).toEqual({ holds: false, reason: "ttl-expired" });
  });
});

describe("checkLeaseRequest", () => {
  const holding = compileLeases([
    lease({ pattern: "src/auth/**", reason: "refactoring auth" }),
    lease({ pattern: "docs/*.md", mode: "shared", holder: "carol", holderId: "carol-id" }),
  ]);
  it.each([
    ["exclusive over an exclusive lease", "src/auth/login.ts", "exclusive", "src/auth/**"],
    ["shared over an exclusive lease", "src/**", "shared", "src/auth/**"],
    ["exclusive over a shared lease", "docs/intro.md", "exclusive", "docs/*.md"],
    ["a glob that may reach in", "**/*.ts", "exclusive", "src/auth/**"],
  ] as const)("%s is refused", (_rule, pattern, mode, inTheWay) => {
    const answer = checkLeaseRequest({ holderId: "me", pattern, mode }, holding);
    expect(answer).toMatchObject({ ok: false, reason: "lease-held", lease: { pattern: inTheWay } });
  });
  it.each([
    ["shared beside shared", "docs/**", "shared"],
    ["a path nobody holds", "src/db/pool.ts", "exclusive"],
    ["top-level markdown is not docs/", "*.md", "exclusive"],
  ] as const)("%s is granted", (_rule, pattern, mode) => {
    expect(checkLeaseRequest({ holderId: "me", pattern, mode }, holding)).toEqual({ ok: true });
  });
  it("a holder's own lease never stands in its way (renewing, widening)", () => {
    const answer = checkLeaseRequest(
      { holderId: "bob-id", pattern: "src/**", mode: "exclusive" },
      holding,
    );
    expect(answer).toEqual({ ok: true });
  });
  it("folds case when the repository ignores case", () => {
    const request = { holderId: "me", pattern: "SRC/Auth/x.ts", mode: "exclusive" } as const;
    expect(checkLeaseRequest(request, holding).ok).toBe(true);
    expect(
      checkLeaseRequest(request, compileLeases([lease({ pattern: "src/auth/**" })], true), true).ok,
    ).toBe(false);
  });
  it("names every lease in the way and the refusal line says who, reason, until when and what to do", () => {
    const answer = checkLeaseRequest({ holderId: "me", pattern: "**", mode: "exclusive" }, holding);
    if (answer.ok) throw new Error("expected a conflict");
    expect(answer.conflicts.map((entry) => entry.pattern)).toEqual(["src/auth/**", "docs/*.md"]);
    expect(leaseRefusalLine("**", answer, clock, (holder) => `muster send ${holder} "…"`)).toBe(
      '** overlaps src/auth/**, held by bob (refactoring auth) until t+60s and 1 more; ask bob to release it (muster send bob "…"), or wait until the lease ends.',
    );
  });
});

describe("blockedPaths", () => {
  const holding = compileLeases([
    lease({ pattern: "src/a.ts" }),
    lease({ pattern: "lib", holder: "me", holderId: "me-id" }),
    lease({ pattern: "docs/**", mode: "shared", holder: "carol", holderId: "carol-id" }),
  ]);
  it("blocks another member's exclusive paths only", () => {
    const blocked = blockedPaths(
      ["src/a.ts", "src/b.ts", "lib/x.ts", "docs/y.md"],
      holding,
      "me-id",
    );
    expect(blocked.map((entry) => entry.path)).toEqual(["src/a.ts"]);
    expect(blockedPathLine(blocked[0] as (typeof blocked)[number], clock)).toBe(
      "src/a.ts is leased (src/a.ts), held by bob until t+60s; ask bob to release it (send bob a message), or wait until the lease ends.",
    );
  });
  it("a person who is not a member is blocked by every exclusive lease", () => {
    const blocked = blockedPaths(["lib/x.ts", "src/a.ts"], holding, undefined);
    expect(blocked.map((entry) => entry.lease.holder)).toEqual(["me", "bob"]);
  });
});
