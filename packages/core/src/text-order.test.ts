import { describe, expect, it } from "vitest";
import { compareText } from "./_text-order.js";

const collator = new Intl.Collator();
/** Every pair of names of up to three characters from this alphabet, against the collator. */
const ALPHABET = ["a", "A", "b", "z", "Z", "0", "9", ".", "_", "-"];
const names = [""];
for (let length = 0; length < 3; length += 1)
  for (const name of names.filter((name) => name.length === length))
    for (const char of ALPHABET) names.push(name + char);

describe("compareText", () => {
  it("orders every name of the label alphabet as localeCompare does", () => {
    const wrong = names.flatMap((left) =>
      names
        .filter(
          (right) =>
            Math.sign(compareText(left, right)) !== Math.sign(collator.compare(left, right)),
        )
        .map((right) => `${left} ${right}`),
    );
    expect(names.length).toBeGreaterThan(1000);
    expect(wrong).toEqual([]);
  });

  it("orders other text by the collator", () => {
    expect(Math.sign(compareText("é", "f"))).toBe(Math.sign(collator.compare("é", "f")));
    expect(Math.sign(compareText("ä b", "a c"))).toBe(Math.sign(collator.compare("ä b", "a c")));
  });
});
