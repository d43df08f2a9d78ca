#!/usr/bin/env bash
# Times the ways of taking a MicroPython heap dump on the unix-port binary of ../shared/tools/micropython-unix
# (2 MiB heap): gdb heapload-dump, heapdump.py inside the interpreter (viper and plain encoders), and
# `heapload micropython capture` over the interpreter's raw REPL on a pty. Usage: dumpers/micropython/bench.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mp="${MICROPYTHON:-$root/../shared/tools/micropython-unix/micropython}"
syms="$(dirname "$mp")/symbols.nm.txt"
scenario="$root/testdata/micropython/leaky-cache-scenario.py"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "== gdb heapload-dump at the scenario's two markers (the command prints its own time)"
cat > "$tmp/d.gdb" <<GDB
set pagination off
set confirm off
source $here/heapload_gdb.py
break mp_micropython_mem_info
run
heapload-dump $tmp/g1
continue
heapload-dump $tmp/g2
continue
GDB
start=$(date +%s%N)
gdb -q -batch -x "$tmp/d.gdb" --args "$mp" "$scenario" 2>&1 | grep '^heapload-dump:'
echo "whole gdb session: $(( ($(date +%s%N) - start) / 1000000 )) ms"

read -r ctx_addr ctx_size _ < <(awk '$4=="mp_state_ctx"{print $1, $2}' "$syms")
for enc in True False; do
  cat > "$tmp/self.py" <<PY
import sys, time
sys.path.append('$here')
import heapdump
exec(open('$scenario').read())
f = open('$tmp/stream.txt', 'wb')
t = time.ticks_ms()
heapdump.dump(0x$ctx_addr, 0x$ctx_size, (), f, None, $enc)
f.close()
print('heapdump.dump viper=$enc: %d ms' % time.ticks_diff(time.ticks_ms(), t))
PY
  "$mp" "$tmp/self.py" | tail -n 1
done

echo "== heapload micropython capture over the raw REPL on a pty (after the scenario ran)"
if command -v python3 >/dev/null 2>&1; then
  (sleep 300 | python3 "$root/cli/src/test/resources/dev/heapload/cli/pty_relay.py" "$mp" > "$tmp/relay.out" 2>&1 &)
  for _ in $(seq 40); do [ -s "$tmp/relay.out" ] && break; sleep 0.5; done
  pty="$(head -n 1 "$tmp/relay.out")"
  "$root/heapload" micropython capture --port "$pty" --symbols "$syms" --exec "exec(open('$scenario').read())" "$tmp/c0" >/dev/null
  start=$(date +%s%N)
  "$root/heapload" micropython capture --port "$pty" --symbols "$syms" "$tmp/c1" | grep '^captured'
  echo "whole command (JVM start included): $(( ($(date +%s%N) - start) / 1000000 )) ms"
else
  echo "python3 missing: skipped"
fi
