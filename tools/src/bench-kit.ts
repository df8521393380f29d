// What every benchmark shares: timing with a warm-up, medians and percentiles, and the row shape
// the runner prints. Figures are medians over several runs, ratios measured in the same run.
import { performance } from "node:perf_hooks";

export type BenchRow = {
  /** What was measured. */
  name: string;
  /** The median, in milliseconds. */
  medianMs: number;
  /** What it is compared with, measured in the same run. */
  reference?: { name: string; medianMs: number } | undefined;
  /** The target in words, whether it was met, and (where it was found) why it was missed. */
  target?: { text: string; met: boolean; whyMissed?: string | undefined } | undefined;
  /** Anything else worth printing (counts, percentiles). */
  note?: string | undefined;
};

export const median = (values: readonly number[]) => percentile(values, 50);

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Run `action` `warmup` times unmeasured, then `runs` times; the median in milliseconds. */
export async function measure(
  action: () => unknown,
  options: { warmup?: number; runs?: number } = {},
) {
  const { warmup = 3, runs = 15 } = options;
  for (let index = 0; index < warmup; index += 1) await action();
  const times: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    const started = performance.now();
    await action();
    times.push(performance.now() - started);
  }
  return { medianMs: median(times), times };
}

/**
 * Measure a figure and its reference interleaved, so both see the same machine load; the ratio
 * is figure / reference.
 */
export async function compare(
  figure: () => unknown,
  reference: () => unknown,
  options: { warmup?: number; runs?: number } = {},
) {
  const { warmup = 3, runs = 15 } = options;
  for (let index = 0; index < warmup; index += 1) {
    await figure();
    await reference();
  }
  const figureTimes: number[] = [];
  const referenceTimes: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    let started = performance.now();
    await figure();
    figureTimes.push(performance.now() - started);
    started = performance.now();
    await reference();
    referenceTimes.push(performance.now() - started);
  }
  return { figureMs: median(figureTimes), referenceMs: median(referenceTimes) };
}

export const formatMs = (ms: number) =>
  Number.isNaN(ms) ? "" : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);

/**
 * Why a start missed ≤ 1.5× bare Node, from the same bundle's `--help` (its load, no team read)
 * measured in the run.
 */
export function startWhy(
  load: { figureMs: number; referenceMs: number },
  figure: { figureMs: number; referenceMs: number },
  work = "reading the team",
) {
  const over = figure.figureMs - figure.referenceMs;
  const loading = load.figureMs - load.referenceMs;
  return `of its ${over.toFixed(1)} ms over bare Node, loading its bundle is ${loading.toFixed(1)} ms (the same command's --help, which reads nothing: ${load.figureMs.toFixed(1)} ms beside ${load.referenceMs.toFixed(1)} ms of bare Node in this run) and ${work} the other ${(over - loading).toFixed(1)} ms. A --cpu-prof of the start (taken under load, not in this run) shows esbuild's CommonJS interop (__toESM) copying each lazily taken builtin's exports once per module that imports it, and the evaluation of the bundle's modules, among its largest parts.`;
}

/** The row of a benchmark file that failed to run: its error, as a missed target. */
export function failedRow(file: string, why: string): BenchRow {
  return {
    name: `${file.replace(/\.ts$/, "")}: did not run`,
    medianMs: Number.NaN,
    target: { text: "runs to its end", met: false, whyMissed: why.split("\n")[0] },
  };
}

/** The table `pnpm bench` prints and BENCHMARKS.md shows. */
export function formatTable(rows: readonly BenchRow[]): string {
  const lines = [
    "| figure | median ms | reference | ref ms | ratio | target | met |",
    "|---|---:|---|---:|---:|---|---|",
  ];
  for (const row of rows) {
    const ratio = row.reference ? (row.medianMs / row.reference.medianMs).toFixed(2) : "";
    lines.push(
      `| ${row.name}${row.note ? ` (${row.note})` : ""} | ${formatMs(row.medianMs)} | ${row.reference?.name ?? ""} | ${row.reference ? formatMs(row.reference.medianMs) : ""} | ${ratio} | ${row.target?.text ?? ""} | ${row.target ? (row.target.met ? "yes" : "**no**") : ""} |`,
    );
  }
  const missed = rows.filter((row) => row.target && !row.target.met);
  if (missed.length > 0) {
    lines.push("", "Targets missed in this run, and why:", "");
    for (const row of missed)
      lines.push(`- ${row.name}: ${row.target?.whyMissed ?? "the reason is not found yet."}`);
  }
  return lines.join("\n");
}
