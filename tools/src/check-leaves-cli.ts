// `pnpm check:leaves`: print one line per violation and exit 1, or say what was checked.
import path from "node:path";
import { checkLeaves, formatViolation } from "./check-leaves.ts";

const repoRoot = path.resolve(import.meta.dirname, "..", "..");
const { checked, violations } = checkLeaves(repoRoot);
for (const violation of violations) console.error(formatViolation(violation, repoRoot));
if (violations.length > 0) {
  console.error(
    `check:leaves: ${violations.length} violation(s) of the leaf policy (see DESIGN.md)`,
  );
  process.exit(1);
}
console.log(
  `check:leaves: ${checked.length} leaf package(s) clean (${checked.join(", ") || "none yet"})`,
);
