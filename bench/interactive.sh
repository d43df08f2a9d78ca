#!/usr/bin/env bash
# Interactive speed: questions in a row on the 2.4M-object entity-system-large pair, each a separate
# `heapload` command as a user types it, wall time per command with the load average beside it: in-process
# (HEAPLOAD_DAEMON=off: JVM, DBMS start, planner each time) against the store's query daemon (the first command starts
# it; the rest reach it through the launcher's thin client), and again in-process after it (the machine's speed drifts:
# compare within one run). Five different questions on `after`, one on the pair's other snapshot (`before`), then
# trend. The daemon rounds start from a stopped daemon (the in-process round before them stops it), so the first
# daemon round shows first runs of each question on a fresh daemon.
# Usage: bench/interactive.sh [STORE_DIR] [ROUNDS]   (loads the pair into STORE_DIR first when it has no snapshots;
# ROUNDS daemon rounds, default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
db="${1:-/tmp/heapload-bench-interactive}"
rounds="${2:-2}"
pair=../shared/testdata/luau-large/entity-system-large
if [ ! -f "$db/catalog.properties" ]; then
  HEAPLOAD_XMX=3g ./heapload --db "$db" --no-progress "$pair/before.json.gz" "$pair/after.json.gz" >/dev/null
fi
export HEAPLOAD_XMX="${HEAPLOAD_XMX:-3g}"
example="$(HEAPLOAD_DAEMON=off ./heapload query leak-groups -p baseline=before -p target=after --db "$db" --format json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["example"])')"
echo "example head: $example"
questions=(
  "query summary -p snapshot=after"
  "query leak-groups -p baseline=before -p target=after"
  "query why-alive -p snapshot=after -p address=$example"
  "query paths -p snapshot=after -p address=$example"
  "query referrers -p snapshot=after -p address=$example"
  "query largest-retainers -p snapshot=before --limit 10"
  "trend"
)
t=/tmp/heapload-bench-interactive.$$
trap 'rm -f "$t".*' EXIT
round() {
  local mode="$1" daemon=on
  [ "$mode" = in-process ] && daemon=off
  for q in "${questions[@]}"; do
    # shellcheck disable=SC2086 # q is a word list
    HEAPLOAD_DAEMON=$daemon /usr/bin/time -f "%e %U %S" -o "$t.time" ./heapload $q --db "$db" >"$t.out" 2>"$t.err" \
      || { cat "$t.err"; exit 1; }
    read -r wall user sys <"$t.time"
    printf '%-10s %6.2f s wall %5.2f s client cpu  load %-5s  %s\n' "$mode" "$wall" \
      "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" \
      "$(cut -d' ' -f1 /proc/loadavg)" "${q%% -p address=*}"
    if [ "$mode" = in-process ]; then
      cp "$t.out" "$t.expected.$(echo "$q" | cksum | cut -d' ' -f1)"
    elif ! cmp -s "$t.out" "$t.expected.$(echo "$q" | cksum | cut -d' ' -f1)"; then
      echo "output differs from the in-process run: $q" >&2
      exit 1
    fi
  done
}
echo "load before: $(uptime)"
round in-process
for _ in $(seq "$rounds"); do
  round daemon
done
round in-process   # asks the daemon to stop first
echo "load after:  $(uptime)"
