// Every `--help` page shows how its command is used: at least one example of the command itself,
// and every example on a page is a command line the parser accepts (an example is code that runs).
import { describe, expect, it } from "vitest";
import { COMMANDS } from "./_commands.js";
import { helpExamples } from "./_help.js";
import { parseCommand, splitCommand } from "./_parse.js";

const pages = Object.entries(COMMANDS);

describe("the examples on each --help page", () => {
  it.each(pages)("%s shows at least one example of itself", (name, command) => {
    const own = helpExamples(command).filter((example) => splitCommand(example.argv).name === name);
    expect(own, `muster ${name} --help has no "Example: muster ${name} …" line`).not.toEqual([]);
  });

  const examples = pages.flatMap(([page, command]) =>
    helpExamples(command).map((example) => [page, example.line, example.argv] as const),
  );
  it.each(examples)("%s: %s parses", (_page, _line, argv) => {
    const { name, rest } = splitCommand(argv);
    expect(name && Object.hasOwn(COMMANDS, name), `no command "${name}"`).toBe(true);
    const command = COMMANDS[name!]!;
    const parsed = parseCommand(command, rest);
    expect(parsed).toMatchObject({ ok: true });
    if (!parsed.ok) return;
    const [min, max] = command.positionals;
    expect(parsed.positionals.length).toBeGreaterThanOrEqual(min);
    expect(parsed.positionals.length).toBeLessThanOrEqual(max);
  });
});

describe("helpExamples reads examples as a shell would", () => {
  it.each([
    [
      ["Example: muster stop bob   muster stop bob --keep-worktree"],
      [
        ["stop", "bob"],
        ["stop", "bob", "--keep-worktree"],
      ],
    ],
    [
      ["Examples:", "  muster board claim c4", '  muster board done c4 "merged in #212"'],
      [
        ["board", "claim", "c4"],
        ["board", "done", "c4", "merged in #212"],
      ],
    ],
    [
      ["Examples: muster send a 'x y'   echo done | muster send all"],
      [
        ["send", "a", "x y"],
        ["send", "all"],
      ],
    ],
    [
      ["merge. Examples: muster guard --install; MUSTER_GUARD=warn git commit"],
      [["guard", "--install"]],
    ],
    [["Example: muster nats config --out ~/s > nats.conf"], [["nats", "config", "--out", "~/s"]]],
    [
      ["Example: MUSTER_NATS=nats://h:4222 muster migrate --to nats"],
      [["migrate", "--to", "nats"]],
    ],
    [["Set it up with muster install codex|claude."], []],
    [["Example: muster join x   (a comment)", "Not an example: muster frob"], [["join", "x"]]],
  ])("%j", (help, argvs) => {
    expect(helpExamples({ help }).map((example) => example.argv)).toEqual(argvs);
  });
});
