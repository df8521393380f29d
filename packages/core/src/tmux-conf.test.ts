// muster's block in a user's tmux config: added after their own status-right, idempotent, and
// removed to the user's exact bytes whatever they edited outside it.
import { describe, expect, it } from "vitest";
import { addTmuxBlock, removeTmuxBlock, userGoKey } from "./_tmux-conf.js";

const WORDS = ["/usr/bin/node", "/opt/muster/dist/muster.js"];
const COMMAND = WORDS.join(" ");
const add = (text: string | undefined) => {
  const edit = addTmuxBlock(text, WORDS);
  if (!edit.ok) throw new Error(edit.error);
  return edit.text;
};
const remove = (text: string | undefined) => {
  const edit = removeTmuxBlock(text);
  if (!edit.ok) throw new Error(edit.error);
  return edit.text;
};

describe("muster's tmux block", () => {
  const user = "set -g status-right '#H %H:%M'\nset -g mouse on\n";

  it.each([
    ["a config ending in a newline", user],
    ["a config with no final newline", "set -g status-right '#H'"],
    ["an empty config", ""],
    ["no config at all", undefined],
    ["CRLF lines", "set -g mouse on\r\nbind r source-file ~/.tmux.conf\r\n"],
  ])("comes out of %s byte for byte", (_name, before) => {
    const after = add(before);
    expect(after).toContain(`set-option -ga status-right ' #(${COMMAND} status --line)'`);
    expect(after).toContain(`bind-key g run-shell '${COMMAND} go'`);
    expect(remove(after)).toBe(before);
  });

  it("keeps the user's status-right and appends after it", () => {
    const after = add(user) ?? "";
    expect(after.startsWith(user)).toBe(true);
    expect(after.indexOf("-ga status-right")).toBeGreaterThan(after.indexOf("'#H %H:%M'"));
  });

  it("is idempotent, and replaces a block for another muster path", () => {
    const once = add(user);
    expect(addTmuxBlock(once, WORDS)).toEqual({ ok: true, text: once, changed: false });
    const moved = addTmuxBlock(once, ["/usr/local/bin/muster"]);
    expect(moved.ok && moved.text?.match(/# >>> muster/g)?.length).toBe(1);
    expect(moved.ok && moved.text?.includes("/opt/muster")).toBe(false);
    expect(remove(moved.ok ? moved.text : "")).toBe(user);
  });

  it("removes only muster's lines after the user edited the lines around it", () => {
    const installed = add("set -g status-right '#H'") ?? "";
    const edited = `# my header\n${installed.replace("#H", "#S #H")}set -g history-limit 50000\n`;
    expect(remove(edited)).toBe(
      "# my header\nset -g status-right '#S #H'\nset -g history-limit 50000\n",
    );
  });

  it("refuses a broken block rather than guess what is muster's", () => {
    const installed = add(user) ?? "";
    for (const text of [installed.replace("# <<< muster\n", ""), `${installed}${installed}`])
      expect(removeTmuxBlock(text)).toMatchObject({ ok: false, reason: "muster-block-broken" });
    expect(addTmuxBlock(installed.replace("# <<< muster\n", ""), WORDS)).toMatchObject({
      ok: false,
    });
  });

  it("refuses a muster path tmux or sh would need quoted", () => {
    for (const command of ["/home/a b/muster", "/tmp/'x/muster", "/tmp/#(x)/muster", "/tmp/$(id)"])
      expect(addTmuxBlock(user, [process.execPath, command])).toMatchObject({
        ok: false,
        reason: "unsafe-command",
      });
  });
});

describe("the user's own prefix+g is kept", () => {
  it.each([
    ["bind g display-message hi", "bind g display-message hi"],
    ["  bind-key -r g select-pane -L  # mine", "bind-key -r g select-pane -L  # mine"],
    ["bind-key -T prefix 'g' new-window", "bind-key -T prefix 'g' new-window"],
    ['bind -N "Go to a pane" g choose-tree', 'bind -N "Go to a pane" g choose-tree'],
    ["set -g mouse on ; bind g kill-pane", "set -g mouse on ; bind g kill-pane"],
  ])("a binding in the file: %s", (line, found) => {
    expect(userGoKey(`set -g mouse on\n${line}\n`)).toBe(found);
    // It is kept: the block then binds no key, and comes out leaving the user's bytes.
    const edit = addTmuxBlock(`${line}\n`, WORDS, false);
    expect(edit.ok && edit.text).not.toContain("bind-key g");
    expect(remove(edit.ok ? edit.text : "")).toBe(`${line}\n`);
  });

  it.each([
    ["another table", "bind -T copy-mode-vi g send -X history-top"],
    ["the root table", "bind -n g display-message root"],
    ["another key", "bind G display-message hi"],
    ["a commented line", "# bind g display-message hi"],
    ["a binding's own second command", "bind r source-file x \\; bind g y"],
    ["an unbind", "unbind g"],
    ["nothing", ""],
  ])("not the user's prefix+g: %s", (_name, line) => {
    expect(userGoKey(`${line}\n`)).toBeUndefined();
  });

  it("muster's own block is not the user's binding, from this install or an older one", () => {
    expect(userGoKey(add("set -g mouse on\n"))).toBeUndefined();
    const older = "bind-key -T prefix g run-shell '/old/node /old/muster.js go'";
    expect(userGoKey(undefined, older)).toBeUndefined();
  });

  it("the running server's binding counts (a sourced file, a key bound at run time)", () => {
    const listed = "bind-key -T prefix g display-message hi\n";
    expect(userGoKey("set -g mouse on\n", listed)).toBe(listed.trim());
    expect(userGoKey(undefined, "")).toBeUndefined();
  });
});
