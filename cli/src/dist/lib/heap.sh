# Java heap of a heapload command, sized from its input and the machine. Sourced (bash) by bin/heapload of the
# distribution and by ./heapload of a checkout, which call `heapload_heap "$@"` with the command's arguments and add
# the options it leaves in HEAPLOAD_HEAP_OPTS and HEAPLOAD_HEAP_CHECK (arrays) to java's.
#
# The heap a load needs grows with the dumps it reads: their models, their analyses and, while the newest file is
# read, its builder's columns and address index. Measured with the Luau VM's 24M-object pair (4.8 GB of JSON,
# docs/benchmarks.md, "Heap sized from the input"): at most LIVE_PER_BYTE heap bytes per decoded byte of input; a
# stored model (DIR/snapshots/*.hsnap, compressed) takes about HSNAP_FACTOR times its file's size once read. So:
#
#   input  = the decoded bytes of the arguments that are existing files (a .gz file: the size in its gzip trailer,
#            which holds it modulo 4 GiB: the multiple of 4 GiB added is the one closest to Luau JSON's 14:1 ratio)
#            + the two largest stored models of the store (--db DIR, HEAPLOAD_DB or ./heapload-db) times HSNAP_FACTOR
#            (a load compares with the previous snapshot; a report or a question reads two)
#   need   = LIVE_PER_BYTE × input                                         (what is alive at the peak)
#   -Xmx   = max(FLOOR, FIXED + HEADROOM × need), at most the machine's share:
#   limit  = 3/4 of the machine's memory (physical, or its cgroup's limit when lower) less OFF_HEAP (the importer's
#            page cache and caches, the JVM's own memory)
#
# HEADROOM covers the parallel collector's young generation (at most 1 GiB of a heap above FLOOR: the old generation
# must hold all that is alive) and some slack. When need is more than the limit the heap is the limit, and the command refuses at once with one
# line (-Dheapload.heap.need, checked in Java before any file is read) instead of failing after minutes. HEAPLOAD_XMX
# overrides all of this: then nothing is checked. Small inputs get FLOOR, the fixed heap heapload always had.

HEAPLOAD_HEAP_FLOOR_MIB=1200
HEAPLOAD_HEAP_FIXED_MIB=512
# heap bytes alive at the peak per decoded input byte, in hundredths (measured: 24M-object Luau pair)
HEAPLOAD_HEAP_LIVE_PER_BYTE_PCT=100
# -Xmx per byte alive, in hundredths
HEAPLOAD_HEAP_HEADROOM_PCT=160
# decoded model bytes per byte of a stored model file, and the ratio assumed for a .gz whose size wrapped
HEAPLOAD_HEAP_HSNAP_FACTOR=9
HEAPLOAD_HEAP_GZIP_RATIO=14
HEAPLOAD_HEAP_OFF_HEAP_MIB=1024

