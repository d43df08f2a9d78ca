#!/usr/bin/env bash
# Issue 20 item 6 figures: five different questions in a row on the 2.4M-object entity-system-large pair, each a
# separate `heapload query` command, wall time per command: in-process (--no-daemon: JVM, DBMS start, planner each
# time) against the store's query daemon (the first command starts it; the rest run on it), and again in-process
# after it (the machine's speed drifts: compare within one run). Prints the load average before and after.
# Usage: bench/interactive.sh [STORE_DIR]   (loads the pair into STORE_DIR first when it has no snapshots)
set -euo pipefail
cd "$(dirname "$0")/.."
db="${1:-/tmp/heapload-bench-interactive}"
pair=../shared/testdata/luau-large/entity-system-large
if [ ! -f "$db/catalog.properties" ]; then
  HEAPLOAD_XMX=3g ./heapload --db "$db" --no-progress "$pair/before.json.gz" "$pair/after.json.gz" >/dev/null
fi
export HEAPLOAD_XMX="${HEAPLOAD_XMX:-3g}"
example="$(./heapload query leak-groups -p baseline=before -p target=after --db "$db" --format json --no-daemon \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["example"])')"
echo "example head: $example"
queries=(
  "summary -p snapshot=after"
  "leak-groups -p baseline=before -p target=after"
  "why-alive -p snapshot=after -p address=$example"
  "paths -p snapshot=after -p address=$example"
  "referrers -p snapshot=after -p address=$example"
  "paths -p snapshot=after -p address=$example"
)
round() {
  local mode="$1"
  for q in "${queries[@]}"; do
    # shellcheck disable=SC2086 # q is a word list
    /usr/bin/time -f "%e" -o /tmp/heapload-bench-interactive.time ./heapload query $q --db "$db" "$mode" \
      >/dev/null 2>/tmp/heapload-bench-interactive.err || { cat /tmp/heapload-bench-interactive.err; exit 1; }
    printf '%-12s %7.2f s  %s\n' "$mode" "$(cat /tmp/heapload-bench-interactive.time)" "${q%% -p address=*}"
  done
}
echo "load before: $(uptime)"
round --no-daemon
round --daemon
round --daemon
round --no-daemon   # asks the daemon to stop first
echo "load after:  $(uptime)"
