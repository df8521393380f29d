// A user's first hour, replayed as a user meets it. The packages are published with the
// repository's own `pnpm release` (with --no-git-tag: the replay tags nothing) to a real registry on
// loopback with no uplink (local-registry.ts), and `npm install -g @muster/cli` installs from it
// into a throwaway prefix and HOME whose .npmrc names that registry. Then, in a fresh repository of
// theirs: `muster --version`, a spawn refused at once with its fix (pi not set up yet), muster
// install claude and codex, `muster install pi` (pi's own install, resolving the extension from the
// registry), doctor with no check failed, and a spawn that works (a real pi, offline, on the faux
// model), the hour's work with it (first-hour-work.ts: a lease and its holder's commit, mail that
// wakes the pi, its commit of the leased file refused) and its stop. Last, the install from a
// clone (tools/install-from-clone, on a PATH whose Node is the machine's) and its `muster install
// pi`. Each step is bounded and named when it fails;
// a step the rest needs stops the replay. Run by `pnpm test:long` after the build; needs npm, tmux.
//
//   node tools/src/first-hour-user.ts
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { bobsCommit, hourOfWork } from "./first-hour-work.ts";
import { type LocalRegistry, releaseTo, startLocalRegistry } from "./local-registry.ts";
import { bounded, endCommands, steps, tail } from "./replay-steps.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const piPackage = path.join(root, "packages", "pi-extension");
const piCli = path.join(
  piPackage,
  "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js",
);
const faux = path.join(piPackage, "test", "faux-extension.ts");
const version = JSON.parse(readFileSync(path.join(root, "packages/cli/package.json"), "utf8"))
  .version as string;
const work = mkdtempSync(path.join(tmpdir(), "muster-user-hour-"));
const { step, failures } = steps();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const began = Date.now();

let registry: LocalRegistry | undefined;
const tmuxServer = "user-hour";
const cleanUp = async () => {
  endCommands();
  spawnSync("tmux", ["-L", tmuxServer, "kill-server"], {
    env: { ...process.env, TMUX_TMPDIR: work },
  });
  await registry?.stop();
  rmSync(work, { recursive: true, force: true });
};
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void cleanUp().then(() => process.exit(1)));

