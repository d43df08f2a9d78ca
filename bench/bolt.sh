#!/usr/bin/env bash
# Bolt write benchmark (not a test): starts a Neo4j 5 server in its own JVM (Neo4j's community entry point
# from heapload's own class path, a generated neo4j.conf, authentication on, a free localhost port), then loads each
# file into a fresh embedded store and over Bolt (--uri), interleaved in the same run, deletes the snapshot from the
# server again, and prints one table row per load:
#
#   file        the test file's folder name
#   route       embedded (fresh --db store) or bolt (the server)
#   rows        nodes plus relationships of the load (counted on the server after the Bolt load)
#   write_s     the load's write phase as heapload prints it (embedded: import + index; Bolt: write)
#   rows_s      rows / write_s
#   wall_s      the whole heapload command (JVM start, read, analysis, write)
#   cpu_s       CPU seconds of the heapload process (user + system)
#   srv_cpu_s   CPU seconds the server spent during this load (its /proc stat, GC included; "-" for embedded)
#   client_mib  peak RSS of the heapload process; server_mib: the server's peak RSS so far
#   x_wall      Bolt wall / embedded wall of the same file in this run
#   load        the machine's load average (1, 5, 15 min) after the load: compare ratios of one run only
#
# then the targets (medium: at least 80,000 rows/s over Bolt; large: under 240 s wall over Bolt) with
# "met" or "NOT met". Exits non-zero when the server does not start or a load or delete fails; the server is stopped
# on every exit (its logs stay in $OUT/home/logs).
#
#   bench/bolt.sh [medium|large|both]       default: both (entity-system-medium/after, entity-system-large/after)
#
# Environment: SHARED (default ../shared beside the repository), OUT (default /tmp/heapload-bolt-bench),
# SERVER_HEAP (default 2g), PAGECACHE (default 2g), CLIENT_OPTS (extra JVM options of heapload, default -Xmx4g),
# WRITERS / BATCH (heapload.bolt.writers / .batch, default the built-in ones), REPEAT (loads per file and route,
# default 1), DELETE_LAST=0 (the last load stays on the server: its delete over Bolt takes about as long as a load).
# Needs GNU time (/usr/bin/time), python3 and bc.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
hl="${HEAPLOAD:-$here/heapload}"
shared="${SHARED:-$here/../shared}"
out="${OUT:-/tmp/heapload-bolt-bench}"
repeat="${REPEAT:-1}"
medium="$shared/testdata/luau/entity-system-medium/after.json.gz"
large="$shared/testdata/luau-large/entity-system-large/after.json.gz"
case "${1:-both}" in
  medium) files=("$medium") ;;
  large) files=("$large") ;;
  both) files=("$medium" "$large") ;;
  *) echo "usage: bench/bolt.sh [medium|large|both]" >&2; exit 2 ;;
esac
for f in "${files[@]}"; do [ -f "$f" ] || { echo "bolt.sh: missing $f (set SHARED)" >&2; exit 1; }; done
for tool in /usr/bin/time python3 bc; do
  command -v "$tool" >/dev/null || { echo "bolt.sh: needs $tool" >&2; exit 1; }
done
"$hl" --version >/dev/null   # builds the worktree once, outside the measurements
lib="$here/cli/target/lib"
flags=(--add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
       --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED
       -Dio.netty.tryReflectionSetAccessible=true)

rm -rf "$out"; mkdir -p "$out/home/conf"
home="$out/home"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
password="bench-$RANDOM-$RANDOM"
cat >"$home/conf/neo4j.conf" <<EOF
server.default_listen_address=127.0.0.1
server.bolt.listen_address=127.0.0.1:$port
server.http.enabled=false
server.https.enabled=false
dbms.security.auth_enabled=true
server.memory.pagecache.size=${PAGECACHE:-2g}
db.tx_log.rotation.retention_policy=1 files
EOF
NEO4J_HOME="$home" NEO4J_CONF="$home/conf" java "${flags[@]}" -cp "$lib/*" org.neo4j.cli.AdminTool \
  dbms set-initial-password "$password" >"$out/password.log" 2>&1
server=""
stop() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
}
trap stop EXIT
trap 'exit 130' INT TERM
java -Xms"${SERVER_HEAP:-2g}" -Xmx"${SERVER_HEAP:-2g}" "${flags[@]}" -cp "$lib/*" \
  org.neo4j.server.CommunityEntryPoint --home-dir="$home" --config-dir="$home/conf" >"$out/server.out" 2>&1 &
server=$!
for _ in $(seq 1 600); do
  grep -q ' Started\.' "$home/logs/neo4j.log" 2>/dev/null && break
  kill -0 "$server" 2>/dev/null || { echo "bolt.sh: the server did not start:" >&2; tail -20 "$out/server.out" >&2; exit 1; }
  sleep 1
done
grep -q ' Started\.' "$home/logs/neo4j.log" 2>/dev/null || { echo "bolt.sh: the server did not start in 600 s" >&2; exit 1; }
uri="bolt://127.0.0.1:$port"
export NEO4J_PASSWORD="$password"
opts=" ${CLIENT_OPTS:--Xmx4g}"
[ -n "${WRITERS:-}" ] && opts="$opts -Dheapload.bolt.writers=$WRITERS"
[ -n "${BATCH:-}" ] && opts="$opts -Dheapload.bolt.batch=$BATCH"
export HEAPLOAD_JAVA_OPTS="${HEAPLOAD_JAVA_OPTS:-}$opts"

