#!/usr/bin/env bash
# Load benchmark at every size (not a test): for each Luau pair — small (testdata/luau/event-listeners), medium
# (../shared/testdata/luau/entity-system-medium), large (../shared/testdata/luau-large/entity-system-large) and the 10x
# pair (a folder with before.json and after.json, e.g. made by ../shared/tools/luau-heapdump/cases/generate-large.sh
# with WAVE=200000; skipped with one line when not given or absent) — runs `heapload --db NEW before.json after.json`
# with default settings (the launcher, a fresh store each time) and Luau's `heapgraph.py before.json after.json` (its
# diff) on the same uncompressed files, interleaved, REPEAT times, and prints one line per run and then per size the
# medians:
#
#   answer_s     seconds from the command's start to the first line of the leak answer (the line starting with
#                `leaks:`; output lines are timestamped as they arrive)
#   graph_s      seconds until the graph is ready for Cypher: the command's end, or the time of a line matching
#                GRAPH_LINE (a regular expression) printed after the answer, for a load that prints the answer first
#                and then writes the graph
#   wall_s       the command's wall time; cpu_s its user + system CPU seconds; rss_mib its peak RSS (GNU time)
#   hg_s, hg_cpu_s, hg_rss_mib   the same of heapgraph.py ("-" when it does not fit in memory: it needs about 6.2
#                bytes per input byte, 2.97 GiB for the large pair; it is skipped above 3/4 of MemAvailable)
#   x_answer, x_graph, x_cpu     answer_s / hg_s, graph_s / hg_s and cpu_s / hg_cpu_s of the same round
#   load         the 1-minute load average at the run's start and end: compare ratios of one run only
#
#   bench/sizes.sh [TENX_DIR]      or TENX=DIR bench/sizes.sh
#
# Environment: SHARED (default ../shared beside the repository), OUT (work folder, default /tmp/heapload-sizes: the
# medium and large pairs uncompressed there once, each run's output and times; the stores are deleted after each
# run), REPEAT (runs per size and tool, default 1), SIZES (default "small medium large 10x"), HEAPLOAD (the command,
# default ./heapload of this checkout), GRAPH_LINE (default '^(heapload: )?graph (written|ready|of .*ready)'). Needs GNU time
# (/usr/bin/time), python3 and gzip.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
hl="${HEAPLOAD:-$here/heapload}"
shared="${SHARED:-$here/../shared}"
out="${OUT:-/tmp/heapload-sizes}"
repeat="${REPEAT:-1}"
sizes="${SIZES:-small medium large 10x}"
tenx="${1:-${TENX:-}}"
graph_line="${GRAPH_LINE:-^(heapload: )?graph (written|ready|of .*ready)}"
heapgraph="$shared/tools/heapgraph/heapgraph.py"
for tool in /usr/bin/time python3 gzip; do
  command -v "$tool" >/dev/null || { echo "sizes.sh: needs $tool" >&2; exit 1; }
done
[ -f "$heapgraph" ] || { echo "sizes.sh: missing $heapgraph (set SHARED)" >&2; exit 1; }
mkdir -p "$out"

# The pair of a size as two uncompressed files (made once in $out), or nothing when its data is absent.
pair() {
  local dir
  case "$1" in
    small) dir="$here/testdata/luau/event-listeners" ;;
    medium) dir="$shared/testdata/luau/entity-system-medium" ;;
    large) dir="$shared/testdata/luau-large/entity-system-large" ;;
    10x) dir="$tenx" ;;
  esac
  [ -n "$dir" ] || return 0
  local files=() f
  for f in before after; do
    if [ -f "$dir/$f.json" ]; then
      files+=("$dir/$f.json")
    elif [ -f "$dir/$f.json.gz" ]; then
      mkdir -p "$out/$1"
      [ -f "$out/$1/$f.json" ] || gzip -dc "$dir/$f.json.gz" >"$out/$1/$f.json"
      files+=("$out/$1/$f.json")
    else
      return 0
    fi
  done
  echo "${files[0]} ${files[1]}"
}

