// `muster install codex --uninstall`: cut exactly the bytes of muster's keys out of a Codex
// config.toml, wherever Codex or the user moved them since. What muster added to the user's own
// values (its program at the front of `notify`, "thread-id" in `terminal_title`) goes, and so does
// the `mcp_optional_startup_grace_ms` it wrote; the
// user's part stays byte for byte. Keys and tables muster made are removed only when the file
// `before` the first install lacked them; without that record, a "thread-id" is left (muster
// cannot tell who wrote it). Files from older musters (`# >>> muster` blocks) are undone first.
import { parse } from "smol-toml";
import { graceCuts } from "./_codex-grace.js";
import { isOurServer, isTable, musterNotifyEnd, sameValue, type Table } from "./_codex-values.js";
import type { Before } from "./_install-claude.js";
import { type ConfigEdit, serverCuts } from "./_install-codex.js";
import {
  arrayOf,
  cutElements,
  entries,
  headerLines,
  type Splice,
  splice,
  type TomlTree,
  tables,
  tomlTree,
  wholeLines,
} from "./_toml-edit.js";

const LEGACY_BEGIN = "# >>> muster: added by `muster install codex`";
const LEGACY_END = "# <<< muster";
const LEGACY_WAS = "# muster-was: ";
const LEGACY_ADDED = " # muster-added";

/** An older muster's markers: its block's comment lines, and the user's lines it kept as comments. */
function undoMarkers(text: string): string {
  if (!text.includes(LEGACY_BEGIN) && !text.includes(LEGACY_ADDED)) return text;
  const lines = text.split("\n");
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    let end = index;
    while (lines[end]?.startsWith(LEGACY_WAS)) end += 1;
    if (end > index && lines[end]?.endsWith(LEGACY_ADDED)) {
      kept.push(...lines.slice(index, end).map((was) => was.slice(LEGACY_WAS.length)));
      index = end;
    } else if (
      !line.endsWith(LEGACY_ADDED) &&
      !line.startsWith(LEGACY_BEGIN) &&
      line !== LEGACY_END
    )
      kept.push(line);
  }
  return kept.join("\n");
}

function read(text: string): Table | undefined {
  try {
    return parse(text) as Table;
  } catch {
    return undefined;
  }
}

/** Remove muster's keys (undefined text: there is no file). */
export function uninstallCodex(original: string | undefined, before?: Before): ConfigEdit {
  if (original === undefined)
    return { ok: true, text: undefined, changed: false, changes: [], notes: [] };
  const text = undoMarkers(original);
  const config = read(text);
  const parsed = tomlTree(text);
  if (!config || !parsed.ok)
    return {
      ok: false,
      reason: "bad-config",
      error: "the Codex config does not parse; fix it first, then uninstall",
    };
  const had = before ? read(before.text ?? "") : undefined;
  const all = entries(parsed.tree);
  const cuts: Splice[] = [];
  const changes: string[] = [];
  const notes: string[] = [];
  const expected = structuredClone(config);
  const servers = isTable(config.mcp_servers) ? config.mcp_servers : {};
  if (isOurServer(servers.muster)) {
    const serverCut = serverCuts(text, parsed.tree);
    if (typeof serverCut === "string") return { ok: false, reason: "hand-edit", error: serverCut };
    cuts.push(...serverCut);
    changes.push("[mcp_servers.muster]");
    delete (expected.mcp_servers as Table).muster;
  }
  const notify = all.find((entry) => entry.path.join(".") === "notify" && !entry.table);
  const end = musterNotifyEnd(config.notify);
  const list = arrayOf(notify);
  if (notify && list && end >= 0) {
    const values = config.notify as string[];
    const own = values[end + 1] === "--" ? values.slice(end + 2) : [];
    if (own.length > 0) cuts.push(cutElements(list, 0, end + 1));
    else if (had && had.notify !== undefined)
      cuts.push(cutElements(list, 0, list.elements.length - 1));
    else cuts.push(wholeLines(text, notify.node.range[0], notify.node.range[1]));
    if (own.length > 0 || (had && had.notify !== undefined)) expected.notify = own;
    else delete expected.notify;
    changes.push(own.length > 0 ? `muster's notify (yours, ${own[0]}, stays)` : "muster's notify");
  }
  cuts.push(...graceCuts(text, parsed.tree, config, had, expected, changes, notes));
  cuts.push(...titleCuts(text, config, had, parsed.tree, expected, changes, notes));
  let result = splice(text, cuts);
  if (before?.text !== undefined && !before.text.endsWith("\n") && result === `${before.text}\n`)
    result = before.text;
  const check = read(result);
  if (!check || !sameValue(check, expected))
    return {
      ok: false,
      reason: "hand-edit",
      error:
        "muster's keys could not be cut out cleanly; remove [mcp_servers.muster] and muster's notify by hand",
    };
  const gone = before && before.text === undefined && result.trim() === "";
  return {
    ok: true,
    text: gone ? undefined : result,
    changed: result !== original || gone === true,
    changes,
    notes,
  };
}

/** The "thread-id" muster added to `[tui] terminal_title`, and the key or table it made. */
function titleCuts(
  text: string,
  config: Table,
  had: Table | undefined,
  tree: TomlTree,
  expected: Table,
  changes: string[],
  notes: string[],
): Splice[] {
  const tui = isTable(config.tui) ? config.tui : undefined;
  const title = tui?.terminal_title;
  if (!Array.isArray(title) || !title.includes("thread-id")) return [];
  if (!had) {
    notes.push(
      'left "thread-id" in [tui] terminal_title: muster has no record of whether you wrote it',
    );
    return [];
  }
  const hadTui = isTable(had.tui) ? had.tui : undefined;
  const hadTitle = hadTui?.terminal_title;
  if (Array.isArray(hadTitle) && hadTitle.includes("thread-id")) return [];
  const entry = entries(tree).find((item) => item.path.join(".") === "tui.terminal_title");
  const list = arrayOf(entry);
  if (!entry || !list) return [];
  const cuts: Splice[] = [];
  const expectedTui = expected.tui as Table;
  if (hadTitle === undefined) {
    // muster made the key: it goes while it says what muster wrote.
    if (JSON.stringify(title) !== JSON.stringify(["project", "thread-id"])) return [];
    cuts.push(wholeLines(text, entry.node.range[0], entry.node.range[1]));
    delete expectedTui.terminal_title;
    changes.push("[tui] terminal_title");
    const header = tables(tree).find((table) => table.resolvedKey.join(".") === "tui");
    if (!hadTui && header && header.body.length === 1 && Object.keys(tui ?? {}).length === 1) {
      cuts.push(headerLines(text, header));
      delete expected.tui;
    }
    return cuts;
  }
  const at = (title as unknown[]).lastIndexOf("thread-id");
  cuts.push(cutElements(list, at, at));
  expectedTui.terminal_title = (title as unknown[]).filter((_item, index) => index !== at);
  changes.push('"thread-id" in [tui] terminal_title');
  return cuts;
}
