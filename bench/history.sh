#!/usr/bin/env bash
# Nightly history benchmark (issue 18, not a test): loads N snapshots night by night into one store and prints, per
# night, wall and CPU time, peak RSS, store size on disk, and the ratio of wall and CPU to a load of the same file
# into an empty store measured in the same run (interleaved: an empty-store load every EMPTY_EVERY nights, the
# ratio uses the median of those so far).
#
#   bench/history.sh medium [N]    N (default 30) loads alternating entity-system-medium/after and
#                                  memory-categories-medium/after (about 70k objects each), --name night-K
#   bench/history.sh large [N]     N (default 5) loads alternating the two entity-system-large files (1.2M, 2.4M)
#
# Environment: SHARED (default ../shared beside the repository), OUT (default /tmp/heapload-history),
# EMPTY_EVERY (default 5), REPORT_AT (night numbers, default "N": heapload report on the newest pair, timed).
# Needs GNU time (/usr/bin/time). The figures depend on the machine's load: compare ratios of one run.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
hl="${HEAPLOAD:-$here/heapload}"   # the launcher (a copy of a build, to bench while the worktree is rebuilt)
variant="${1:-medium}"
shared="${SHARED:-$here/../shared}"
out="${OUT:-/tmp/heapload-history}"
every="${EMPTY_EVERY:-5}"
case "$variant" in
  medium) n="${2:-30}"; files=("$shared/testdata/luau/entity-system-medium/after.json.gz"
                                "$shared/testdata/luau/memory-categories-medium/after.json.gz") ;;
  large)  n="${2:-5}";  files=("$shared/testdata/luau-large/entity-system-large/before.json.gz"
                                "$shared/testdata/luau-large/entity-system-large/after.json.gz") ;;
  *) echo "usage: bench/history.sh medium|large [N]" >&2; exit 2 ;;
esac
for f in "${files[@]}"; do
  [ -f "$f" ] || { f2="${f%.gz}"; [ -f "$f2" ] || { echo "missing $f" >&2; exit 1; }; }
done
pick() { local f="${files[$(( ($1 - 1) % ${#files[@]} ))]}"; [ -f "$f" ] && echo "$f" || echo "${f%.gz}"; }
report_at="${REPORT_AT:-$n}"
rm -rf "$out"; mkdir -p "$out"
store="$out/store"
"$hl" --version >/dev/null   # builds the worktree once, outside the measurements

# one timed command: prints "wall cpu rss_kib"
timed() {
  local log="$out/time.txt"
  /usr/bin/time -f '%e %U %S %M' -o "$log" "$@" >"$out/last.out" 2>"$out/last.err" || {
    echo "FAILED: $*" >&2; cat "$out/last.err" >&2; exit 1; }
  awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$log"
}
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

declare -A emptyWall emptyCpu
printf '%-6s %-28s %8s %8s %9s %10s %9s %8s\n' night file wall_s cpu_s rss_mib store_mib x_wall x_cpu
for k in $(seq 1 "$n"); do
  f="$(pick "$k")"; key="$(basename "$(dirname "$f")")"
  if [ "$k" -le "${#files[@]}" ] || [ $(( k % every )) -eq 0 ]; then
    rm -rf "$out/empty"
    read -r w c r < <(timed "$hl" --no-progress --db "$out/empty" --name "night-$k" "$f")
    emptyWall[$key]="${emptyWall[$key]:-} $w"; emptyCpu[$key]="${emptyCpu[$key]:-} $c"
    printf '%-6s %-28s %8s %8s %9d %10s %9s %8s\n' "empty" "$key" "$w" "$c" $(( r / 1024 )) "-" "1.00" "1.00"
  fi
  read -r w c r < <(timed "$hl" --no-progress --db "$store" --name "night-$k" "$f")
  size=$(du -sm "$store" | cut -f1)
  ew=$(echo ${emptyWall[$key]} | tr ' ' '\n' | median); ec=$(echo ${emptyCpu[$key]} | tr ' ' '\n' | median)
  printf '%-6s %-28s %8s %8s %9d %10d %9.2f %8.2f\n' "$k" "$key" "$w" "$c" $(( r / 1024 )) "$size" \
    "$(echo "$w / $ew" | bc -l)" "$(echo "$c / $ec" | bc -l)"
  if [[ " $report_at " == *" $k "* ]] && [ "$k" -ge 2 ]; then
    read -r w c r < <(timed "$hl" report --db "$store" --baseline-id "night-$((k - 1))" \
      --target-id "night-$k" --out "$out/report-$k" --format html,json)
    printf '%-6s %-28s %8s %8s %9d   (heapload report night-%d night-%d)\n' "report" "$key" "$w" "$c" $(( r / 1024 )) $((k - 1)) "$k"
  fi
done
echo "store: $(du -sm "$store" | cut -f1) MiB for $n snapshots; per part:"
du -sm "$store"/graphs "$store"/snapshots "$store"/summaries 2>/dev/null | sed 's/^/  /'
