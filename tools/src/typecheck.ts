// `pnpm test`'s type check: every workspace package's `typecheck` script (`tsc -p <config>`, one
// or more joined by `&&`), run as one process. The programs are the scripts' own, one per config,
// each with its own options (a leaf's `"types": []` stays a separate program); what they share is
// the parsed files, parsed once instead of once per program, and one Node and TypeScript start-up
// instead of fifteen; each file is checked once per set of options, by the config that includes
// it (typecheck-programs.ts). The scripts stay the source of truth: a script this cannot read is
// refused, not skipped.
//
//   node tools/src/typecheck.ts        (after `pnpm build`: packages read their siblings' d.ts)
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { checkConfigs } from "./typecheck-programs.ts";

const root = path.resolve(import.meta.dirname, "..", "..");

/** The tsconfig files a package's typecheck script names, or why the script cannot be read. */
function typecheckConfigs(
  script: string,
): { ok: true; configs: string[] } | { ok: false; reason: string } {
  const steps = script.split("&&").map((step) => step.trim());
  const configs: string[] = [];
  for (const step of steps) {
    const match = /^tsc -p (\S+)$/.exec(step);
    if (!match) return { ok: false, reason: `"${step}" is not "tsc -p <config>"` };
    configs.push(match[1]!);
  }
  return { ok: true, configs };
}

/** Every workspace package folder with a typecheck script, and the configs it names. */
function workspaceConfigs(): string[] {
  const folders = ["packages", "internal"]
    .flatMap((group) =>
      readdirSync(path.join(root, group)).map((name) => path.join(root, group, name)),
    )
    .concat(path.join(root, "tools"));
  return folders.flatMap((folder) => {
    const manifest = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8"));
    const script: string | undefined = manifest.scripts?.typecheck;
    if (script === undefined) return [];
    const read = typecheckConfigs(script);
    if (!read.ok)
      throw new Error(`${path.relative(root, folder)}: typecheck script: ${read.reason}`);
    return read.configs.map((config) => path.join(folder, config));
  });
}

{
  const formatHost: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => root,
    getNewLine: () => "\n",
  };
  const configs = workspaceConfigs();
  let failed = 0;
  for (const { config, diagnostics } of checkConfigs(configs)) {
    if (diagnostics.length === 0) continue;
    failed += 1;
    console.error(`typecheck: ${path.relative(root, config)}`);
    const format = process.stderr.isTTY
      ? ts.formatDiagnosticsWithColorAndContext
      : ts.formatDiagnostics;
    console.error(format(diagnostics, formatHost));
  }
  if (failed > 0) {
    console.error(`typecheck: ${failed} of ${configs.length} config(s) have errors`);
    process.exit(1);
  }
  console.log(`typecheck: ${configs.length} config(s) clean`);
}