// The user's machine: a HOME of its own whose .npmrc names the registry and npm's global prefix,
// a repository of theirs, and a PATH with a Node muster runs on, npm, git and tmux.
const home = path.join(work, "home");
const prefix = path.join(work, "prefix");
const bin = path.join(home, "bin");
const repo = path.join(home, "project");
const muster = path.join(prefix, "bin", "muster");
const env: Record<string, string> = {
  HOME: home,
  PATH: `${bin}:${path.join(prefix, "bin")}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
  TMPDIR: path.join(work, "tmp"),
  TMUX_TMPDIR: work,
  LANG: "C.UTF-8",
  NO_COLOR: "1",
};
for (const folder of [bin, repo, env.TMPDIR!]) mkdirSync(folder, { recursive: true });
symlinkSync(piCli, path.join(bin, "pi"));
writeFileSync(path.join(repo, "README.md"), "my project\n");
writeFileSync(
  path.join(home, ".gitconfig"),
  "[user]\n\tname = A User\n\temail = user@example.com\n",
);
execFileSync("git", ["init", "-q", repo]);
const run = (args: string[], seconds = 120) => bounded(muster, args, { cwd: repo, env, seconds });

try {
  await step("verdaccio on loopback, no uplink", 60, async () => {
    registry = await startLocalRegistry(path.join(work, "registry"));
    // No uplink: a package not published to it is not there (pi's own peers included).
    const elsewhere = await fetch(`${registry.url}typebox`);
    if (elsewhere.status !== 404) throw new Error(`it serves typebox (HTTP ${elsewhere.status})`);
    return `${registry.url} (pid ${registry.pid}), typebox not there`;
  });
  const published =
    registry !== undefined && (await step("pnpm release to it", 900, () => release(registry!)));
  const installed =
    published &&
    (await step("npm install -g @muster/cli from it", 120, async () => {
      writeFileSync(path.join(home, ".npmrc"), `registry=${registry!.url}\nprefix=${prefix}\n`);
      const npm = await bounded(
        "npm",
        ["install", "-g", "--no-audit", "--no-fund", "@muster/cli"],
        {
          cwd: home,
          env,
          seconds: 120,
        },
      );
      if (npm.status !== 0) throw new Error(tail(npm));
      const modules = path.join(prefix, "lib", "node_modules");
      const packages = readdirSync(modules).flatMap((name) =>
        name.startsWith("@")
          ? readdirSync(path.join(modules, name)).map((inner) => `${name}/${inner}`)
          : [name],
      );
      const bytes = readdirSync(modules, { withFileTypes: true, recursive: true })
        .filter((entry) => entry.isFile())
        .reduce((sum, entry) => sum + statSync(path.join(entry.parentPath, entry.name)).size, 0);
      return `${npm.stdout.trim().split("\n").at(-1)}: ${packages.join(", ")}, ${megabytes(bytes)} installed`;
    }));
  if (installed) await firstHour();
  await fromClone();
} catch (error) {
  failures.push(`the replay broke: ${(error as Error).stack}`);
} finally {
  await cleanUp();
}
console.log(`first-hour-user: ${((Date.now() - began) / 1000).toFixed(0)} s in all`);
if (failures.length > 0) {
  for (const failure of failures) console.error(failure);
  console.error(`first-hour-user: ${failures.length} step(s) failed`);
  process.exit(1);
}
console.log("first-hour-user: a user's first hour works");

/** `pnpm release` to the registry; what it published, and the CLI's tarball's size. */
async function release(to: LocalRegistry): Promise<string> {
  const names = await releaseTo(to, { root, home: path.join(work, "release-home"), seconds: 900 });
  const tarball = path.join(to.storage, "@muster", "cli", `cli-${version}.tgz`);
  if (!existsSync(tarball)) throw new Error(`@muster/cli@${version} is not in the registry`);
  return `${names.length} packages (${names.join(", ")}); @muster/cli ${megabytes(statSync(tarball).size)} packed`;
}

/** The user's first hour with the installed muster, in their repository and their tmux. */
async function firstHour() {
  await step("muster --version", 30, async () => {
    const answer = await run(["--version"], 30);
    if (answer.status !== 0 || answer.stdout.trim() !== version) throw new Error(tail(answer));
    return answer.stdout.trim();
  });
  // A tmux server of its own, the way a user starts one; muster runs from a pane of it.
  const tmux = (...args: string[]) =>
    execFileSync("tmux", ["-L", tmuxServer, "-f", "/dev/null", ...args], {
      env,
      encoding: "utf8",
    });
  tmux("new-session", "-d", "-s", "main", "-x", "200", "-y", "50", "sleep 900");
  let callers = 0;
  const fromPane = async (args: string[], seconds: number) => {
    callers += 1;
    const out = path.join(work, `pane-${callers}`);
    const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
    writeFileSync(
      `${out}.sh`,
      `cd ${quote(repo)}\n${[muster, ...args].map(quote).join(" ")} > ${out}.out 2> ${out}.err\necho $? > ${out}.status\nsleep 900\n`,
    );
    tmux("new-window", "-d", "-t", "main", `sh ${out}.sh`);
    const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : "");
    for (let waited = 0; read(`${out}.status`).trim() === ""; waited += 200) {
      if (waited > seconds * 1000)
        throw new Error(`muster ${args.join(" ")} did not finish in ${seconds} s`);
      await sleep(200);
    }
    return {
      status: Number(read(`${out}.status`).trim()),
      stdout: read(`${out}.out`),
      stderr: read(`${out}.err`),
    };
  };
  const piArgs = ["-e", faux, "--provider", "faux", "--model", "faux-1", "--offline"];

  // As a user types it: no model arguments (nothing starts, so none are needed).
  await step("muster spawn pi before muster install pi: refused with its fix", 60, async () => {
    const refused = await fromPane(["spawn", "pi", "--label", "early"], 60);
    if (refused.status !== 1 || !/run muster install pi, then spawn again/.test(refused.stderr))
      throw new Error(tail(refused));
    return "";
  });
  for (const engine of ["claude", "codex"])
    await step(`muster install ${engine}`, 60, async () => {
      const answer = await run(["install", engine], 60);
      if (answer.status !== 0) throw new Error(tail(answer));
      return answer.stdout.split("\n")[0]!;
    });
  await step("muster install pi, the extension from the registry", 180, async () => {
    const answer = await run(["install", "pi"], 180);
    if (answer.status !== 0) throw new Error(tail(answer));
    const ran = `Ran pi install npm:@muster/pi-extension@${version}`;
    if (!answer.stdout.includes(ran)) throw new Error(`no "${ran}": ${tail(answer)}`);
    const manifest = path.join(
      home,
      ".pi/agent/npm/node_modules/@muster/pi-extension/package.json",
    );
    const got = existsSync(manifest) ? JSON.parse(readFileSync(manifest, "utf8")).version : "none";
    if (got !== version) throw new Error(`pi's npm folder holds version ${got}`);
    return answer.stdout.trim().split("\n").at(-1)!;
  });
  // The user's doctor runs inside their tmux: here, the replay's own server.
  await step("muster doctor: no check failed", 60, async () => {
    const doctor = await run(["doctor", "--json", "-L", tmuxServer], 60);
    const checks = JSON.parse(doctor.stdout || "{}").checks as { ok: boolean }[] | undefined;
    const failed = (checks ?? []).filter((check) => !check.ok);
    if (!checks || failed.length > 0) throw new Error(JSON.stringify(checks ? failed : doctor));
    return `${checks.length} checks`;
  });
  // Bob's one scripted turn (his pi's bash tool commits src/parser.js), taken when mail wakes him.
  tmux("set-environment", "-g", "MUSTER_FAUX_SCRIPT", bobsCommit(work, repo).script);
  const joined = await step("muster spawn pi --label bob: joins", 150, async () => {
    const spawned = await fromPane(
      ["spawn", "pi", "--label", "bob", "--json", "--", ...piArgs],
      150,
    );
    const document = JSON.parse(spawned.stdout || "{}");
    if (spawned.status !== 0 || document.state !== "joined") throw new Error(tail(spawned));
    return `joined in ${document.timings?.joinedMs ?? "?"} ms`;
  });
  // The hour's work while bob is on the team: a lease, its holder's own commit, mail that wakes
  // bob (`send --wait`) and his commit of the leased file, refused.
  if (joined) await hourOfWork({ step, tmux, work, repo });
  if (joined)
    await step("muster stop bob", 60, async () => {
      const stopped = await run(["stop", "bob"], 60);
      if (stopped.status !== 0) throw new Error(tail(stopped));
      return stopped.stdout.trim();
    });
}

