#!/usr/bin/env bash
# Nightly history benchmark (not a test): loads N snapshots night by night into one store and prints, per
# night, the median wall and CPU time of REPS loads of that night's file into the store as it was before the night,
# their peak RSS, the store size on disk after the night, and the ratio of wall and CPU to loads of the same file
# into an empty store measured in the same run, interleaved with them (empty, store, empty, store, ...).
#
#   bench/history.sh medium [N]    N (default 30) loads alternating entity-system-medium/after and
#                                  memory-categories-medium/after (about 70k objects each), --name night-K
#   bench/history.sh large [N]     N (default 5) loads alternating the two entity-system-large files (1.2M, 2.4M)
#
# Repetitions: before night K the store is copied with hard links (`cp -al`; a load only adds files, renames and
# unlinks, except the logs and the lock file, which are copied for real), each repetition loads into a fresh copy,
# and the last one becomes the store of night K+1. Empty-store loads (REPS of them, interleaved with the night's
# store loads) run at nights 1 and 2 (one per file), every EMPTY_EVERY-th night and at night N; a night's ratio
# uses the median of the latest empty-store loads of the same file.
#
# Environment: SHARED (default ../shared beside the repository), OUT (default /tmp/heapload-history),
# REPS (default 3), EMPTY_EVERY (default 5), REPS_AT (night numbers measured with REPS repetitions and empty-store
# loads, default all; the other nights are one load each, without ratios: to fit a run into less time), REPORT_AT (night numbers, default "N": heapload report on the newest
# pair, timed once), HEAPLOAD (the launcher; a copy of a build, to bench while the worktree is rebuilt).
# Needs GNU time (/usr/bin/time). The figures depend on the machine's load (column load1: the 1-minute load
# average at the end of the night): compare ratios of one run.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
hl="${HEAPLOAD:-$here/heapload}"
variant="${1:-medium}"
shared="${SHARED:-$here/../shared}"
out="${OUT:-/tmp/heapload-history}"
every="${EMPTY_EVERY:-5}"
reps="${REPS:-3}"
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
label() { local d; d="$(basename "$(dirname "$1")")"; echo "$d/$(basename "$1" .json.gz)"; }
report_at="${REPORT_AT:-$n}"
reps_at="${REPS_AT:-all}"
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
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# a copy of store $1 as $2: hard links, but the files a run appends to or rewrites in place copied for real
copy_store() {
  rm -rf "$2"
  if [ -d "$1" ]; then
    cp -al "$1" "$2"
    for g in neo4j.log store.lock; do [ -f "$1/$g" ] && cp --remove-destination "$1/$g" "$2/$g"; done
    if [ -d "$1/logs" ]; then rm -rf "$2/logs"; cp -r "$1/logs" "$2/logs"; fi
  fi
  return 0
}

declare -A emptyWall emptyCpu
printf '%-6s %-34s %8s %8s %8s %10s %7s %7s %6s\n' night file wall_s cpu_s rss_mib store_mib x_wall x_cpu load1
for k in $(seq 1 "$n"); do
  f="$(pick "$k")"; key="$(label "$f")"
  withEmpty=0; nreps="$reps"
  if [ "$reps_at" = all ]; then
    if [ "$k" -le "${#files[@]}" ] || [ $(( k % every )) -eq 0 ] || [ "$k" -eq "$n" ]; then withEmpty=1; fi
  elif [[ " $reps_at " == *" $k "* ]]; then withEmpty=1; else nreps=1; fi
  ws=""; cs=""; rs=""; ew=""; ec=""; er=""
  for r in $(seq 1 "$nreps"); do
    if [ "$withEmpty" = 1 ]; then
      rm -rf "$out/empty"
      read -r w c m < <(timed "$hl" --no-progress --db "$out/empty" --name "night-$k" "$f")
      ew="$ew $w"; ec="$ec $c"; er="$er $m"
    fi
    copy_store "$store" "$out/work"
    read -r w c m < <(timed "$hl" --no-progress --db "$out/work" --name "night-$k" "$f")
    ws="$ws $w"; cs="$cs $c"; rs="$rs $m"
    if [ "$r" -lt "$nreps" ]; then rm -rf "$out/work"; fi
  done
  rm -rf "$out/empty" "$store"; mv "$out/work" "$store"
  if [ "$withEmpty" = 1 ]; then
    emptyWall[$key]="$(echo "$ew" | median)"; emptyCpu[$key]="$(echo "$ec" | median)"
    printf '%-6s %-34s %8.2f %8.2f %8d %10s %7s %7s %6s   (%s |%s)\n' "empty" "$key" "${emptyWall[$key]}" \
      "${emptyCpu[$key]}" $(( $(echo "$er" | median | cut -d. -f1) / 1024 )) "-" "1.00" "1.00" \
      "$(cut -d' ' -f1 /proc/loadavg)" "cpu" "$ec"
  fi
  size=$(du -sm "$store" | cut -f1)
  w="$(echo "$ws" | median)"; c="$(echo "$cs" | median)"; m="$(echo "$rs" | median | cut -d. -f1)"
  xw="-"; xc="-"
  if [ -n "${emptyWall[$key]:-}" ] && { [ "$withEmpty" = 1 ] || [ "$reps_at" = all ]; }; then
    xw="$(printf '%.2f' "$(echo "$w / ${emptyWall[$key]}" | bc -l)")"; xc="$(printf '%.2f' "$(echo "$c / ${emptyCpu[$key]}" | bc -l)")"
  fi
  printf '%-6s %-34s %8.2f %8.2f %8d %10d %7s %7s %6s   (%s |%s)\n' "$k" "$key" "$w" "$c" $(( m / 1024 )) "$size" \
    "$xw" "$xc" "$(cut -d' ' -f1 /proc/loadavg)" "cpu" "$cs"
  if [[ " $report_at " == *" $k "* ]] && [ "$k" -ge 2 ]; then
    read -r w c m < <(timed "$hl" report --db "$store" --baseline-id "night-$((k - 1))" \
      --target-id "night-$k" --out "$out/report-$k" --format html,json)
    printf '%-6s %-34s %8.2f %8.2f %8d   (heapload report night-%d night-%d)\n' "report" "$key" "$w" "$c" \
      $(( m / 1024 )) $((k - 1)) "$k"
  fi
done
echo "store: $(du -sm "$store" | cut -f1) MiB for $n snapshots; per part:"
du -sm "$store"/graphs "$store"/snapshots "$store"/summaries 2>/dev/null | sed 's/^/  /'
