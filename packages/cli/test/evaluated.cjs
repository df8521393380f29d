// Run a hot bundle's script form (dist/commands/<bundle>/main.script.js) for one command line,
// as start.ts runs it, and print how many of its modules were evaluated: those esbuild hoisted (run
// when the bundle loads) and those it wrapped (`__esm`, `__commonJS`) whose first init ran. The
// stand-ins for Node's builtins and for left-out rows (`muster-…`) are not muster's modules.
// Usage: node evaluated.cjs <main.script.js> <bundled modules> <command words…>
const { readFileSync, writeSync } = require("node:fs");
const { createRequire } = require("node:module");
const { pathToFileURL } = require("node:url");
const vm = require("node:vm");

const [file, bundled, ...argv] = process.argv.slice(2);
const evaluated = new Set();
globalThis.__musterEvaluated = (name) => {
  if (!name.startsWith("muster-")) evaluated.add(name);
};
const WRAPPERS = [
  [
    "var __esm = (fn, res, err) => function __init() {",
    "if (fn) __musterEvaluated(__getOwnPropNames(fn)[0]);",
  ],
  [
    "var __commonJS = (cb, mod) => function __require() {",
    "if (!mod) __musterEvaluated(__getOwnPropNames(cb)[0]);",
  ],
];
let source = readFileSync(file, "utf8");
for (const [wrapper, count] of WRAPPERS) {
  if (!source.includes(wrapper)) throw new Error(`evaluated.cjs: no ${wrapper} in ${file}`);
  source = source.replace(wrapper, `${wrapper}\n${count}`);
}
const wrapped = [...source.matchAll(/= __(?:esm|commonJS)\(\{\n\s+"([^"]+)"/g)]
  .map((match) => match[1])
  .filter((name) => !name.startsWith("muster-"));
const hoisted = Number(bundled) - wrapped.length;
const run = vm.runInThisContext(source, {
  filename: file,
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
const { main } = run(createRequire(file), pathToFileURL(file.replace(/\.script\.js$/, ".js")).href);
const quiet = {
  isTTY: false,
  write: (_text, callback) => {
    if (callback) process.nextTick(callback, null);
    return true;
  },
  on: () => quiet,
  once: () => quiet,
  off: () => quiet,
};
const io = {
  stdout: quiet,
  stderr: quiet,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
};
main(argv, io, "0.0.0").then((status) => {
  writeSync(
    1,
    JSON.stringify({
      status,
      hoisted,
      wrapped: wrapped.length,
      evaluated: hoisted + evaluated.size,
    }),
  );
  process.exit(0);
});
