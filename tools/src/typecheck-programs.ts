// The programs of `pnpm test`'s type check (tools/src/typecheck.ts), one per tsconfig, each with
// its own options, in one process: the parsed files (TypeScript's lib, @types/node, the siblings'
// dist/*.d.ts, the sources) are shared between programs, parsed once.
//
// Each file is checked where it belongs. `tsc -p` reports every file of a program, also the ones
// it reaches only by import: the wiring's sources were checked again in each of the five configs
// that import them, pi-extension's in the CLI's (its typebox tool table alone cost 3-4 s in each).
// Here a program reports its own files (its config's include) and skips a file it only imports
// when a config with the same compiler options includes that file: that config's program reports
// it with the same options. A file that no config includes, or that only configs with other
// options include, is reported here too (once per set of options), so nothing goes unchecked and
// no file loses a check under options it met before (a leaf's `"types": []` config is its own).
import path from "node:path";
import ts from "typescript";

/** One config's diagnostics: those of its own files and of the files only it checks. */
export type ConfigDiagnostics = { config: string; diagnostics: readonly ts.Diagnostic[] };

/** A compiler host whose source files are shared by every program made with the same cache. */
function sharedHost(options: ts.CompilerOptions, cache: Map<string, ts.SourceFile>) {
  const host = ts.createCompilerHost(options, true);
  const parse = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const version =
      typeof languageVersion === "object"
        ? `${languageVersion.languageVersion}/${languageVersion.impliedNodeFormat}`
        : String(languageVersion);
    const key = `${fileName}\0${version}`;
    const known = cache.get(key);
    if (known) return known;
    const file = parse(fileName, languageVersion, onError, shouldCreate);
    if (file) cache.set(key, file);
    return file;
  };
  return host;
}

/** A config read as `tsc -p` reads it. */
function parseConfig(config: string): ts.ParsedCommandLine {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    config,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  if (!parsed) throw new Error(`${config}: cannot read`);
  return parsed;
}

/** The options a file is checked with, as one string: equal strings check a file alike. */
function optionsKey(options: ts.CompilerOptions): string {
  const { configFilePath: _path, pathsBasePath: _base, ...rest } = options;
  return JSON.stringify(rest, Object.keys(rest).sort());
}

/** Check every config (noEmit), each file once per set of options: the diagnostics per config. */
export function checkConfigs(configs: readonly string[]): ConfigDiagnostics[] {
  const cache = new Map<string, ts.SourceFile>();
  const parsed = configs.map((config) => ({ config, read: parseConfig(config) }));
  // file → the option sets of the configs that include it.
  const owners = new Map<string, Set<string>>();
  for (const { read } of parsed)
    for (const file of read.fileNames) {
      const key = path.resolve(file);
      owners.set(key, (owners.get(key) ?? new Set()).add(optionsKey(read.options)));
    }
  const checkedElsewhere = new Set<string>(); // `${options}\0${file}` of files no config owns
  return parsed.map(({ config, read }) => {
    const key = optionsKey(read.options);
    const own = new Set(read.fileNames.map((file) => path.resolve(file)));
    const program = ts.createProgram({
      rootNames: read.fileNames,
      options: read.options,
      projectReferences: read.projectReferences,
      configFileParsingDiagnostics: read.errors,
      host: sharedHost(read.options, cache),
    });
    const diagnostics: ts.Diagnostic[] = [
      ...program.getConfigFileParsingDiagnostics(),
      ...program.getOptionsDiagnostics(),
    ];
    for (const source of program.getSourceFiles()) {
      const file = path.resolve(source.fileName);
      if (!own.has(file)) {
        if (owners.get(file)?.has(key)) continue; // its own config checks it with these options
        const seen = `${key}\0${file}`;
        if (checkedElsewhere.has(seen)) continue;
        checkedElsewhere.add(seen);
      }
      diagnostics.push(
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      );
    }
    diagnostics.push(...program.getGlobalDiagnostics());
    return { config, diagnostics: ts.sortAndDeduplicateDiagnostics(diagnostics) };
  });
}
