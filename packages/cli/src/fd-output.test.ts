// A start's output on a pipe or a file is written with fs.writeSync (_fd-output.ts): every byte in
// order, a pipe left non-blocking handed to Node's stream for the rest, and a closed pipe told as
// Node's stream tells it (the callback and 'error'), never thrown.
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const MODULE = path.join(import.meta.dirname, "_fd-output.ts");
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-fd-output-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Run `body` in a Node whose `out` is fdOutput(1); its stdout, stderr and exit status. */
function child(body: string, stdout: "pipe" | number, readLate = 0) {
  const script = `import { fdOutput } from ${JSON.stringify(MODULE)};\n${body}`;
  const started = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", stdout, "pipe"],
  });
  return new Promise<{ out: Buffer; err: string; status: number | null }>((resolve) => {
    const chunks: Buffer[] = [];
    let err = "";
    started.stderr?.on("data", (chunk: Buffer) => {
      err += chunk;
    });
    if (started.stdout) {
      started.stdout.pause();
      setTimeout(
        () => started.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk)).resume(),
        readLate,
      );
    }
    started.on("close", (status) => resolve({ out: Buffer.concat(chunks), err, status }));
  });
}

const LINES = `const out = fdOutput(1, () => process.stdout);
for (let index = 0; index < 20000; index += 1) out.write(\`line \${index} \${"x".repeat(60)}\\n\`);
out.write("end\\n", (error) => process.stderr.write(error ? "failed" : "written"));`;

const expected = () => {
  let text = "";
  for (let index = 0; index < 20000; index += 1) text += `line ${index} ${"x".repeat(60)}\n`;
  return `${text}end\n`;
};

describe("a start's output on a pipe or a file", () => {
  it("a file gets every byte in order", async () => {
    const file = path.join(scratch, "out");
    const fd = openSync(file, "w");
    const run = await child(LINES, fd);
    closeSync(fd);
    expect(run.err).toBe("written");
    expect(readFileSync(file, "utf8")).toBe(expected());
  });

  it("a slow pipe gets every byte in order", async () => {
    const run = await child(LINES, "pipe", 300);
    expect(run.err).toBe("written");
    expect(run.out.toString()).toBe(expected());
  });

  it("a pipe made non-blocking (EAGAIN) hands the rest to Node's stream, in order", async () => {
    // Node's own stream on the same pipe makes it non-blocking; the pipe is full long before.
    const run = await child(`process.stdout;\n${LINES}`, "pipe", 300);
    expect(run.err).toBe("written");
    expect(run.out.toString()).toBe(expected());
  });

  it("a closed pipe: the callback and 'error' are told, nothing is thrown", async () => {
    const body = `const out = fdOutput(1, () => process.stdout);
let heard = "";
out.on("error", (error) => { heard += "error:" + error.code; });
await new Promise((resolve) => setTimeout(resolve, 300));
out.write("lost\\n", (error) => { heard += " callback:" + (error && error.code); });
setTimeout(() => process.stderr.write(heard), 50);`;
    const started = spawn(
      process.execPath,
      ["--input-type=module", "-e", `import { fdOutput } from ${JSON.stringify(MODULE)};\n${body}`],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    started.stdout.destroy();
    let err = "";
    started.stderr.on("data", (chunk: Buffer) => {
      err += chunk;
    });
    const status = await new Promise((resolve) => started.on("close", resolve));
    expect(err).toBe(" callback:EPIPEerror:EPIPE");
    expect(status).toBe(0);
  });

  it("/dev/null is written directly: Node's stream (and its modules) is not made for it", async () => {
    // A start whose stderr is dropped (stdio "ignore": /dev/null, a character device) made
    // process.stderr at once, loading Node's streams, though it wrote nothing.
    const fd = openSync("/dev/null", "w");
    const run = await child(
      `let made = 0;
const out = fdOutput(1, () => { made += 1; return process.stdout; });
out.write("dropped\\n", (error) => process.stderr.write(\`\${error ? "failed" : "written"} made:\${made}\`));`,
      fd,
    );
    closeSync(fd);
    expect(run.err).toBe("written made:0");
  });
});
