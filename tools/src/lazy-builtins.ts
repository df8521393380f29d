// An esbuild plugin for the bundling builds: a Node builtin is taken with
// `process.getBuiltinModule()` (Node 22.3+) rather than imported. Node's ESM face of a builtin reads
// every export when it is imported, so `import { lstatSync } from "node:fs"` evaluates `fs.promises`
// and with it readline and the streams (34 internal modules), and `node:util` loads the streams and
// worker_threads: at every start, for code that uses neither. Taken as a CommonJS-shaped module,
// the builtin's exports are read where the code uses them, and only those.
import { builtinModules } from "node:module";

type Build = {
  onResolve(
    options: { filter: RegExp },
    callback: (args: { path: string }) => { path: string; namespace: string } | undefined,
  ): void;
  onLoad(
    options: { filter: RegExp; namespace: string },
    callback: (args: { path: string }) => { contents: string; loader: "js" },
  ): void;
};

const NAMESPACE = "muster-lazy-builtin";
const BUILTINS = new Set(builtinModules.filter((name) => !name.startsWith("_")));

/**
 * The CommonJS-shaped stand-in for a builtin: an object whose prototype answers for the builtin's
 * exports (its names in this Node, the build's) and takes the builtin on the first read of one.
 * esbuild's interop copies a CommonJS module's own properties at import (`__toESM`), which would
 * otherwise take the builtin at once: `node:crypto` alone costs a start ~15 ms, for the temp names
 * of a write that a read-only command never makes. The prototype is a Proxy over one list of
 * names, not a getter per export: the getters of `node:fs` alone (a hundred closures, compiled and
 * defined at every start) cost ~0.7 ms of CPU. A name the builtin does not export (`__esModule`,
 * which the interop reads, or `then`) is undefined without taking it. A builtin that is itself a
 * function (`node:events`, `node:assert`) is taken as it is: a class is extended and called, not
 * read; so is `node:process`, the process.
 */
export function lazyModule(specifier: string): string {
  const builtin = process.getBuiltinModule(specifier) as Record<string, unknown>;
  const take = `process.getBuiltinModule(${JSON.stringify(specifier)})`;
  if (typeof builtin === "function") return `module.exports = ${take};`;
  // `node:process` is the process object, there from the start: its methods (`on`, `off`, `emit`)
  // are an EventEmitter's, inherited, and no getter of its own keys would reach them (Ink calls
  // process.off). Taken as it is.
  if (builtin === (process as unknown)) return `module.exports = ${take};`;
  const names = Object.keys(builtin).filter((name) => name !== "default");
  // On the stand-in's prototype, not on it: esbuild's interop (`__toESM`) makes each importing
  // module's view an object of that same prototype and copies only own keys, so a builtin
  // imported by forty modules costs forty empty copies, not forty times its exports.
  return [
    "let taken;",
    `const take = () => (taken ??= ${take});`,
    `const names = new Set(${JSON.stringify(names.join(" "))}.split(" "));`,
    "module.exports = Object.create(new Proxy({}, {",
    "  get: (_, name) => (names.has(name) ? take()[name] : undefined),",
    "  has: (_, name) => names.has(name),",
    "  ownKeys: () => [...names],",
    "  getOwnPropertyDescriptor: (_, name) =>",
    "    names.has(name) ? { value: take()[name], enumerable: true, configurable: true } : undefined,",
    "}));",
  ].join("\n");
}

export function lazyBuiltins() {
  return {
    name: "muster-lazy-builtins",
    setup(build: Build) {
      build.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) => {
        const name = args.path.replace(/^node:/, "");
        return BUILTINS.has(name) ? { path: `node:${name}`, namespace: NAMESPACE } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: lazyModule(args.path),
        loader: "js",
      }));
    },
  };
}
