// The structural contracts between packages that may not import each other. A leaf names the
// shape it takes; the package that hands it a value never imports that shape. These checks are
// where the two meet: when either side drifts, the type check (`pnpm test`'s test:types, or
// `pnpm --filter @muster/wiring typecheck`) fails here, at the contract, and not at some call in a
// composer. test/drift.fixture.ts shows one failing.
import type {
  AgentInPane,
  CallerProcess,
  DeliveryPhase,
  JoinAnswer,
  MailFacts,
  MemberOfPane,
  PhaseMarks,
  RosterEntry,
} from "@muster/core/internal";
import { createTmuxRunner, nodeFs, type ProcessRow, processFacts } from "@muster/node";
import type { ProcessRow as DiscoveryProcess, FoundAgent, PaneFacts } from "@muster/reconciler";
import type {
  JoinResult,
  Member,
  Message,
  ProcessFacts,
  ReceiptPhase,
  RecipientReceipt,
  Seat as RecordSeat,
  RosterFs,
} from "@muster/roster";
import type { Pane, ProcessLink, Seat, TmuxRunner } from "@muster/tmux";
import { describe, expectTypeOf, it } from "vitest";

describe("node's effects fit the leaves that take them", () => {
  it("nodeFs is the roster's filesystem", () => {
    expectTypeOf(nodeFs).toExtend<RosterFs>();
  });
  it("processFacts is the roster's process liveness", () => {
    expectTypeOf(processFacts).toExtend<ProcessFacts>();
  });
  it("the tmux runner is the runner the tmux leaf takes", () => {
    expectTypeOf(createTmuxRunner()).toExtend<TmuxRunner>();
  });
  it("a process row is what discovery, seat ancestry and the caller rule read", () => {
    expectTypeOf<ProcessRow>().toExtend<DiscoveryProcess>();
    expectTypeOf<ProcessRow>().toExtend<ProcessLink>();
    expectTypeOf<ProcessRow>().toExtend<CallerProcess>();
  });
});

describe("one leaf's output is another leaf's input", () => {
  it("a roster member is an entry the join rules read, and a member a pane match reads", () => {
    expectTypeOf<Member>().toExtend<RosterEntry>();
    expectTypeOf<Member>().toExtend<MemberOfPane>();
  });
  it("the roster's join answer is the answer the join rules take", () => {
    expectTypeOf<JoinResult>().toExtend<JoinAnswer>();
  });
  it("a stored message is what the wake policy reads", () => {
    expectTypeOf<Message>().toExtend<MailFacts>();
  });
  it("the roster's receipt phases are core's, and a recipient's marks are what its rules read", () => {
    expectTypeOf<ReceiptPhase>().toEqualTypeOf<DeliveryPhase>();
    expectTypeOf<RecipientReceipt["phases"]>().toExtend<PhaseMarks>();
  });
  it("a tmux seat is what a roster record stores", () => {
    expectTypeOf<Seat>().toExtend<RecordSeat>();
  });
  it("a tmux pane is what discovery reads", () => {
    expectTypeOf<Pane>().toExtend<PaneFacts>();
  });
  it("a found agent, with its server, is what the pane match reads", () => {
    expectTypeOf<
      Pick<FoundAgent, "pid" | "pane"> & { server: FoundAgent["server"] }
    >().toExtend<AgentInPane>();
  });
});
