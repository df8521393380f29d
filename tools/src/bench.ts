// `pnpm bench`: run every benchmark in tools/bench/ (or those whose file names contain the words
// given), print one table; `--write` also writes it to BENCHMARKS.md. Benchmarks are not tests:
// a missed target is shown, never a failure.
import { readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type BenchRow, failedRow, formatTable } from "./bench-kit.ts";

const folder = path.resolve(import.meta.dirname, "..", "bench");
const args = process.argv.slice(2);
const write = args.includes("--write");
const wanted = args.filter((arg) => arg !== "--write");
const files = readdirSync(folder)
  .filter((name) => name.endsWith(".ts"))
  .filter((name) => wanted.length === 0 || wanted.some((word) => name.includes(word)))
  .sort();
const rows: BenchRow[] = [];
const failed: string[] = [];
/** process.env as it was before any benchmark ran: each starts from it (see below). */
const environment = { ...process.env };
for (const file of files) {
  const started = Date.now();
  // A benchmark that leaves a variable in process.env (land's git identity, GIT_CONFIG_NOSYSTEM)
  // would change what the later ones measure: the guard asks git on a GIT_* variable it does not
  // know. Every benchmark runs in the environment the run was started with.
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
  Object.assign(process.env, environment);
  try {
    const module = (await import(path.join(folder, file))) as { run: () => Promise<BenchRow[]> };
    rows.push(...(await module.run()));
  } catch (error) {
    // One benchmark that fails (a busy machine's timeout) is a row that says so, not a lost run.
    const why = error instanceof Error ? error.message : String(error);
    failed.push(file);
    rows.push(failedRow(file, why));
  }
  console.error(`bench: ${file} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
const machine = `Node ${process.version} · ${os.cpus().length} × ${os.cpus()[0]?.model?.trim() ?? "cpu"} · ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB · ${os.platform()} ${os.release()}`;
const table = formatTable(rows);
console.log(`\n${machine}\n\n${table}`);
if (write) {
  const page = [
    "# Benchmarks",
    "",
    "The latest run of `pnpm bench --write` (every figure a median over several runs after a warm-up;",
    "each ratio is against its reference, measured in the same run, interleaved). Benchmarks use",
    "private tmux servers and temporary team folders, clean up after themselves, and are not part of",
    "`pnpm test`. A missed target is shown here, never a failure.",
    "",
    `Machine: ${machine}, on ${new Date().toISOString().slice(0, 10)}.`,
    "",
    table,
    "",
  ].join("\n");
  writeFileSync(path.resolve(import.meta.dirname, "..", "..", "BENCHMARKS.md"), page);
  console.error("bench: wrote BENCHMARKS.md");
}
if (failed.length > 0) {
  console.error(`bench: ${failed.join(", ")} failed (their rows say why)`);
  process.exitCode = 1;
}
