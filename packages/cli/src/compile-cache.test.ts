// The compile cache of muster's own processes: in the user's cache folder (XDG), never in a config
// or state folder, private, and never
// in a folder someone else can write (compiled code is run as is), nor in Node's default in /tmp.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { musterKit } from "../test/run.ts";

const { scratch, muster } = musterKit("muster-compile-cache-");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let homes = 0;
/** A fresh HOME and TMPDIR for one start of muster; the files the start left in either. */
async function startIn(env: Record<string, string> = {}, prepare?: (home: string) => void) {
  homes += 1;
  const home = path.join(scratch, `home-${homes}`);
  const tmp = path.join(home, "tmp");
  mkdirSync(tmp, { recursive: true });
  prepare?.(home);
  const run = await muster(["--version"], { env: { HOME: home, TMPDIR: tmp, ...env } });
  expect(run.status).toBe(0);
  const files = (folder: string) =>
    existsSync(folder) ? readdirSync(folder, { recursive: true }).map(String) : [];
  return { home, files, inTmp: files(tmp) };
}

const folderIn = (home: string) => path.join(home, ".cache", "muster", "compile-cache");

describe("the compile cache", () => {
  it("is kept in the user's cache folder, private to the user, and not in /tmp", async () => {
    const { home, files, inTmp } = await startIn();
    expect(files(folderIn(home)).length).toBeGreaterThan(0);
    expect(files(path.join(home, ".local", "state", "muster", "compile-cache"))).toEqual([]);
    expect(files(path.join(home, ".config"))).toEqual([]);
    expect(statSync(folderIn(home)).mode & 0o777).toBe(0o700);
    expect(inTmp).toEqual([]);
  });

  it("moves with XDG_CACHE_HOME, and with MUSTER_HOME", async () => {
    const cached = await startIn({ XDG_CACHE_HOME: path.join(scratch, "xdg-cache") });
    expect(
      cached.files(path.join(scratch, "xdg-cache", "muster", "compile-cache")).length,
    ).toBeGreaterThan(0);
    expect(cached.files(folderIn(cached.home))).toEqual([]);
    const { home, files } = await startIn({ MUSTER_HOME: path.join(scratch, "moved") });
    expect(files(path.join(scratch, "moved", "cache", "compile-cache")).length).toBeGreaterThan(0);
    expect(files(folderIn(home))).toEqual([]);
  });

  it("is not used in a folder others can write, nor through a symlink", async () => {
    const open = await startIn({}, (home) => {
      mkdirSync(folderIn(home), { recursive: true });
      chmodSync(folderIn(home), 0o777);
    });
    expect(open.files(folderIn(open.home))).toEqual([]);
    expect(open.inTmp).toEqual([]);
    const elsewhere = path.join(scratch, "elsewhere");
    const linked = await startIn({}, (home) => {
      mkdirSync(elsewhere, { recursive: true });
      mkdirSync(path.dirname(folderIn(home)), { recursive: true });
      symlinkSync(elsewhere, folderIn(home));
    });
    expect(linked.files(elsewhere)).toEqual([]);
    expect(linked.inTmp).toEqual([]);
  });

  it("is off with NODE_DISABLE_COMPILE_CACHE=1", async () => {
    const { home, files } = await startIn({ NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(files(folderIn(home))).toEqual([]);
  });
});
