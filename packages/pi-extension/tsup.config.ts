// The extension is built to dist/muster/index.js: pi names an extension after the folder of its
// index file, so the folder's name is what a user sees in pi's list of extensions.
import { defineConfig } from "tsup";

export default defineConfig({
  entry: { "muster/index": "src/index.ts" },
  format: ["esm"],
  dts: true,
  clean: true,
  target: "node22",
});
