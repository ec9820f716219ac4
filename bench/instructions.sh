#!/usr/bin/env bash
# Instructions per event of the round trip, counted by valgrind (callgrind): unlike CPU time, the
# count is the same however busy the machine is, so two versions of the library can be compared
# on a shared host. Prints (library round trip) / (JSON.parse + JSON.stringify) in instructions.
# Usage: npm run bench:instructions [-- <events>]   (needs valgrind: apt-get install valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
events="${1:-30000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
npx tsc -p tsconfig.build.json --outDir "$work/dist"
npx tsc --outDir "$work/bench" --target ES2021 --module commonjs bench/corpus.ts
ln -s "$PWD/node_modules" "$work/node_modules"
cat > "$work/run.js" <<JS
require('reflect-metadata');
const mode = process.argv[2];
const { Event } = mode === 'lib' || mode === 'load' ? require('./dist/index.js') : {};
const lines = require('./bench/corpus.js').corpus($events);
let sink = 0;
if (mode === 'lib') for (const line of lines) sink += JSON.stringify(Event.fromJSON(line)).length;
if (mode === 'json') for (const line of lines) sink += JSON.stringify(JSON.parse(line)).length;
if (sink < 0) console.log(sink);
JS
count() { valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file=/dev/null node "$work/run.js" "$1" 2>&1 | awk '/Collected/ { print $4 }'; }
none=$(count none); json=$(count json); load=$(count load); lib=$(count lib)
node -e "
const [none, json, load, lib, n] = process.argv.slice(1).map(Number);
const floor = (json - none) / n, library = (lib - load) / n;
console.log(n + ' events: JSON.parse + JSON.stringify ' + Math.round(floor) + ' instructions/event, library round trip ' + Math.round(library) + ' (' + (library / floor).toFixed(2) + '×, JIT compilation included)');
" "$none" "$json" "$load" "$lib" "$events"