serverCpu() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$server/stat"; }
serverPeak() { awk '/VmHWM/ { print int($2 / 1024) }' "/proc/$server/status"; }
# one timed command: prints "wall rss_kib cpu_s write_s" (write_s: the sum of the import, index and write phases)
timed() {
  if ! /usr/bin/time -f '%e %M %U %S' -o "$out/time.txt" "$@" >"$out/last.out" 2>"$out/last.err"; then
    echo "bolt.sh: FAILED: $*" >&2; tail -5 "$out/last.err" >&2; return 1
  fi
  local write
  write="$(python3 - "$out/last.out" <<'PY'
import re, sys
t = 0.0
for line in open(sys.argv[1]):
    if line.startswith("time:"):
        for phase, s in re.findall(r"(import|index|write) ([0-9.]+) s", line):
            t += float(s)
print(f"{t:.2f}")
PY
)"
  read -r wall rss user sys <"$out/time.txt"
  echo "$wall $rss $(echo "$user + $sys" | bc -l) $write"
}
count() {
  "$hl" cypher --uri "$uri" --format csv "$1" 2>>"$out/count.err" | tail -1
}
div() { if [ "$(echo "$2 > 0" | bc -l)" = 1 ]; then printf '%.0f' "$(echo "$1 / $2" | bc -l)"; else echo 0; fi; }

echo "server: Neo4j $(ls "$lib" | sed -n 's/^neo4j-kernel-\([0-9][0-9.]*\)\.jar$/\1/p') at $uri, heap ${SERVER_HEAP:-2g}," \
  "page cache ${PAGECACHE:-2g}; heapload options:${HEAPLOAD_JAVA_OPTS}; $(nproc) cores"
fmt='%-22s %-8s %9s %8s %8s %8s %7s %9s %10s %10s %6s  %s\n'
printf "$fmt" file route rows write_s rows_s wall_s cpu_s srv_cpu_s client_mib server_mib x_wall load
verdicts=()
for f in "${files[@]}"; do
  key="$(basename "$(dirname "$f")")"
  for _ in $(seq 1 "$repeat"); do
    rm -rf "$out/embedded"
    read -r ew erss ecpu ewrite < <(timed "$hl" --no-progress --db "$out/embedded" "$f" || echo FAIL)
    [ "$ew" = FAIL ] && exit 1
    rm -rf "$out/embedded"
    c0="$(serverCpu)"
    read -r bw brss bcpu bwrite < <(timed "$hl" --no-progress --uri "$uri" "$f" || echo FAIL)
    [ "$bw" = FAIL ] && exit 1
    scpu="$(echo "$(serverCpu) - $c0" | bc -l)"
    load="$(cut -d' ' -f1-3 /proc/loadavg)"
    rows=$(( $(count 'MATCH (n) RETURN count(n)') + $(count 'MATCH ()-[r]->() RETURN count(r)') ))
    sp="$(serverPeak)"
    printf "$fmt" "$key" embedded "$rows" "$ewrite" "$(div "$rows" "$ewrite")" "$ew" "$ecpu" - \
      $(( erss / 1024 )) - 1.00 "$load"
    brate="$(div "$rows" "$bwrite")"
    printf "$fmt" "$key" bolt "$rows" "$bwrite" "$brate" "$bw" "$bcpu" "$(printf '%.1f' "$scpu")" \
      $(( brss / 1024 )) "$sp" "$(printf '%.2f' "$(echo "$bw / $ew" | bc -l)")" "$load"
    round=$(( ${round:-0} + 1 ))
    if [ "${DELETE_LAST:-1}" = 0 ] && [ "$round" = $(( ${#files[@]} * repeat )) ]; then
      echo "(the last load is not deleted: DELETE_LAST=0)"
    else
      read -r dw _ _ _ < <(timed "$hl" snapshots --uri "$uri" --delete after || echo FAIL)
      [ "$dw" = FAIL ] && exit 1
      printf "$fmt" "$key" delete - - - "$dw" - - - - - "$(cut -d' ' -f1-3 /proc/loadavg)"
    fi
    case "$key" in
      entity-system-medium)
        if [ "$brate" -ge 80000 ]; then v=met; else v="NOT met"; fi
        verdicts+=("target medium over Bolt >= 80,000 rows/s: $brate rows/s, $v") ;;
      entity-system-large)
        if [ "$(echo "$bw < 240" | bc -l)" = 1 ]; then v=met; else v="NOT met"; fi
        verdicts+=("target large over Bolt < 240 s wall: $bw s, $v") ;;
    esac
  done
done
pauses="$(grep -c 'stop-the-world pause' "$home/logs/debug.log" 2>/dev/null || true)"
echo "server: ${pauses:-0} stop-the-world pauses logged (debug.log), peak RSS $(serverPeak) MiB"
for v in "${verdicts[@]}"; do echo "$v"; done
