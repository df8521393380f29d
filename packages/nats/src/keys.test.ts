// The member's keys: the signing key is the nkey of the seed it connects with (nkeys agrees on the
// public key and on every signature), the xkey is derived from that seed alone, and a seal opens
// only for its recipient, from its sender, where it was sealed.
import { nkeys } from "@nats-io/transport-node";
import { describe, expect, test } from "vitest";
import { keysOf, seedIn, verifies } from "./_keys.js";
import { newMemberKey } from "./_server-config.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("a member's keys", () => {
  test("sign as nkeys does: the same public key, signatures each verifies", () => {
    const member = newMemberKey();
    const keys = keysOf(member.seed);
    expect(keys.sign).toBe(member.publicKey);
    const pair = nkeys.fromSeed(bytes(member.seed));
    const signature = keys.signBytes(bytes("hello"));
    expect(pair.verify(bytes("hello"), signature)).toBe(true);
    expect(verifies(member.publicKey, bytes("hello"), pair.sign(bytes("hello")))).toBe(true);
    expect(verifies(member.publicKey, bytes("hellO"), signature)).toBe(false);
    expect(verifies(newMemberKey().publicKey, bytes("hello"), signature)).toBe(false);
    expect(verifies("UNOTAKEY", bytes("hello"), signature)).toBe(false);
    expect(keys.seal).toMatch(/^X[A-Z2-7]{55}$/);
    expect(() => nkeys.fromPublic(keys.seal)).not.toThrow();
    expect(keysOf(member.seed).seal).toBe(keys.seal);
  });

  test("a seal opens for its recipient only, from its sender, at its place", () => {
    const [alice, bob, eve] = [0, 1, 2].map(() => keysOf(newMemberKey().seed));
    if (!alice || !bob || !eve) throw new Error("keys");
    const box = alice.sealTo(bytes("for bob"), bob.seal, "mail.b.m1");
    expect(new TextDecoder().decode(bob.openFrom(box, alice.seal, "mail.b.m1"))).toBe("for bob");
    expect(eve.openFrom(box, alice.seal, "mail.b.m1")).toBeUndefined();
    expect(bob.openFrom(box, eve.seal, "mail.b.m1")).toBeUndefined();
    expect(bob.openFrom(box, alice.seal, "mail.b.m2")).toBeUndefined();
  });

  test("the seed is found in a seed file and in a .creds file", () => {
    const { seed } = newMemberKey();
    expect(seedIn(`${seed}\n`)).toBe(seed);
    expect(
      seedIn(`-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`),
    ).toBe(seed);
    expect(seedIn("no seed")).toBeUndefined();
  });
});
