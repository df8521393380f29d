// What execa costs a process that imports it: a cold `node` importing execa against one importing
// node:child_process (what the CLI and the pi extension use), interleaved in one run. This is why
// execa is off the hot paths (docs/architecture.md) and on the repository tools only.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { type BenchRow, compare } from "../src/bench-kit.ts";

// Run from tools/, where execa is installed.
const cwd = path.resolve(import.meta.dirname, "..");
const node = (code: string) =>
  execFileSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });

export async function run(): Promise<BenchRow[]> {
  const importing = await compare(
    () => node('await import("execa")'),
    () => node('await import("node:child_process")'),
    { runs: 15 },
  );
  return [
    {
      name: "a cold node importing execa",
      medianMs: importing.figureMs,
      reference: { name: "importing node:child_process", medianMs: importing.referenceMs },
      note: `execa adds ${(importing.figureMs - importing.referenceMs).toFixed(0)} ms to every process that imports it`,
    },
  ];
}
