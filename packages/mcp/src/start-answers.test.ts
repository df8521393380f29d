// The start answers the build wrote beside the code are what the server answers now: a build
// that missed a change to a tool would have the front announce tools the server does not have.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { createMusterServer } from "./_server.ts";
import { startAnswers } from "./_start-answers.ts";
import { readStartAnswers } from "./_stdio-front.ts";

const built = path.join(import.meta.dirname, "..", "dist", "start-answers.json");

describe("the start answers", () => {
  it("in dist are the server's own answers to initialize and tools/list", async () => {
    const live = await startAnswers(createMusterServer({ env: {}, cwd: import.meta.dirname }));
    expect(JSON.parse(readFileSync(built, "utf8"))).toEqual(live);
    expect(Object.keys(live.initialize)).toContain("*");
    expect((live["tools/list"] as { tools: unknown[] }).tools.length).toBeGreaterThan(10);
  });

  it("are not used when the file is missing, half written or lacks a part (the SDK answers)", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "muster-start-answers-"));
    try {
      const file = path.join(dir, "start-answers.json");
      expect(readStartAnswers(pathToFileURL(file))).toBeUndefined();
      writeFileSync(file, readFileSync(built, "utf8").slice(0, 100));
      expect(readStartAnswers(pathToFileURL(file))).toBeUndefined();
      writeFileSync(file, JSON.stringify({ initialize: {} }));
      expect(readStartAnswers(pathToFileURL(file))).toBeUndefined();
      writeFileSync(file, readFileSync(built, "utf8"));
      expect(readStartAnswers(pathToFileURL(file))).toBeDefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
