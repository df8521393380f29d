// The extension as a user receives it: packed from a checkout with no build (prepack builds it),
// installed with `pi install <folder>` as the README says, and shown by an interactive pi, in a
// private tmux server, as `muster` in its list of extensions.
import { execFileSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { eventually, LONG_TESTS, startPrivateTmux } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { PI_CLI } from "../test/pi-rpc.js";
import { removeScratch, team } from "../test/team.js";

afterAll(removeScratch);

const root = path.resolve(import.meta.dirname, "..");

/** This package's sources as a fresh checkout has them: no dist/, dependencies already installed. */
function checkout(into: string) {
  mkdirSync(into);
  for (const name of [
    "package.json",
    "README.md",
    "CHANGELOG.md",
    "tsup.config.ts",
    "src",
    "skills",
  ])
    cpSync(path.join(root, name), path.join(into, name), { recursive: true });
  symlinkSync(path.join(root, "node_modules"), path.join(into, "node_modules"));
  const base = realpathSync(path.join(root, "..", "..", "tsconfig.base.json"));
  writeFileSync(
    path.join(into, "tsconfig.json"),
    JSON.stringify({ extends: base, include: ["src"] }),
  );
  // Outside the workspace its catalog cannot resolve: development dependencies are the workspace's.
  const manifest = JSON.parse(readFileSync(path.join(into, "package.json"), "utf8"));
  delete manifest.devDependencies;
  writeFileSync(path.join(into, "package.json"), JSON.stringify(manifest, null, 2));
}

// A build in a fresh checkout, a pi install and a whole interactive pi session: the slowest file of
// `pnpm test` (113 s of 531 at load 10-20), so it runs under `pnpm test:long` (which CI runs). What
// the tarball holds, its manifest and that it imports alone are `pnpm check:packages`' checks too.
describe.skipIf(!LONG_TESTS)("packaging", () => {
  it("packs with a build, installs from a folder with pi install, and shows in pi as muster", async (test) => {
    const shared = team(test);
    const work = path.join(shared.scratch, `pack-${path.basename(shared.dir)}`);
    mkdirSync(work);
    const source = path.join(work, "checkout");
    checkout(source);
    execFileSync("pnpm", ["pack", "--pack-destination", work], { cwd: source, stdio: "pipe" });
    const tarball = path.join(work, readdirSync(work).find((name) => name.endsWith(".tgz"))!);
    const folder = path.join(work, "muster-pi");
    mkdirSync(folder);
    execFileSync("tar", ["-xzf", tarball, "-C", folder, "--strip-components=1"]);
    expect(readdirSync(folder).sort()).toEqual(
      expect.arrayContaining(["CHANGELOG.md", "README.md", "dist", "package.json", "skills"]),
    );
    expect(readdirSync(path.join(folder, "dist", "muster")).sort()).toEqual([
      "index.d.ts",
      "index.js",
    ]);
    const manifest = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8"));
    // No runtime dependency (muster's packages are bundled); pi provides its peers.
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.peerDependencies).toEqual({
      "@earendil-works/pi-coding-agent": "*",
      typebox: "*",
    });
    expect(manifest.pi).toEqual({ extensions: ["./dist/muster/index.js"], skills: ["./skills"] });

    const home = path.join(work, "home");
    mkdirSync(path.join(home, "tmp"), { recursive: true });
    const env = { PATH: process.env.PATH, HOME: home, TMPDIR: path.join(home, "tmp") };
    execFileSync(process.execPath, [PI_CLI, "install", folder], { env, stdio: "pipe" });

    const faux = path.join(root, "test", "faux-extension.ts");
    const tmux = startPrivateTmux({
      command: `cd ${shared.cwd} && HOME=${home} TMPDIR=${home}/tmp MUSTER_TEAM_DIR=${shared.dir} MUSTER_FAUX_SCRIPT=[] ${process.execPath} ${PI_CLI} --offline -e ${faux} --provider faux --model faux-1 --muster-label packed`,
    });
    test.onTestFinished(() => tmux.kill());
    const screen = await eventually(
      () => tmux.tmux("capture-pane", "-p", "-t", "main"),
      (text) => text.includes("⚑ packed"),
      "pi to start with the installed extension",
      { attempts: 600, intervalMs: 100 },
    );
    const lines = screen.split("\n").map((line) => line.trim());
    expect(lines[lines.indexOf("[Extensions]") + 1]?.split(", ").sort()).toEqual([
      "faux-extension.ts",
      "muster",
    ]);
    expect(lines[lines.indexOf("[Skills]") + 1]).toBe("team-etiquette");
  }, 180_000);
});
