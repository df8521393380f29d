// Lease figures: the check an edit hook makes on every edit — one path against 1,000 leases,
// compiled once — against a bare loop that only compares strings over the same leases.
import { blockedPaths, compileLeases, type Lease } from "@muster/core";
import { type BenchRow, compare } from "../src/bench-kit.ts";

function makeLeases(count: number): Lease[] {
  const shapes = [
    "src/mod{n}/**",
    "src/mod{n}/*.ts",
    "docs/page{n}.md",
    "**/gen{n}/*.json",
    "lib/[a-c]{n}.js",
  ];
  return Array.from({ length: count }, (_, index) => ({
    id: `l${index}`,
    holder: `peer${index % 16}`,
    holderId: `peer${index % 16}-id`,
    pattern: (shapes[index % shapes.length] as string).replace("{n}", String(index)),
    mode: index % 3 === 0 ? "shared" : "exclusive",
    takenAt: 0,
    expiresAt: Number.MAX_SAFE_INTEGER,
  }));
}

export async function run(): Promise<BenchRow[]> {
  const leases = makeLeases(1_000);
  const compiled = compileLeases(leases);
  const path = "src/mod999/deep/inner/file.ts";
  let sink = 0;
  const result = await compare(
    () => {
      sink += blockedPaths([path], compiled, "me").length;
    },
    () => {
      for (const lease of leases) if (lease.pattern === path) sink += 1;
    },
    { warmup: 20, runs: 200 },
  );
  if (sink < 0) console.error(sink);
  return [
    {
      name: "leases: check one path against 1,000 leases (compiled once)",
      medianMs: result.figureMs,
      reference: { name: "bare string compare over 1,000", medianMs: result.referenceMs },
      target: { text: "< 5 ms", met: result.figureMs < 5 },
    },
  ];
}
