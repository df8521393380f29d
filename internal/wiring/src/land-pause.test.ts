// A test's hold in a land (MUSTER_LAND_PAUSE) keeps the land at one step long enough for the
// test's kill, and never for good: a process that inherited the variable by mistake goes on.
import { describe, expect, it, vi } from "vitest";
import { LAND_PAUSE_MS, landPause } from "./land-run.ts";

describe("MUSTER_LAND_PAUSE", () => {
  it("holds at the step it names, then goes on by itself", async () => {
    const said = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const began = Date.now();
      await landPause("ref", { MUSTER_LAND_PAUSE: "ref" }, 200);
      expect(Date.now() - began).toBeGreaterThanOrEqual(190);
      expect(String(said.mock.calls[0]?.[0])).toContain("paused at ref");
    } finally {
      said.mockRestore();
    }
  });

  it("does not hold at any other step, nor without the variable", async () => {
    const began = Date.now();
    await landPause("rebase", { MUSTER_LAND_PAUSE: "ref" }, 10_000);
    await landPause("ref", {}, 10_000);
    expect(Date.now() - began).toBeLessThan(1000);
  });

  it("is bounded by default: a minute at most", () => {
    expect(LAND_PAUSE_MS).toBeGreaterThan(0);
    expect(LAND_PAUSE_MS).toBeLessThanOrEqual(60_000);
  });
});
