// How long a storm runs: a few dense rounds in `pnpm test`, many under `pnpm test:long`
// (MUSTER_LONG_TESTS=1, which CI runs too). Every round proves the same thing; more rounds only
// make a rare interleaving likelier to show.

/** True under `pnpm test:long`. */
export const LONG_TESTS = process.env.MUSTER_LONG_TESTS === "1";

/** `short` rounds in `pnpm test`, `long` under `pnpm test:long`. */
export const rounds = (short: number, long: number): number => (LONG_TESTS ? long : short);
