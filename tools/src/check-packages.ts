// `pnpm check:packages`: every published package is checked as a user would receive it. Each is
// packed once; the tarball goes through publint (strict) and arethetypeswrong (ESM profile), then
// is installed alone into an empty project and imported from plain Node, which calls one export.
// The CLI is also installed as a user installs it, globally (see cli-install.ts).
// Run after `pnpm build`. Owns the checks, not the build.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execaSync } from "execa";
import { LEAF_PACKAGES } from "./check-leaves.ts";
import { installCliGlobally } from "./cli-install.ts";
import { SMOKE_CALLS } from "./smoke-calls.ts";
import { strayTypeImports } from "./type-imports.ts";

const repoRoot = path.resolve(import.meta.dirname, "..", "..");
const bin = (name: string) => path.join(repoRoot, "node_modules", ".bin", name);

/** Peers a smoke call needs that the host would provide (pi provides typebox to its extensions). */
const HOST_PROVIDED: Record<string, string[]> = { "@muster/pi-extension": ["typebox@1.3.27"] };

type Manifest = {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

// execa here, where its import cost does not matter and its care does: its error names the command,
// its exit code and both streams, and a timeout kills the child instead of stalling CI.
function run(command: string, args: string[], cwd: string) {
  const result = execaSync(command, args, {
    cwd,
    stdin: "ignore",
    timeout: 300_000,
    reject: false,
  });
  if (result.failed) throw new Error(result.message);
  return result.stdout;
}

/** `changeset status --output` as one line: what the recorded changesets would release. */
function releaseLine(statusJson: string): string {
  const { changesets = [], releases = [] } = JSON.parse(statusJson) as {
    changesets?: unknown[];
    releases?: { name: string; type: string; newVersion: string }[];
  };
  const bumped = releases.filter((release) => release.type !== "none");
  if (bumped.length === 0) return "no changesets recorded, nothing to release";
  const bumps = bumped.map((release) => `${release.name} ${release.type} → ${release.newVersion}`);
  return `${changesets.length} changeset(s) would release ${bumps.join(", ")}`;
}

function publishedPackages() {
  const folder = path.join(repoRoot, "packages");
  return readdirSync(folder)
    .map((name) => ({ name, dir: path.join(folder, name) }))
    .map((entry) => ({
      ...entry,
      manifest: JSON.parse(readFileSync(path.join(entry.dir, "package.json"), "utf8")) as Manifest,
    }))
    .filter((entry) => !entry.manifest.private);
}

/** A step whose check is asynchronous, reported as `step` reports the others. */
async function stepAsync(
  step: (what: string, action: () => void) => void,
  what: string,
  action: () => Promise<void>,
) {
  let failure: unknown;
  await action().catch((error: unknown) => {
    failure = error;
  });
  step(what, () => {
    if (failure) throw failure;
  });
}

async function main() {
  const packages = publishedPackages();
  const work = mkdtempSync(path.join(tmpdir(), "muster-check-packages-"));
  const failures: string[] = [];
  try {
    const tarballs = new Map<string, string>();
    for (const { dir, manifest } of packages) {
      run("pnpm", ["pack", "--pack-destination", work], dir);
      const file = readdirSync(work).find(
        (name) =>
          name.endsWith(`-${manifest.version}.tgz`) &&
          name.startsWith(manifest.name.replace("@", "").replace("/", "-")),
      );
      if (!file) throw new Error(`pnpm pack wrote no tarball for ${manifest.name}`);
      tarballs.set(manifest.name, path.join(work, file));
    }
    for (const { name, manifest } of packages) {
      const tarball = tarballs.get(manifest.name)!;
      const step = (what: string, action: () => void) => {
        try {
          action();
          console.log(`  ok  ${manifest.name}: ${what}`);
        } catch (error) {
          failures.push(`${manifest.name}: ${what}: ${(error as Error).message}`);
          console.log(`  FAIL ${manifest.name}: ${what}`);
        }
      };
      step("publint --strict", () =>
        run(bin("publint"), ["run", tarball, "--strict", "--pack", "false"], work),
      );
      step("arethetypeswrong (esm-only)", () =>
        run(bin("attw"), [tarball, "--profile", "esm-only", "--format", "ascii"], work),
      );
      step("installs alone and runs from plain Node", () => {
        const smoke = SMOKE_CALLS[manifest.name];
        if (!smoke) throw new Error(`no smoke call is listed for it in tools/src/smoke-calls.ts`);
        const project = path.join(work, `project-${name}`);
        mkdirSync(project);
        writeFileSync(
          path.join(project, "package.json"),
          JSON.stringify({ name: "smoke", private: true, type: "module" }),
        );
        // Workspace dependencies come from their local tarballs, everything else from the registry.
        const local = Object.keys(manifest.dependencies ?? {})
          .filter((dependency) => tarballs.has(dependency))
          .map((dependency) => tarballs.get(dependency)!);
        // Peers are the host's to provide: not installed here (pi alone is a 100 MB tree).
        const install = [
          "install",
          "--no-audit",
          "--no-fund",
          "--prefer-offline",
          "--loglevel=error",
          "--legacy-peer-deps",
        ];
        run(
          "npm",
          [...install, tarball, ...local, ...(HOST_PROVIDED[manifest.name] ?? [])],
          project,
        );
        if ((LEAF_PACKAGES as readonly string[]).includes(name)) {
          const installed = readdirSync(path.join(project, "node_modules")).filter(
            (entry) => !entry.startsWith("."),
          );
          const scoped = readdirSync(path.join(project, "node_modules", "@muster"));
          if (installed.join() !== "@muster" || scoped.join() !== name) {
            throw new Error(
              `a leaf must install alone, found ${installed.join(", ")} / ${scoped.join(", ")}`,
            );
          }
        }
        writeFileSync(path.join(project, "smoke.mjs"), smoke);
        run(process.execPath, ["smoke.mjs"], project);
        const stray = strayTypeImports(
          path.join(project, "node_modules", ...manifest.name.split("/")),
        );
        if (stray.length > 0)
          throw new Error(`its types import packages it does not depend on: ${stray.join(", ")}`);
      });
      if (manifest.name === "@muster/cli")
        await stepAsync(step, "installs globally from its tarball alone, and serves", async () => {
          const installed = await installCliGlobally(tarball, path.join(work, "global"));
          console.log(`       ${installed.summary}`);
        });
    }
    try {
      const output = path.join(work, "changeset-status.json");
      run(bin("changeset"), ["status", `--output=${output}`], repoRoot);
      console.log(`  ok  changeset status: ${releaseLine(readFileSync(output, "utf8"))}`);
    } catch (error) {
      // A change without a changeset blocks CI; while you work, it is a reminder, not a failure.
      const failure = `changeset status: ${(error as Error).message.split("\n").slice(1).join(" ").trim()} (record one with pnpm changeset, and commit it)`;
      if (process.env.CI) {
        failures.push(failure);
        console.log("  FAIL changeset status");
      } else {
        console.log(`  warn ${failure}`);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    for (const failure of failures) console.error(failure);
    console.error(`check:packages: ${failures.length} check(s) failed`);
    process.exit(1);
  }
  console.log(
    `check:packages: ${packages.length} package(s) pass publint, attw, and install alone; the CLI installs globally`,
  );
}

await main();
