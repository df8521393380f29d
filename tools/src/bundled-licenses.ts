// The licenses of the third-party code a build bundled, for the package's tarball. A bundle is a
// copy of that code, and MIT, ISC and BSD licenses ask that a copy carry the copyright notice and
// the license text: the builds that bundle npm packages (the CLI, the MCP server) write one file,
// dist/THIRD-PARTY-LICENSES.md, from esbuild's metafile (which names every file bundled).
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

type Metafile = { inputs: Record<string, unknown> };

/** The folder of the npm package a bundled file came from, or undefined for the repo's own. */
function packageRoot(file: string): string | undefined {
  const parts = file.split(path.sep);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) return undefined;
  const depth = parts[at + 1]?.startsWith("@") ? 3 : 2;
  return parts.slice(0, at + depth).join(path.sep);
}

/**
 * Packages whose npm tarball carries no license file, and where their license is stated instead:
 * the license is written out from that statement. (yoga-layout, Ink's layout engine: MIT, said in
 * every source file's header, the LICENSE file kept only in its repository.)
 */
const STATED_ELSEWHERE: Record<string, { copyright: string; where: string }> = {
  "yoga-layout": {
    copyright: "Copyright (c) Meta Platforms, Inc. and affiliates.",
    where: "dist/src/index.js",
  },
};

const MIT = `Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.`;

/** The license text of a package that ships none, from where it is stated; else undefined. */
function statedLicense(root: string, manifest: { name: string; license?: string }) {
  const stated = STATED_ELSEWHERE[manifest.name];
  if (!stated || manifest.license !== "MIT") return undefined;
  // The statement must still be where it was read: a release that moved or changed it fails here.
  const header = readFileSync(path.join(root, stated.where), "utf8").slice(0, 400);
  if (!header.includes(stated.copyright) || !header.includes("MIT license")) return undefined;
  return `${stated.copyright}\n\n${MIT}`;
}

/** Every bundled package once: name, version, license, and the text of its license file. */
export function bundledLicenses(metafile: Metafile, cwd: string) {
  const roots = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const root = packageRoot(path.resolve(cwd, input));
    if (root) roots.add(root);
  }
  return [...roots]
    .map((root) => {
      const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
      const file = readdirSync(root).find((name) => /^(licen[cs]e|copying)/i.test(name));
      const text = file
        ? readFileSync(path.join(root, file), "utf8").trim()
        : statedLicense(root, manifest);
      if (text === undefined)
        throw new Error(`${manifest.name}: bundled, but it ships no license file`);
      return {
        name: manifest.name as string,
        version: manifest.version as string,
        license: manifest.license as string,
        text,
      };
    })
    .sort((left, right) => left.name.localeCompare(right.name));
}

/** Write dist/THIRD-PARTY-LICENSES.md from the metafile esbuild wrote beside the code. */
export function writeBundledLicenses(packageDir: string) {
  const dist = path.join(packageDir, "dist");
  const metafile = path.join(dist, "metafile-esm.json");
  if (!existsSync(metafile)) throw new Error(`${metafile}: missing (set metafile: true in tsup)`);
  const licenses = bundledLicenses(JSON.parse(readFileSync(metafile, "utf8")), packageDir);
  const page = [
    "# Third-party licenses",
    "",
    "This package's code in dist/ bundles the following npm packages, under their licenses:",
    "",
    ...licenses.flatMap((entry) => [
      `## ${entry.name} ${entry.version} (${entry.license})`,
      "",
      "```",
      entry.text,
      "```",
      "",
    ]),
  ];
  writeFileSync(path.join(dist, "THIRD-PARTY-LICENSES.md"), page.join("\n"));
  return licenses;
}
