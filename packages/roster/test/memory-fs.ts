// An in-memory RosterFs for unit tests: POSIX-like semantics for exactly the calls the roster makes,
// with a switch to make any call fail, to prove what the roster does when the disk says no.
import type { FileFacts, RosterFs } from "../src/index.js";

type Node =
  | { kind: "file"; data: string; mode: number; mtimeMs: number }
  | { kind: "dir"; mode: number; mtimeMs: number; uid: number };

const fail = (code: string, path: string) => Object.assign(new Error(`${code}: ${path}`), { code });

export function memoryFs(options: { uid?: number; now?: () => number } = {}) {
  const nodes = new Map<string, Node>([["/", { kind: "dir", mode: 0o755, mtimeMs: 0, uid: 0 }]]);
  const now = options.now ?? (() => 0);
  const failures = new Map<string, (path: string) => boolean>();
  const parent = (path: string) => path.slice(0, path.lastIndexOf("/")) || "/";
  const check = (operation: string, path: string) => {
    if (failures.get(operation)?.(path)) throw fail("EIO", path);
  };
  const touch = (path: string) => {
    const folder = nodes.get(parent(path));
    if (folder) folder.mtimeMs = now();
  };
  const needDir = (path: string) => {
    const node = nodes.get(parent(path));
    if (!node) throw fail("ENOENT", path);
    if (node.kind !== "dir") throw fail("ENOTDIR", path);
  };
  const facts = (node: Node): FileFacts => ({
    isDirectory: node.kind === "dir",
    isFile: node.kind === "file",
    mode: node.mode,
    mtimeMs: node.mtimeMs,
    uid: node.kind === "dir" ? node.uid : options.uid,
  });
  const fs: RosterFs = {
    async mkdir(path, mode) {
      check("mkdir", path);
      const parts = path.split("/").filter(Boolean);
      let current = "";
      for (const [index, part] of parts.entries()) {
        current += `/${part}`;
        const node = nodes.get(current);
        if (node && index === parts.length - 1) throw fail("EEXIST", current);
        if (node && node.kind !== "dir") throw fail("ENOTDIR", current);
        if (!node) {
          nodes.set(current, { kind: "dir", mode, mtimeMs: now(), uid: options.uid ?? 0 });
          touch(current);
        }
      }
    },
    async readFile(path) {
      check("readFile", path);
      const node = nodes.get(path);
      if (!node) throw fail("ENOENT", path);
      if (node.kind !== "file") throw fail("EISDIR", path);
      return node.data;
    },
    async writeFile(path, data, mode) {
      check("writeFile", path);
      needDir(path);
      if (nodes.has(path)) throw fail("EEXIST", path);
      nodes.set(path, { kind: "file", data, mode, mtimeMs: now() });
      touch(path);
    },
    async rename(from, to) {
      check("rename", from);
      const node = nodes.get(from);
      if (!node) throw fail("ENOENT", from);
      needDir(to);
      for (const [key, value] of [...nodes]) {
        if (key === from || key.startsWith(`${from}/`)) {
          nodes.delete(key);
          nodes.set(to + key.slice(from.length), value);
        }
      }
      touch(from);
      touch(to);
    },
    async link(from, to) {
      check("link", to);
      const node = nodes.get(from);
      if (!node) throw fail("ENOENT", from);
      if (nodes.has(to)) throw fail("EEXIST", to);
      needDir(to);
      nodes.set(to, { ...node });
      touch(to);
    },
    async unlink(path) {
      check("unlink", path);
      const node = nodes.get(path);
      if (!node) throw fail("ENOENT", path);
      if (node.kind === "dir") throw fail("EISDIR", path);
      nodes.delete(path);
      touch(path);
    },
    async readdir(path) {
      check("readdir", path);
      const node = nodes.get(path);
      if (!node) throw fail("ENOENT", path);
      if (node.kind !== "dir") throw fail("ENOTDIR", path);
      const prefix = path === "/" ? "/" : `${path}/`;
      return [...nodes.keys()]
        .filter(
          (key) =>
            key.startsWith(prefix) && key !== path && !key.slice(prefix.length).includes("/"),
        )
        .map((key) => key.slice(prefix.length));
    },
    async removeTree(path) {
      check("removeTree", path);
      for (const key of [...nodes.keys()])
        if (key === path || key.startsWith(`${path}/`)) nodes.delete(key);
    },
    async rmdir(path) {
      check("rmdir", path);
      const node = nodes.get(path);
      if (!node) throw fail("ENOENT", path);
      if (node.kind !== "dir") throw fail("ENOTDIR", path);
      if ([...nodes.keys()].some((key) => key.startsWith(`${path}/`)))
        throw fail("ENOTEMPTY", path);
      nodes.delete(path);
      touch(path);
    },
    async stat(path) {
      check("stat", path);
      const node = nodes.get(path);
      if (!node) throw fail("ENOENT", path);
      return facts(node);
    },
    async lstat(path) {
      return fs.stat(path);
    },
    ownUid: () => options.uid,
  };
  return {
    fs,
    nodes,
    /** Make `operation` fail with EIO for the paths the predicate accepts (all by default). */
    failOn(operation: keyof RosterFs, predicate: (path: string) => boolean = () => true) {
      failures.set(operation, predicate);
    },
    heal(operation: keyof RosterFs) {
      failures.delete(operation);
    },
    /** Plant (or overwrite) a file as another process would, whatever is there. */
    put(path: string, data: string) {
      needDir(path);
      nodes.set(path, { kind: "file", data, mode: 0o600, mtimeMs: now() });
    },
    /** The parsed JSON file at `path`, or undefined. */
    json(path: string): Record<string, unknown> | undefined {
      const node = nodes.get(path);
      return node?.kind === "file" ? JSON.parse(node.data) : undefined;
    },
    /** The files under a folder, the team marker left out. */
    files: (under: string) =>
      [...nodes.keys()]
        .filter(
          (key) =>
            key.startsWith(under) &&
            nodes.get(key)?.kind === "file" &&
            !key.endsWith("/muster-team.json"),
        )
        .sort(),
  };
}
