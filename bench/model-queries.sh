#!/usr/bin/env bash
# Questions without a resident process (not a test): each saved query that the embedded store answers from its stored
# files (explore.ModelQueries) as a user types it, one `heapload query` command each, against the same question on
# the Cypher route (the saved query's .cypher file, which always runs Cypher: an embedded Neo4j started on the
# snapshot's graph, HEAPLOAD_DAEMON=off), interleaved, on the small, medium and large pairs. One row per command:
#
#   size       small (bundled luau/event-listeners), medium (entity-system-medium), large (entity-system-large)
#   question   the saved query (why-alive and referrers on the first leak group's example head of `after`)
#   route      model or cypher
#   wall_s     the whole command (JVM start included); cpu_s: user + system CPU seconds of the process
#   rss_mib    peak RSS; classes: classes the JVM loaded; neo4j: of them, org.neo4j.* (one run per question and route,
#              with -Xlog:class+load; a separate run, not timed)
#   load       the machine's load average (1, 5, 15 min) after the command: compare within one run only
#
# then the median wall and CPU per (size, question, route). Both routes print the same rows (checked here with
# --format csv; ModelRouteGoldenTest checks it on the golden cases).
#
#   bench/model-queries.sh [small|medium|large|all] [REPEAT]    default: small and medium, REPEAT 3
#
# Environment: SHARED (default ../shared beside the repository), OUT (default /tmp/heapload-model-queries: one store
# per size, loaded once and kept), HEAPLOAD_XMX (default the launcher's; the large pair's leak-groups needs about
# 0.8 GiB). Needs GNU time (/usr/bin/time) and python3.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
hl="$here/heapload"
shared="${SHARED:-$here/../shared}"
out="${OUT:-/tmp/heapload-model-queries}"
sizes="${1:-small,medium}"
[ "$sizes" = all ] && sizes=small,medium,large
repeat="${2:-3}"
"$hl" --version >/dev/null   # builds the worktree once, outside the measurements
mkdir -p "$out"

pair() {
  case "$1" in
    small) echo "$here/testdata/luau/event-listeners/before.json $here/testdata/luau/event-listeners/after.json" ;;
    medium) echo "$shared/testdata/luau/entity-system-medium/before.json $shared/testdata/luau/entity-system-medium/after.json.gz" ;;
    large) echo "$shared/testdata/luau-large/entity-system-large/before.json.gz $shared/testdata/luau-large/entity-system-large/after.json.gz" ;;
    *) echo "model-queries.sh: unknown size $1 (small, medium, large, all)" >&2; exit 2 ;;
  esac
}

rows="$out/rows.txt"
: >"$rows"
printf '%-7s %-18s %-7s %7s %7s %8s %8s %6s  %s\n' size question route wall_s cpu_s rss_mib classes neo4j load
IFS=, read -ra list <<<"$sizes"
for size in "${list[@]}"; do
  db="$out/$size"
  if [ ! -f "$db/catalog.properties" ]; then
    # shellcheck disable=SC2046 # two file names
    HEAPLOAD_DAEMON=off HEAPLOAD_XMX="${HEAPLOAD_XMX:-3g}" "$hl" --db "$db" --no-progress $(pair "$size") >/dev/null
  fi
  example="$("$hl" query leak-groups -p baseline=before -p target=after --db "$db" --format json \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["example"])')"
  questions=("leak-groups|-p baseline=before -p target=after"
             "why-alive|-p snapshot=after -p address=$example"
             "referrers|-p snapshot=after -p address=$example"
             "paths|-p snapshot=after -p address=$example"
             "summary|-p snapshot=after"
             "new-objects|-p baseline=before -p target=after"
             "largest-retainers|-p snapshot=after")
  for q in "${questions[@]}"; do
    name="${q%%|*}"
    # shellcheck disable=SC2206 # parameters split on spaces
    params=(${q#*|})
    routes=(model cypher)
    [ "$name" = paths ] && routes=(model)   # paths has no Cypher
    for route in "${routes[@]}"; do
      what="$name"
      [ "$route" = cypher ] && what="$here/cypher/$name.cypher"
      # classes loaded (a separate run)
      log="$out/classes.txt"
      HEAPLOAD_DAEMON=off HEAPLOAD_JAVA_OPTS="-Xlog:class+load=info:file=$log" \
        "$hl" query "$what" "${params[@]}" --db "$db" --format csv >"$out/$size-$name-$route.csv"
      classes="$(wc -l <"$log")"
      neo4j="$(grep -c ' org\.neo4j\.' "$log" || true)"
      for _ in $(seq "$repeat"); do
        t="$out/time.txt"
        HEAPLOAD_DAEMON=off /usr/bin/time -o "$t" -f '%e %U %S %M' "$hl" query "$what" "${params[@]}" --db "$db" >/dev/null
        read -r wall user sys rss <"$t"
        cpu="$(python3 -c "print(f'{$user + $sys:.2f}')")"
        load="$(cut -d' ' -f1-3 /proc/loadavg)"
        printf '%-7s %-18s %-7s %7s %7s %8s %8s %6s  %s\n' "$size" "$name" "$route" "$wall" "$cpu" "$((rss / 1024))" \
          "$classes" "$neo4j" "$load" | tee -a "$rows"
      done
    done
    if [ "$name" != paths ] && ! cmp -s "$out/$size-$name-model.csv" "$out/$size-$name-cypher.csv"; then
      echo "model-queries.sh: $size $name: the routes' rows differ ($out/$size-$name-*.csv)" >&2
      exit 1
    fi
  done
done
echo
echo "medians (wall_s, cpu_s) per size, question and route:"
python3 - "$rows" <<'EOF'
import statistics, sys
from collections import defaultdict
groups = defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    groups[(f[0], f[1], f[2])].append((float(f[3]), float(f[4])))
for (size, q, route), v in groups.items():
    print(f"  {size:7} {q:18} {route:7} wall {statistics.median(w for w, _ in v):6.2f} s  "
          f"cpu {statistics.median(c for _, c in v):6.2f} s")
EOF
