#!/usr/bin/env bash
# Bolt write benchmark (issue 19, not a test): starts a Neo4j 5 server in its own JVM (Neo4j's community entry point
# from heapload's own class path, a generated neo4j.conf, authentication on, a free localhost port), then loads each
# file over Bolt (--uri) and into a fresh embedded store, interleaved in the same run, and prints per load: rows
# (nodes plus relationships the server holds after the load), the write phase and rows/s, wall time, peak RSS of
# the client and of the server (the server's is its peak so far), and the ratio Bolt wall / embedded wall.
#
#   bench/bolt.sh [medium|large|both]       default: both (entity-system-medium/after, entity-system-large/after)
#
# Environment: SHARED (default ../shared beside the repository), OUT (default /tmp/heapload-bolt-bench),
# SERVER_HEAP (default 1g), PAGECACHE (default 1g), WRITERS / BATCH (heapload.bolt.writers / .batch, default the
# built-in ones), REPEAT (loads per file and route, default 1). Needs GNU time. The figures depend on the machine's
# load (printed with each line): compare the ratios of one run.
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
for f in "${files[@]}"; do [ -f "$f" ] || { echo "missing $f" >&2; exit 1; }; done
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
server.memory.pagecache.size=${PAGECACHE:-1g}
db.tx_log.rotation.retention_policy=1 files
EOF
NEO4J_HOME="$home" NEO4J_CONF="$home/conf" java "${flags[@]}" -cp "$lib/*" org.neo4j.cli.AdminTool \
  dbms set-initial-password "$password" >"$out/password.log" 2>&1
java -Xms"${SERVER_HEAP:-1g}" -Xmx"${SERVER_HEAP:-1g}" "${flags[@]}" -cp "$lib/*" org.neo4j.server.CommunityEntryPoint \
  --home-dir="$home" --config-dir="$home/conf" >"$out/server.out" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
  grep -q ' Started\.' "$home/logs/neo4j.log" 2>/dev/null && break
  kill -0 "$server" 2>/dev/null || { echo "the server did not start:" >&2; tail -20 "$out/server.out" >&2; exit 1; }
  sleep 1
done
uri="bolt://127.0.0.1:$port"
export NEO4J_PASSWORD="$password"
opts=""
[ -n "${WRITERS:-}" ] && opts="$opts -Dheapload.bolt.writers=$WRITERS"
[ -n "${BATCH:-}" ] && opts="$opts -Dheapload.bolt.batch=$BATCH"
export HEAPLOAD_JAVA_OPTS="${HEAPLOAD_JAVA_OPTS:-}$opts"

# one timed load: prints "wall rss_kib write_s"
timed() {
  /usr/bin/time -f '%e %M' -o "$out/time.txt" "$@" >"$out/last.out" 2>"$out/last.err" || {
    echo "FAILED: $*" >&2; tail -5 "$out/last.err" >&2; exit 1; }
  local write
  write="$(sed -n 's/^time:.*write \([0-9.]*\) s.*/\1/p' "$out/last.out")"
  echo "$(cat "$out/time.txt") ${write:-0}"
}
count() {
  "$hl" cypher --uri "$uri" --format csv "$1" 2>/dev/null | tail -1
}
serverPeak() { awk '/VmHWM/ { print int($2 / 1024) }' "/proc/$server/status"; }

printf '%-22s %-8s %10s %8s %9s %8s %10s %10s %7s  %s\n' file route rows write_s rows_s wall_s client_mib server_mib x_wall load
for f in "${files[@]}"; do
  key="$(basename "$(dirname "$f")")"
  for r in $(seq 1 "$repeat"); do
    rm -rf "$out/embedded"
    read -r ew erss ewrite < <(timed "$hl" --no-progress --db "$out/embedded" "$f")
    read -r bw brss bwrite < <(timed "$hl" --no-progress --uri "$uri" "$f")
    rows=$(( $(count 'MATCH (n) RETURN count(n)') + $(count 'MATCH ()-[r]->() RETURN count(r)') ))
    sp="$(serverPeak)"
    load="$(cut -d' ' -f1-3 /proc/loadavg)"
    printf '%-22s %-8s %10d %8.1f %9.0f %8.1f %10d %10s %7s  %s\n' "$key" embedded "$rows" "$ewrite" \
      "$(echo "$rows / $ewrite" | bc -l)" "$ew" $(( erss / 1024 )) - 1.00 "$load"
    printf '%-22s %-8s %10d %8.1f %9.0f %8.1f %10d %10d %7.2f  %s\n' "$key" bolt "$rows" "$bwrite" \
      "$(echo "$rows / $bwrite" | bc -l)" "$bw" $(( brss / 1024 )) "$sp" "$(echo "$bw / $ew" | bc -l)" "$load"
    read -r dw _ _ < <(timed "$hl" --uri "$uri" snapshots --delete after)
    printf '%-22s %-8s %10s %8s %9s %8.1f\n' "$key" delete - - - "$dw"
  done
done
