// A user's first hour, replayed: the CLI installed globally from its packed tarball into a
// throwaway prefix and HOME (as `npm install -g @muster/cli` does), then in a fresh repository of
// theirs: a spawn refused at once with its fix (pi not set up yet), muster install claude, codex
// and pi, doctor with no check failed, and a spawn that works (a real pi, offline, on the faux
// model) and its stop. Run by `pnpm test:long` after the build; needs npm and tmux.
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
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { installCliGlobally } from "./cli-install.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const piPackage = path.join(root, "packages", "pi-extension");
const piCli = path.join(
  piPackage,
  "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js",
);
const faux = path.join(piPackage, "test", "faux-extension.ts");
const work = mkdtempSync(path.join(tmpdir(), "muster-user-hour-"));
const failures: string[] = [];
const ok = (what: string) => console.log(`  ok  ${what}`);
const fail = (what: string, detail: string) => {
  failures.push(`${what}: ${detail}`);
  console.log(`  FAIL ${what}`);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let tmuxServer: (() => void) | undefined;
try {
  execFileSync("pnpm", ["pack", "--pack-destination", work], {
    cwd: path.join(root, "packages", "cli"),
    stdio: "ignore",
  });
  const tarball = path.join(work, readdirSync(work).find((name) => name.endsWith(".tgz"))!);
  const installed = await installCliGlobally(tarball, path.join(work, "global"));
  ok(`npm install -g of the CLI's tarball: ${installed.summary}`);
  const home = path.join(work, "global", "home");
  const bin = path.join(home, "bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(piCli, path.join(bin, "pi"));
  const muster = path.join(work, "global", "prefix", "bin", "muster");
  const repo = path.join(home, "project");
  mkdirSync(repo);
  writeFileSync(path.join(repo, "README.md"), "my project\n");
  execFileSync("git", ["init", "-q", repo]);
  const env: Record<string, string> = {
    HOME: home,
    PATH: `${bin}:${path.dirname(muster)}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
    TMUX_TMPDIR: work,
    LANG: "C.UTF-8",
    NO_COLOR: "1",
  };
  const run = (args: string[]) =>
    spawnSync(muster, args, { cwd: repo, env, encoding: "utf8", timeout: 120_000 });

  // A tmux server of its own, the way a user starts one; muster runs from a pane of it.
  const tmux = (...args: string[]) =>
    execFileSync("tmux", ["-L", "user-hour", "-f", "/dev/null", ...args], {
      env,
      encoding: "utf8",
    });
  tmux("new-session", "-d", "-s", "main", "-x", "200", "-y", "50", "sleep 900");
  tmuxServer = () => spawnSync("tmux", ["-L", "user-hour", "kill-server"], { env });
  let callers = 0;
  const fromPane = async (args: string[]) => {
    callers += 1;
    const out = path.join(work, `pane-${callers}`);
    const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
    writeFileSync(
      `${out}.sh`,
      `cd ${quote(repo)}\n${[muster, ...args].map(quote).join(" ")} > ${out}.out 2> ${out}.err\necho $? > ${out}.status\nsleep 900\n`,
    );
    tmux("new-window", "-d", "-t", "main", `sh ${out}.sh`);
    for (let waited = 0; waited < 120_000; waited += 200) {
      if (existsSync(`${out}.status`) && readFileSync(`${out}.status`, "utf8").trim() !== "") break;
      await sleep(200);
    }
    const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : "");
    return {
      status: Number(read(`${out}.status`).trim() || "-1"),
      stdout: read(`${out}.out`),
      stderr: read(`${out}.err`),
    };
  };
  const piArgs = ["-e", faux, "--provider", "faux", "--model", "faux-1", "--offline"];

  const began = Date.now();
  // As a user types it: no model arguments (nothing starts, so none are needed).
  const refused = await fromPane(["spawn", "pi", "--label", "early"]);
  const seconds = (Date.now() - began) / 1000;
  if (refused.status === 1 && /run muster install pi, then spawn again/.test(refused.stderr))
    ok(`muster spawn pi before muster install pi: refused in ${seconds.toFixed(1)} s with its fix`);
  else fail("spawn before install pi", `${refused.status}: ${refused.stderr}${refused.stdout}`);

  for (const engine of ["claude", "codex"]) {
    const answer = run(["install", engine]);
    if (answer.status === 0) ok(`muster install ${engine}: ${answer.stdout.split("\n")[0]}`);
    else fail(`muster install ${engine}`, `${answer.status}: ${answer.stderr}`);
  }
  const pi = run(["install", "pi", "--from", piPackage]);
  if (pi.status === 0) ok(`muster install pi --from the package: ${pi.stdout.split("\n")[0]}`);
  else fail("muster install pi", `${pi.status}: ${pi.stderr}${pi.stdout}`);

  // The user's doctor runs inside their tmux: here, the replay's own server.
  const doctor = run(["doctor", "--json", "-L", "user-hour"]);
  const checks = JSON.parse(doctor.stdout || "{}").checks as
    | { name: string; ok: boolean; detail: string }[]
    | undefined;
  const failed = (checks ?? []).filter((check) => !check.ok);
  if (checks && failed.length === 0) ok(`muster doctor: ${checks.length} checks, none failed`);
  else fail("muster doctor", JSON.stringify(failed.length > 0 ? failed : doctor.stdout));

  const spawned = await fromPane(["spawn", "pi", "--label", "bob", "--json", "--", ...piArgs]);
  const document = JSON.parse(spawned.stdout || "{}");
  if (spawned.status === 0 && document.state === "joined")
    ok(`muster spawn pi --label bob: joined in ${document.timings?.joinedMs ?? "?"} ms`);
  else fail("muster spawn pi", `${spawned.status}: ${spawned.stderr}${spawned.stdout}`);
  const stopped = run(["stop", "bob"]);
  if (stopped.status === 0) ok(`muster stop bob: ${stopped.stdout.trim()}`);
  else fail("muster stop bob", `${stopped.status}: ${stopped.stderr}`);
} catch (error) {
  failures.push(`the replay broke: ${(error as Error).stack}`);
} finally {
  tmuxServer?.();
  rmSync(work, { recursive: true, force: true });
}
if (failures.length > 0) {
  for (const failure of failures) console.error(failure);
  console.error(`first-hour-user: ${failures.length} step(s) failed`);
  process.exit(1);
}
console.log("first-hour-user: a user's first hour works");
