#!/usr/bin/env bash
# Report time, old build against new, interleaved (the machine's speed drifts: compare the ratio of one run).
# Usage: bench/report-time.sh OLD_CLI_TARGET NEW_CLI_TARGET [ROUNDS]
#   *_CLI_TARGET: a cli/target folder of each build (heapload-cli.jar and lib/), e.g. of a `git archive` of the
#   base commit built with `mvn -o -q -DskipTests package`.
# Loads ../shared/testdata/luau-large/entity-system-large into a temporary store per build (each build reads the
# store it writes: the model file format may differ between them), then runs `heapload report --baseline-id before --target-id after --format html,md,json,junit` ROUNDS times with each
# build, alternating, and prints each wall time and the medians.
set -euo pipefail
old="$1"; new="$2"; rounds="${3:-3}"
here="$(cd "$(dirname "$0")/.." && pwd)"
pair="$here/../shared/testdata/luau-large/entity-system-large"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
jvm=(-Xmx3g -XX:+UseParallelGC --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED)
run() { java "${jvm[@]}" -cp "$1/heapload-cli.jar:$1/lib/*" dev.heapload.cli.HeapLoad "${@:2}"; }
run "$old" --db "$work/db-old" "$pair/before.json.gz" "$pair/after.json.gz" >/dev/null
run "$new" --db "$work/db-new" "$pair/before.json.gz" "$pair/after.json.gz" >/dev/null
declare -a t_old t_new
for i in $(seq "$rounds"); do
  for which in old new; do
    dir=$([ "$which" = old ] && echo "$old" || echo "$new")
    s=$(date +%s.%N)
    run "$dir" report --db "$work/db-$which" --baseline-id before --target-id after --out "$work/out-$which" >/dev/null
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc)
    echo "round $i $which: $t s"
    if [ "$which" = old ]; then t_old+=("$t"); else t_new+=("$t"); fi
  done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mo=$(median "${t_old[@]}"); mn=$(median "${t_new[@]}")
echo "median old $mo s, new $mn s, new/old $(echo "scale=3; $mn / $mo" | bc)"
