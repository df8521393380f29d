// What a member can do on the team, whatever door it comes through (the CLI, the MCP server, pi's
// tools, pi's /team command). Each door's table of rows says which of these each row serves; the
// architecture's capability table is read from those rows, so a gap in a door shows there.

/** Every capability, with the words the capability table shows for it, in the table's order. */
export const CAPABILITIES = {
  join: "join (and leave)",
  roster: "roster",
  send: "send",
  inbox: "inbox",
  "board-list": "board: list and show",
  "board-add": "board: add with dependencies",
  "board-claim": "board: claim",
  "board-done": "board: done",
  "board-drop": "board: drop",
  "board-handoff": "board: hand-off",
  "board-ask": "board: ask",
  "board-lead": "board: lead",
  lease: "lease",
  release: "release",
  leases: "leases: list",
  spawn: "spawn",
  stop: "stop",
  diff: "diff: a member's branch",
  land: "land: a member's work",
  activity: "activity",
} as const;

export type Capability = keyof typeof CAPABILITIES;

/**
 * The capabilities one row serves, each with how it is written beyond the row's own name (a
 * subcommand and its options, e.g. `add --after`; several ways, e.g. `list` and `show`), or `true`
 * where the row's name is all.
 */
export type Serves = Partial<Record<Capability, string | readonly string[] | true>>;
