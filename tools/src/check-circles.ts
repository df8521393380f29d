// The import-circle check: within a package, no module imports (statically, dynamically, by
// re-export, or for its types alone) a module that leads back to it: two files that need each
// other are one concern, or share a third that both import. Over
// each package's src/ (tests aside), relative imports only: packages meet through their indexes,
// which the build graph already keeps acyclic. A circle is printed as the files on it, in order.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const isSource = (name: string) => /\.tsx?$/.test(name) && !/\.test(-d)?\.tsx?$/.test(name);

/** Every source file under `folder`, tests aside. */
function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.isFile() && isSource(entry.name) ? [full] : [];
  });
}

/** The relative modules `text` imports: `import` (types too), `export … from`, `import()`. */
export function relativeImports(fileName: string, text: string): string[] {
  // TypeScript's own pre-pass: every module name in an import, `export … from` or `import()`,
  // without parsing the file whole (comments and strings are not imports).
  const found = ts.preProcessFile(text, true, true).importedFiles.map((entry) => entry.fileName);
  return found
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) =>
      path
        .resolve(path.dirname(fileName), specifier)
        .replace(/\.(js|jsx|mjs)$/, (ext) => (ext === ".jsx" ? ".tsx" : ".ts")),
    );
}

/** The import circles among `files` (each a list of files, the first the smallest name). */
export function circlesIn(files: { file: string; text: string }[]): string[][] {
  const known = new Set(files.map(({ file }) => file));
  const edges = new Map(
    files.map(({ file, text }) => [
      file,
      [...new Set(relativeImports(file, text))].filter((target) => known.has(target)),
    ]),
  );
  // Tarjan's strongly connected components: every component of more than one file (or a file
  // that imports itself) holds a circle.
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const connect = (file: string) => {
    order.set(file, index);
    low.set(file, index);
    index += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!order.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, order.get(target)!));
      }
    }
    if (low.get(file) !== order.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || edges.get(file)?.includes(file)) circles.push(component.sort());
  };
  for (const file of [...known].sort()) if (!order.has(file)) connect(file);
  return circles;
}

/** The circles in each package's src/ under packages/ and internal/, relative to `repoRoot`. */
export function packageCircles(repoRoot: string): string[][] {
  return ["packages", "internal"]
    .flatMap((parent) =>
      readdirSync(path.join(repoRoot, parent)).map((name) =>
        path.join(repoRoot, parent, name, "src"),
      ),
    )
    .filter((src) => {
      try {
        return readdirSync(src).length > 0;
      } catch {
        return false;
      }
    })
    .flatMap((src) =>
      circlesIn(sources(src).map((file) => ({ file, text: readFileSync(file, "utf8") }))),
    )
    .map((circle) => circle.map((file) => path.relative(repoRoot, file)));
}
