// Fails on purpose, like the leaf lint's dirty fixture: the contracts of src/contracts.test-d.ts,
// each checked against a value that drifted the way a real change could. src/drift.test.ts
// compiles this file and expects exactly the marked lines to fail.
import type { RosterEntry } from "@muster/core/internal";
import { nodeFs, type ProcessRow } from "@muster/node";
import type { ProcessRow as DiscoveryProcess } from "@muster/reconciler";
import type { Member, RosterFs } from "@muster/roster";
import { expectTypeOf } from "vitest";

// nodeFs if its readFile answered bytes: the roster could not parse a single record.
const bytesFs = { ...nodeFs, readFile: async (path: string) => new TextEncoder().encode(path) };
expectTypeOf(bytesFs).toExtend<RosterFs>(); // DRIFT readFile answers bytes

// nodeFs without the hard link the roster's exclusive claim is made of.
const { link: _link, ...linklessFs } = nodeFs;
expectTypeOf(linklessFs).toExtend<RosterFs>(); // DRIFT no link

// A process row whose start time became a number: discovery's identity is engine + pid + start.
expectTypeOf<Omit<ProcessRow, "start"> & { start: number }>().toExtend<DiscoveryProcess>(); // DRIFT start

// A member whose state gained a word the join rules do not know.
expectTypeOf<Omit<Member, "state"> & { state: "live" | "paused" }>().toExtend<RosterEntry>(); // DRIFT state

// The same checks hold for the values as they are.
expectTypeOf(nodeFs).toExtend<RosterFs>();
expectTypeOf<ProcessRow>().toExtend<DiscoveryProcess>();
expectTypeOf<Member>().toExtend<RosterEntry>();