# Sizes in bytes of files, one a line, in one process (GNU or BSD stat); nothing for no files.
heapload_file_sizes() {
  [ $# -gt 0 ] || return 0
  stat -c %s -- "$@" 2>/dev/null || stat -f %z -- "$@" 2>/dev/null || true
}

# Decoded bytes of a dump file of a given size, into HEAPLOAD_DECODED_SIZE: the size, or for gzip the trailer's (see
# above). A gzip file's magic number is read by bash itself; only a gzip file costs a process (od, for its trailer).
heapload_decoded_size() {
  local f="$1" size="$2" magic="" isize n
  HEAPLOAD_DECODED_SIZE="$size"
  IFS= LC_ALL=C read -r -d '' -n 2 magic <"$f" 2>/dev/null || true
  if [ "$magic" != $'\x1f\x8b' ] || [ "$size" -lt 18 ]; then
    return 0
  fi
  # ISIZE: the last 4 bytes, little-endian
  isize="$(od -An -tu1 -j $((size - 4)) -N4 -- "$f" 2>/dev/null | awk '{print $1 + 256 * ($2 + 256 * ($3 + 256 * $4))}')"
  if [ -z "$isize" ]; then
    HEAPLOAD_DECODED_SIZE=$((size * HEAPLOAD_HEAP_GZIP_RATIO))
    return 0
  fi
  n=$(( (size * HEAPLOAD_HEAP_GZIP_RATIO - isize + (1 << 31)) >> 32 ))
  [ "$n" -lt 0 ] && n=0
  HEAPLOAD_DECODED_SIZE=$((isize + n * (1 << 32)))
}

# The machine's memory in bytes: physical, or the memory cgroup's limit (v2 or v1) when lower; 0 when unknown. Sets
# HEAPLOAD_MACHINE_MEMORY (bash built-ins only on Linux: this runs before every command).
heapload_machine_memory() {
  local key value unit rel f line
  HEAPLOAD_MACHINE_MEMORY=0
  if [ -r /proc/meminfo ]; then
    while read -r key value unit; do
      [ "$key" = MemTotal: ] && { HEAPLOAD_MACHINE_MEMORY=$((value * 1024)); break; }
    done </proc/meminfo
  else
    HEAPLOAD_MACHINE_MEMORY="$(sysctl -n hw.memsize 2>/dev/null || echo 0)"
  fi
  local files=(/sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes)
  if [ -r /proc/self/cgroup ]; then
    while IFS= read -r line; do
      rel="${line#*:}"; rel="${rel#*:}"
      case "$line" in
        0::*) files+=("/sys/fs/cgroup$rel/memory.max") ;;
        *:memory:*|*:memory,*|*,memory:*|*,memory,*) files+=("/sys/fs/cgroup/memory$rel/memory.limit_in_bytes") ;;
      esac
    done </proc/self/cgroup
  fi
  for f in "${files[@]}"; do
    [ -r "$f" ] || continue
    read -r value <"$f" 2>/dev/null || continue
    # "max" (v2) and v1's 19-digit "unlimited" are no limit
    case "$value" in ''|*[!0-9]*) continue ;; esac
    [ "${#value}" -le 18 ] || continue
    if [ "$HEAPLOAD_MACHINE_MEMORY" -eq 0 ] || [ "$value" -lt "$HEAPLOAD_MACHINE_MEMORY" ]; then
      HEAPLOAD_MACHINE_MEMORY=$value
    fi
  done
}

# The store directory a command names (--db DIR, --db=DIR, HEAPLOAD_DB, else heapload-db); sets HEAPLOAD_STORE_DIR.
heapload_store_dir() {
  local prev="" a
  HEAPLOAD_STORE_DIR="${HEAPLOAD_DB:-}"
  for a in "$@"; do
    case "$prev" in --db) HEAPLOAD_STORE_DIR="$a" ;; esac
    case "$a" in --db=*) HEAPLOAD_STORE_DIR="${a#--db=}" ;; esac
    prev="$a"
  done
  HEAPLOAD_STORE_DIR="${HEAPLOAD_STORE_DIR:-heapload-db}"
}

# -Xmx in MiB, the need in bytes and the limit in MiB (0: no limit known) for input bytes and machine memory bytes
# (0: unknown); sets HEAPLOAD_HEAP_XMX_MIB, HEAPLOAD_HEAP_NEED and HEAPLOAD_HEAP_LIMIT_MIB. Arithmetic only.
heapload_heap_size() {
  local input="$1" machine="$2"
  HEAPLOAD_HEAP_NEED=$((input * HEAPLOAD_HEAP_LIVE_PER_BYTE_PCT / 100))
  HEAPLOAD_HEAP_XMX_MIB=$((HEAPLOAD_HEAP_FIXED_MIB + (HEAPLOAD_HEAP_NEED * HEAPLOAD_HEAP_HEADROOM_PCT / 100 >> 20)))
  [ "$HEAPLOAD_HEAP_XMX_MIB" -lt "$HEAPLOAD_HEAP_FLOOR_MIB" ] && HEAPLOAD_HEAP_XMX_MIB=$HEAPLOAD_HEAP_FLOOR_MIB
  HEAPLOAD_HEAP_LIMIT_MIB=0
  if [ "$machine" -gt 0 ]; then
    HEAPLOAD_HEAP_LIMIT_MIB=$(((machine >> 20) * 3 / 4 - HEAPLOAD_HEAP_OFF_HEAP_MIB))
    [ "$HEAPLOAD_HEAP_LIMIT_MIB" -lt "$HEAPLOAD_HEAP_FLOOR_MIB" ] && HEAPLOAD_HEAP_LIMIT_MIB=$HEAPLOAD_HEAP_FLOOR_MIB
    [ "$HEAPLOAD_HEAP_XMX_MIB" -gt "$HEAPLOAD_HEAP_LIMIT_MIB" ] && HEAPLOAD_HEAP_XMX_MIB=$HEAPLOAD_HEAP_LIMIT_MIB
  fi
  return 0
}

