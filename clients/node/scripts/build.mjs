// Builds dist/ from src/: ES modules with their types in dist/esm, CommonJS with theirs in
// dist/cjs. dist/ is committed, so that the package runs from a checkout without a build step;
// the test suite checks that it is what this script makes of src/.
//
//   npm install --no-save && npm run build        (or: TSC=/path/to/tsc node scripts/build.mjs)
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const local = join(root, "node_modules", ".bin", "tsc");
const tsc = process.env.TSC || (existsSync(local) ? local : "tsc");
const out = process.argv[2] ? join(process.cwd(), process.argv[2]) : join(root, "dist");

rmSync(out, { recursive: true, force: true });
for (const [config, folder] of [
  ["tsconfig.json", "esm"],
  ["tsconfig.cjs.json", "cjs"],
]) {
  execFileSync(tsc, ["-p", join(root, config), "--outDir", join(out, folder)], {
    stdio: "inherit",
  });
}
// The .js files of dist/cjs are CommonJS, whatever the package's own "type".
writeFileSync(join(out, "cjs", "package.json"), '{\n  "type": "commonjs"\n}\n');
// `require("congopay")` is the client class itself, with every other export on it, as
// `import Congopay from "congopay"` is.
appendFileSync(
  join(out, "cjs", "index.js"),
  "module.exports = Object.assign(exports.default, exports);\n",
);
