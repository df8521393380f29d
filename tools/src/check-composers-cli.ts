// `pnpm check:composers`: print one line per violation and exit 1, or say what was checked.
import path from "node:path";
import { checkComposers } from "./check-composers.ts";
import { formatViolation } from "./check-leaves.ts";

const repoRoot = path.resolve(import.meta.dirname, "..", "..");
const { checked, violations } = checkComposers(repoRoot);
for (const violation of violations) console.error(formatViolation(violation, repoRoot));
if (violations.length > 0) {
  console.error(
    `check:composers: ${violations.length} rule(s) or copied wiring in composers (see docs/architecture.md)`,
  );
  process.exit(1);
}
console.log(
  `check:composers: ${checked.length} composer(s) clean (${checked.join(", ") || "none yet"})`,
);
