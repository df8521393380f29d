import path from "node:path";
import { expect, it } from "vitest";
import { checkConfigs } from "./typecheck-programs.ts";

const fixture = path.resolve(import.meta.dirname, "..", "fixtures", "typecheck");
const configs = ["owner", "user", "strict"].map((name) =>
  path.join(fixture, name, "tsconfig.json"),
);

/** Per config (by folder), the files its diagnostics are in, with their codes. */
function reported() {
  return Object.fromEntries(
    checkConfigs(configs).map(({ config, diagnostics }) => [
      path.basename(path.dirname(config)),
      diagnostics.map((d) => `${path.relative(fixture, d.file?.fileName ?? "")} TS${d.code}`),
    ]),
  );
}

it("reports each file's errors once: by the config that includes it, by the importer for a file no config includes, and again under other options", () => {
  expect(reported()).toEqual({
    // bad.ts is the owner's; loose.ts is clean under the owner's options.
    owner: ["owner/src/bad.ts TS2322"],
    // Same options as the owner: bad.ts is not reported twice; stray.ts is in no config.
    user: ["stray.ts TS2322"],
    // noUnusedLocals: loose.ts fails under these options, so this config reports it.
    strict: ["owner/src/loose.ts TS6133"],
  });
});
