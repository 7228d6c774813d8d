// The package is "type": "module": the CommonJS build must end in .cjs.
import { readdirSync, renameSync, writeFileSync } from "node:fs";
for (const f of readdirSync("dist/cjs")) {
  if (f.endsWith(".js")) renameSync(`dist/cjs/${f}`, `dist/cjs/${f.replace(/\.js$/, ".cjs")}`);
}
writeFileSync("dist/cjs/package.json", JSON.stringify({ type: "commonjs" }) + "\n");
