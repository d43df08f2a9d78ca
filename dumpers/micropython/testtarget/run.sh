#!/usr/bin/env bash
# Builds mpsim.c for a cross target, runs it under qemu-user's gdbstub, takes two heapload-dump's with
# gdb-multiarch (at the two stops in mp_micropython_mem_info) and prints their timings; the dumps stay in OUT.
#   dumpers/micropython/testtarget/run.sh arm|arm-split3|ppc-split2-weak [OUT] [--no-debug-info]
# MPSIM_DEFINES="-DHEAP0_SIZE=2097152" gives a 2 MiB first area (for timings).
# Needs: gdb-multiarch, qemu-user, gcc-arm-linux-gnueabi / gcc-powerpc-linux-gnu (apt).
# Then: ./heapload micropython OUT/before --no-load   (the figures equal the "GC:" and "expect" lines in OUT/program.txt)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="${1:?usage: run.sh arm|arm-split3|ppc-split2-weak [OUT] [--no-debug-info]}"
out="${2:-/tmp/mpsim-$target}"
debug="-g"
[ "${3:-}" = "--no-debug-info" ] && debug=""
case "$target" in
  arm) gcc=arm-linux-gnueabi-gcc; qemu=qemu-arm; defs="-DSPLIT_HEAP=1" ;;
  arm-split3) gcc=arm-linux-gnueabi-gcc; qemu=qemu-arm; defs="-DSPLIT_HEAP=3" ;;
  ppc-split2-weak) gcc=powerpc-linux-gnu-gcc; qemu=qemu-ppc; defs="-DSPLIT_HEAP=2 -DWEAKREF=1" ;;
  *) echo "unknown target $target" >&2; exit 2 ;;
esac
rm -rf "$out"; mkdir -p "$out"
# shellcheck disable=SC2086 # one word per option
"$gcc" $debug -O1 -static -o "$out/mpsim" "$here/mpsim.c" $defs ${MPSIM_DEFINES:-}
port=$(( 20000 + RANDOM % 20000 ))
"$qemu" -g "$port" "$out/mpsim" > "$out/program.txt" 2>&1 &
cat > "$out/dump.gdb" <<EOF
set pagination off
set confirm off
source $here/../heapload_gdb.py
file $out/mpsim
python
import time
for attempt in range(100):
    try:
        gdb.execute('target remote 127.0.0.1:$port')
        break
    except gdb.error:
        time.sleep(0.1)
end
break mp_micropython_mem_info
continue
python t0 = time.time()
heapload-dump $out/before --label before
python print("wall time of heapload-dump: %.2f s" % (time.time() - t0))
continue
python t0 = time.time()
heapload-dump $out/after --label after
python print("wall time of heapload-dump: %.2f s" % (time.time() - t0))
continue
EOF
start=$(date +%s.%N)
gdb-multiarch -q -batch -x "$out/dump.gdb" 2>&1 | grep -E "heapload-dump|wall time|bytes$"
wait
echo "gdb session (connect, two stops, two dumps, run to the end): $(echo "$(date +%s.%N) - $start" | bc) s"