/**
 * The install from a clone, as the README gives it until @muster/cli is published: the machine's
 * own PATH (its Node may be older than muster's), npm's prefix and a HOME of this replay's.
 */
async function fromClone() {
  const clonePrefix = path.join(work, "clone-prefix");
  const cloneHome = path.join(work, "clone-home");
  mkdirSync(path.join(cloneHome, "bin"), { recursive: true });
  symlinkSync(piCli, path.join(cloneHome, "bin", "pi"));
  const installed = await step("tools/install-from-clone", 600, async () => {
    const done = await bounded(path.join(root, "tools", "install-from-clone"), [], {
      cwd: root,
      // pnpmw's cache and pnpm's store are the machine's (HOME); npm's global prefix is ours.
      env: { ...process.env, PATH: "/usr/bin:/bin", npm_config_prefix: clonePrefix },
      seconds: 600,
    });
    if (done.status !== 0) throw new Error(tail(done));
    return done.stdout
      .trim()
      .split("\n")
      .filter((line) => line.startsWith("install-from-clone"))
      .join("; ");
  });
  if (!installed) return;
  const cloneEnv = {
    ...env,
    HOME: cloneHome,
    PATH: `${path.join(cloneHome, "bin")}:${path.join(clonePrefix, "bin")}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
  };
  const extension = path.join(clonePrefix, "lib", "node_modules", "@muster", "pi-extension");
  await step("its muster install pi: the extension beside it", 120, async () => {
    const answer = await bounded(path.join(clonePrefix, "bin", "muster"), ["install", "pi"], {
      cwd: cloneHome,
      env: cloneEnv,
      seconds: 120,
    });
    if (
      answer.status !== 0 ||
      !answer.stdout.includes(`pi loads muster's extension from ${extension}`)
    )
      throw new Error(tail(answer));
    return answer.stdout.trim().split("\n").at(-1)!;
  });
}
