#!/usr/bin/env bash
# Fixed costs of short heapload commands (not a test): wall and CPU seconds of --help, a mistyped command, a missing
# file, a small pair load with --no-graph (the answer alone), the same load with its graph, and `query summary` on the
# small store, each under several JVM settings, interleaved, ROUNDS times; prints every run and the medians.
# Settings: c2 (the JVM's default JIT, jvm.options as shipped), c1 (-XX:TieredStopAtLevel=1), and each with a
# dynamic AppCDS archive trained as the launcher did (a pair load of the bundled example): c2cds, c1cds.
# Usage: bench/fixed-costs.sh [ROUNDS] [SETTINGS...]   (from the repository root, after mvn package)
set -euo pipefail
rounds="${1:-3}"; shift || true
settings=("${@:-c2 c1 c2cds c1cds}")
read -r -a settings <<<"${settings[*]}"
home="$(cd "$(dirname "$0")/.." && pwd)"
jars="${HEAPLOAD_JARS:-$home/cli/target}"   # a folder with heapload-cli.jar and lib/ (default: the build's)
cp="$jars/heapload-cli.jar:$jars/lib/*"
base=(-Xmx1200m)
while IFS= read -r line; do case "$line" in ''|'#'*) ;; *) base+=("$line") ;; esac; done <"$home/cli/src/dist/lib/jvm.options"
ex="$home/testdata/luau/event-listeners"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
flags() {
  case "$1" in
    c2) echo "" ;; c1) echo "-XX:TieredStopAtLevel=1" ;;
    c2cds) echo "-XX:SharedArchiveFile=$work/c2.jsa -Xlog:cds=off -Xlog:cds+dynamic=off" ;;
    c1cds) echo "-XX:TieredStopAtLevel=1 -XX:SharedArchiveFile=$work/c1.jsa -Xlog:cds=off -Xlog:cds+dynamic=off" ;;
  esac
}
for jit in c2 c1; do
  extra=""; [ "$jit" = c1 ] && extra="-XX:TieredStopAtLevel=1"
  # shellcheck disable=SC2086
  java "${base[@]}" $extra -XX:ArchiveClassesAtExit="$work/$jit.jsa" -Xlog:cds=off -Xlog:cds+dynamic=off -cp "$cp" \
    dev.heapload.cli.HeapLoad --no-progress --db "$work/train-$jit" "$ex/before.json" "$ex/after.json" >/dev/null 2>&1
done
# a store for the query
java "${base[@]}" -cp "$cp" dev.heapload.cli.HeapLoad --no-progress --db "$work/small" "$ex/before.json" "$ex/after.json" >/dev/null
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-10s %5s %8s %8s\n' setting command round wall_s cpu_s
for r in $(seq 1 "$rounds"); do
  for s in "${settings[@]}"; do
    for c in help typo nofile answer load query; do
      case "$c" in
        help) args=(--help) ;; typo) args=(reprot) ;; nofile) args=(--db "$work/x" "$work/missing.json") ;;
        answer) rm -rf "$work/a"; args=(--no-progress --no-graph --db "$work/a" "$ex/before.json" "$ex/after.json") ;;
        load) rm -rf "$work/l"; args=(--no-progress --db "$work/l" "$ex/before.json" "$ex/after.json") ;;
        query) args=(query --db "$work/small" summary -p snapshot=after) ;;
      esac
      # shellcheck disable=SC2046
      /usr/bin/time -o "$work/t" -f "%e %U %S" java "${base[@]}" $(flags "$s") -cp "$cp" dev.heapload.cli.HeapLoad \
        "${args[@]}" >/dev/null 2>&1 || true
      read -r e u sy <"$work/t" || true
      case "$e" in Command*) read -r e u sy < <(tail -1 "$work/t") ;; esac
      printf '%-8s %-10s %5s %8.2f %8.2f\n' "$s" "$c" "$r" "$e" "$(echo "$u + $sy" | bc)" | tee -a "$work/rows"
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "medians (wall_s cpu_s):"
for s in "${settings[@]}"; do
  for c in help typo nofile answer load query; do
    w=$(awk -v s="$s" -v c="$c" '$1==s && $2==c {print $4}' "$work/rows" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    u=$(awk -v s="$s" -v c="$c" '$1==s && $2==c {print $5}' "$work/rows" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf '%-8s %-10s %8s %8s\n' "$s" "$c" "$w" "$u"
  done
done