# Sets, for a command line, HEAPLOAD_HEAP_OPTS (array): -Xmx$HEAPLOAD_XMX when set, else the size above; and
# HEAPLOAD_HEAP_CHECK (array, empty with HEAPLOAD_XMX): -Dheapload.heap.need / .limit for the Java side's early
# refusal and its out-of-memory line, for the command's own JVM only (not for a training run on other files).
heapload_heap() {
  HEAPLOAD_HEAP_CHECK=()
  if [ -n "${HEAPLOAD_XMX:-}" ]; then
    HEAPLOAD_HEAP_OPTS=(-Xmx"$HEAPLOAD_XMX")
    return
  fi
  local input=0 a snaps files=() models=() sizes=() i first=0 second=0 s
  for a in "$@"; do
    # only existing regular files: options, ids and directories count nothing
    case "$a" in -*) continue ;; esac
    [ -f "$a" ] && files+=("$a")
  done
  heapload_store_dir "$@"
  snaps="$HEAPLOAD_STORE_DIR/snapshots"
  if [ -d "$snaps" ]; then
    for a in "$snaps"/*.hsnap; do
      [ -f "$a" ] && models+=("$a")
    done
  fi
  # one stat for all of them: each process costs a millisecond on a quiet machine, a tenth of a second on a busy one
  if [ $((${#files[@]} + ${#models[@]})) -gt 0 ]; then
    mapfile -t sizes < <(heapload_file_sizes "${files[@]}" "${models[@]}")
  fi
  for i in "${!files[@]}"; do
    heapload_decoded_size "${files[$i]}" "${sizes[$i]:-0}"
    input=$((input + HEAPLOAD_DECODED_SIZE))
  done
  for i in "${!models[@]}"; do
    s="${sizes[$((${#files[@]} + i))]:-0}"
    if [ "$s" -gt "$first" ]; then second=$first; first=$s; elif [ "$s" -gt "$second" ]; then second=$s; fi
  done
  input=$((input + (first + second) * HEAPLOAD_HEAP_HSNAP_FACTOR))
  heapload_machine_memory
  heapload_heap_size "$input" "$HEAPLOAD_MACHINE_MEMORY"
  HEAPLOAD_HEAP_OPTS=(-Xmx"${HEAPLOAD_HEAP_XMX_MIB}m")
  if [ "$HEAPLOAD_HEAP_XMX_MIB" -gt "$HEAPLOAD_HEAP_FLOOR_MIB" ]; then
    # a heap sized for large input: all of it from the start (the old generation would otherwise grow by one full
    # collection after another while the dumps are read), and a young generation of at most 1 GiB (the parallel
    # collector's default is a third of the heap, which the old generation then cannot use for the models)
    HEAPLOAD_HEAP_OPTS+=(-Xms"${HEAPLOAD_HEAP_XMX_MIB}m" -XX:MaxNewSize=1g)
  fi
  HEAPLOAD_HEAP_CHECK=(-Dheapload.heap.need="$HEAPLOAD_HEAP_NEED" -Dheapload.heap.limit="$((HEAPLOAD_HEAP_LIMIT_MIB << 20))")
}