# Runs a command with its output lines timestamped; prints "answer_s graph_s wall_s cpu_s rss_mib" (answer_s and
# graph_s "-" when the output has no leak answer). Output in $2.out, GNU time's figures in $2.time.
cat >"$out/timed.py" <<'EOF'
import re, subprocess, sys, threading, time
prefix, graph_line, cmd = sys.argv[1], re.compile(sys.argv[2]), sys.argv[3:]
start = time.monotonic()
p = subprocess.Popen(["/usr/bin/time", "-f", "%U %S %M", "-o", prefix + ".time"] + cmd,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
lines, lock = [], threading.Lock()
def pump(stream, name):
    for raw in iter(stream.readline, b""):
        t = time.monotonic() - start
        with lock:
            lines.append((t, name, raw.decode("utf-8", "replace").rstrip("\n")))
threads = [threading.Thread(target=pump, args=(p.stdout, "out")), threading.Thread(target=pump, args=(p.stderr, "err"))]
for t in threads: t.start()
for t in threads: t.join()
code = p.wait()
wall = time.monotonic() - start
lines.sort()
with open(prefix + ".out", "w") as f:
    for t, name, line in lines:
        f.write("%9.3f %s %s\n" % (t, name, line))
answer = next((t for t, name, line in lines if name == "out" and line.startswith("leaks:")), None)
graph = wall
if answer is not None:
    later = [t for t, name, line in lines if t >= answer and graph_line.search(line)]
    if later: graph = later[-1]
user, system, rss_kib = open(prefix + ".time").read().split()[-3:]
if code != 0:
    sys.stderr.write("sizes.sh: exit %d from %s; its output: %s.out\n" % (code, " ".join(cmd), prefix))
    sys.exit(1)
fmt = lambda v: "-" if v is None else "%.2f" % v
print(fmt(answer), fmt(graph if answer is not None else None), "%.2f" % wall,
      "%.2f" % (float(user) + float(system)), "%d" % (int(rss_kib) // 1024))
EOF

loadavg() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -; }
median() { printf '%s\n' "$@" | grep -v '^-$' | sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }
ratio() { if [ "$1" = - ] || [ "$2" = - ]; then echo -; else python3 -c "print('%.3f' % ($1 / $2))"; fi; }

"$hl" --version >/dev/null   # builds the checkout and its class-data archive once, outside the measurements
fmt='%-7s %-4s %9s %8s %8s %8s %8s %8s %8s %10s %9s %8s %8s %13s\n'
printf "$fmt" size run answer_s graph_s wall_s cpu_s rss_mib hg_s hg_cpu_s hg_rss_mib x_answer x_graph x_cpu load
summary=()
for size in $sizes; do
  read -r before after <<<"$(pair "$size")" || true
  if [ -z "${before:-}" ]; then
    echo "$size: skipped (no pair: $([ "$size" = 10x ] && echo 'give its folder as TENX=DIR or the argument' || echo "missing under $shared"))"
    continue
  fi
  input=$(( $(stat -c %s "$before") + $(stat -c %s "$after") ))
  available=$(( $(awk '/^MemAvailable:/ {print $2}' /proc/meminfo) * 1024 ))
  hg_fits=1
  if [ $((input * 62 / 10)) -gt $((available * 3 / 4)) ]; then
    hg_fits=0
    echo "$size: heapgraph.py skipped (needs about $((input * 62 / 10 >> 30)) GiB, $((available >> 30)) GiB available)"
  fi
  declare -a a_answer=() a_graph=() a_wall=() a_cpu=() a_rss=() a_hg=() a_hgcpu=() a_hgrss=() a_xa=() a_xg=() a_xc=()
  first_load="$(loadavg)"
  for i in $(seq "$repeat"); do
    load_start="$(loadavg)"
    db="$out/db-$size-$i"
    rm -rf "$db"
    read -r answer graph wall cpu rss <<<"$(python3 "$out/timed.py" "$out/$size-$i-heapload" "$graph_line" \
      "$hl" --db "$db" "$before" "$after")"
    rm -rf "$db"
    hg=- hgcpu=- hgrss=-
    if [ "$hg_fits" = 1 ]; then
      read -r _ _ hg hgcpu hgrss <<<"$(python3 "$out/timed.py" "$out/$size-$i-heapgraph" '^$' \
        python3 "$heapgraph" "$before" "$after")"
    fi
    xa="$(ratio "$answer" "$hg")"; xg="$(ratio "$graph" "$hg")"; xc="$(ratio "$cpu" "$hgcpu")"
    load_end="$(loadavg)"
    printf "$fmt" "$size" "$i" "$answer" "$graph" "$wall" "$cpu" "$rss" "$hg" "$hgcpu" "$hgrss" "$xa" "$xg" "$xc" \
      "$load_start-$load_end"
    a_answer+=("$answer"); a_graph+=("$graph"); a_wall+=("$wall"); a_cpu+=("$cpu"); a_rss+=("$rss")
    a_hg+=("$hg"); a_hgcpu+=("$hgcpu"); a_hgrss+=("$hgrss"); a_xa+=("$xa"); a_xg+=("$xg"); a_xc+=("$xc")
  done
  summary+=("$(printf "$fmt" "$size" med "$(median "${a_answer[@]}")" "$(median "${a_graph[@]}")" \
    "$(median "${a_wall[@]}")" "$(median "${a_cpu[@]}")" "$(median "${a_rss[@]}")" "$(median "${a_hg[@]}")" \
    "$(median "${a_hgcpu[@]}")" "$(median "${a_hgrss[@]}")" "$(median "${a_xa[@]}")" "$(median "${a_xg[@]}")" \
    "$(median "${a_xc[@]}")" "$first_load-$(loadavg)")")
  unset before after
done
echo
echo "medians of $repeat run(s) per size (x_*: medians of the per-round ratios):"
printf "$fmt" size run answer_s graph_s wall_s cpu_s rss_mib hg_s hg_cpu_s hg_rss_mib x_answer x_graph x_cpu load
printf '%s' "${summary[@]/%/$'\n'}"
