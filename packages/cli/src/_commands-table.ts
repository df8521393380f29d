// The command rows written from the command table itself: completion and manual. They are handed
// the table (`_commands.ts` passes it), so that no row file imports the file that assembles them.
import { nearestName } from "@muster/core";
import type { Command } from "./_command.js";
import { UsageError } from "./_context.js";
import type { Shell } from "./_manual.js";

/** The rows that print what the table `table()` answers: shell completions and the manual page. */
export const tableCommands = (table: () => Record<string, Command>) =>
  ({
    completion: {
      summary: "print shell completions for muster, written from its command table",
      usage: "muster completion <bash|zsh|fish>",
      words: ["bash", "zsh", "fish"],
      options: {},
      help: [
        'bash: eval "$(muster completion bash)" in ~/.bashrc',
        `zsh:  muster completion zsh > "\${fpath[1]}/_muster" (or eval it in ~/.zshrc)`,
        "fish: muster completion fish > ~/.config/fish/completions/muster.fish",
        "The package also ships them built, in dist/completions/, and the manual as dist/muster.1.",
        "Example: muster completion bash > ~/.local/share/bash-completion/completions/muster",
      ],
      positionals: [1, 1],
      run: async (context, _values, [shell]) => {
        const { SHELLS, completionScript } = await import("./_manual.js");
        if (!(SHELLS as readonly string[]).includes(shell!))
          throw new UsageError(`completion is for bash, zsh or fish, not "${shell}"`, {
            suggestion: nearestName(shell!, SHELLS),
          });
        const COMMANDS = table();
        const script = completionScript(shell as Shell, COMMANDS);
        if (context.json) return context.emit({ shell, script });
        context.out(script);
      },
    },
    manual: {
      summary: "print the muster(1) manual page (roff), written from the command table",
      usage: "muster manual",
      options: {},
      help: ["Example: muster manual | man -l -   (npm installs it as man muster, too)"],
      positionals: [0, 0],
      run: async (context) => {
        const { manualPage } = await import("./_manual.js");
        const COMMANDS = table();
        const page = manualPage(COMMANDS);
        if (context.json) return context.emit({ page });
        context.out(page);
      },
    },
  }) satisfies Record<string, Command>;
