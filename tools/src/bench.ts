// `pnpm bench`: run every benchmark in tools/bench/ (or those named on the command line), print one
// table. Benchmarks are not tests: a missed target is shown, never a failure.
import { readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type BenchRow, formatTable } from "./bench-kit.ts";

const folder = path.resolve(import.meta.dirname, "..", "bench");
const wanted = process.argv.slice(2);
const files = readdirSync(folder)
  .filter((name) => name.endsWith(".ts"))
  .filter((name) => wanted.length === 0 || wanted.some((word) => name.includes(word)))
  .sort();
const rows: BenchRow[] = [];
for (const file of files) {
  const started = Date.now();
  const module = (await import(path.join(folder, file))) as { run: () => Promise<BenchRow[]> };
  const produced = await module.run();
  rows.push(...produced);
  console.error(`bench: ${file} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
console.log(
  `\nNode ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}\n`,
);
console.log(formatTable(rows));
