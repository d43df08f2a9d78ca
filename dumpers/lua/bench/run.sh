#!/usr/bin/env bash
# Benchmark: dumper time and peak memory on a 1,000,000-table state (Lua 5.4, LuaJIT), then heapload's
# import of each file. Run from anywhere: dumpers/lua/bench/run.sh [OUTDIR]
# Needs /usr/bin/time (Debian package "time"), lua5.4 and/or luajit, and a built heapload.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
for lua in lua5.4 luajit; do
  command -v "$lua" >/dev/null || { echo "$lua not installed: skipped"; continue; }
  echo "== $lua: dump (wall s, peak RSS KB of the whole process: state + dump)"
  LUA_PATH="$root/dumpers/lua/?.lua;;" /usr/bin/time -f "%e s %M KB" "$lua" "$here/state1m.lua" "$out/$lua.json"
  echo "   baseline without the dump (state only):"
  LUA_PATH="$root/dumpers/lua/?.lua;;" /usr/bin/time -f "%e s %M KB" "$lua" -e 'package.loaded.heapdump={write=function() return 0 end}' "$here/state1m.lua" /dev/null
  ls -l "$out/$lua.json" | awk '{print "   file: " $5 " bytes"}'
  echo "== heapload import of $lua.json"
  rm -rf "$out/db-$lua"
  /usr/bin/time -f "%e s %M KB (heapload, whole load)" "$root/heapload" --db "$out/db-$lua" "$out/$lua.json" | grep -E "^time:|^  objects"
done
