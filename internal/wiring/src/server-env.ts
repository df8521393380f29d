// The settings a muster server reads from its environment, in one list: an engine that filters
// the environment it gives its MCP servers (Codex passes HOME, PATH, LANG, TERM, SHELL and the
// certificate variables, plus the entry's `env_vars`) must be told each by name, or the server
// runs without it while the user's CLI and other agents run with it.

/**
 * Passed through to a muster server when set, each with its reader: the tmux server the callers'
 * panes are on (`TMUX`), where the team lives (`MUSTER_TEAM_DIR`, `MUSTER_HOME`, `XDG_STATE_HOME`:
 * the team folder), the label asked for (`MUSTER_LABEL`), the mail mode every door reads
 * (`MUSTER_MAIL`, the older `MUSTER_WAKE`: core's mailSetting) and the wake rate
 * (`MUSTER_WAKE_PER_MINUTE`: core's wakeRateSetting), the team on NATS (`MUSTER_NATS`,
 * `MUSTER_NATS_CREDS`, `MUSTER_NATS_TEAM`: nats's storeSettings; `XDG_CONFIG_HOME`: where the
 * servers the person allowed are kept, `muster nats allow`), the end's bound
 * (`MUSTER_END_MS`: endProcess), and Codex's own home (`CODEX_HOME`: a member's wakes are taken
 * only by a process of the same home).
 */
export const SERVER_ENV: readonly string[] = [
  "TMUX",
  "MUSTER_TEAM_DIR",
  "MUSTER_HOME",
  "XDG_STATE_HOME",
  "MUSTER_LABEL",
  "MUSTER_MAIL",
  "MUSTER_WAKE",
  "MUSTER_WAKE_PER_MINUTE",
  "MUSTER_NATS",
  "MUSTER_NATS_CREDS",
  "MUSTER_NATS_TEAM",
  "XDG_CONFIG_HOME",
  "MUSTER_END_MS",
  "CODEX_HOME",
];
