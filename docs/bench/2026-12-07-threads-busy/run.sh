#!/bin/bash
# Before (main) vs after (threads branch), natively (stories15M) and in the threaded wasm module (default
# preset), quiet and with one core busy: 3 rounds, the builds alternating within each round.
# Usage: run.sh OUT BEFORE AFTER, where BEFORE and AFTER each hold a native `kvlab` and a `wasm` folder
# of the threaded module (build/wasm-threads of each checkout).
set -u
OUT=$1 BEFORE=$2 AFTER=$3
mkdir -p "$OUT"
here=$(dirname "$0")
native() { # bin label
  "$1" bench --model stories15M --thread-scaling --answer-runs 0 --no-simulator --json --samples 3 > "$OUT/$2.json" 2> "$OUT/$2.err"
}
wasm() { # dir label
  node "$here/wasm-bench.js" "$1" > "$OUT/$2.json" 2> "$OUT/$2.err"
}
for load in quiet busy; do
  BUSY=
  if [ $load = busy ]; then ( while :; do :; done ) & BUSY=$!; fi
  for round in 1 2 3; do
    date -u +"%T $load round $round" >> "$OUT/times.txt"
    native "$BEFORE"/kvlab native-$load-before-$round
    native "$AFTER"/kvlab native-$load-after-$round
    wasm "$BEFORE"/wasm wasm-$load-before-$round
    wasm "$AFTER"/wasm wasm-$load-after-$round
  done
  if [ -n "$BUSY" ]; then kill $BUSY; fi
done
date -u +"%T done" >> "$OUT/times.txt"
