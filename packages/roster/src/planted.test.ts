// Which records a door shows: one whose label or id join would refuse was planted (written by
// hand, not by a join) and is hidden, with why. The one rule every door that lists the team reads.
import { describe, expect, it } from "vitest";
import { plantedRecord } from "./index.js";

describe("plantedRecord", () => {
  it.each([
    ["a record join wrote: shown", { id: "c1", label: "carol" }, undefined],
    [
      "a label join would refuse: hidden, the label named",
      { id: "evil", label: "\u001b[2Jpwned" },
      /sessions\/evil\.json has a label or id that join would refuse \("\\u001b\[2Jpwned" is not a label\); not shown/,
    ],
    [
      "an id join would refuse, under a good label: hidden too",
      { id: "../up", label: "carol" },
      /has a label or id that join would refuse \("\.\.\/up" is not a valid session id\); not shown/,
    ],
    ["a reserved label: hidden", { id: "x1", label: "all" }, /"all" is reserved for addressing/],
  ] as const)("%s", (_name, record, said) => {
    const why = plantedRecord(record);
    if (said === undefined) expect(why).toBeUndefined();
    else expect(why).toMatch(said);
  });
});
