#!/usr/bin/env bash
# Cost of allocation-site tracking (heapdump.track): the 1,000,000-table state of state1m.lua built with tracking off
# (the helper loaded, nothing installed) and on, per VM: CPU time of the build and of the dump, peak RSS of the
# process, dump size. Run from anywhere: dumpers/lua/bench/track.sh [OUTDIR] [N]
# VMS="lua5.4 luajit" picks the VMs. Needs cc, /usr/bin/time, the VMs (lua5.1, lua5.4, luajit from apt with their -dev packages; Lua 5.5 from
# ../shared/tools/lua-5.5 when it is there).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="${1:-$(mktemp -d)}"
n="${2:-1000000}"
mkdir -p "$out"
lua55="$root/../shared/tools/lua-5.5"
for vm in ${VMS:-lua5.1 lua5.4 lua5.5 luajit}; do
  case "$vm" in
    lua5.5) exe="$lua55/bin/lua5.5"; inc="$lua55/include" ;;
    luajit) exe=luajit; inc=/usr/include/luajit-2.1 ;;
    *) exe="$vm"; inc="/usr/include/$vm" ;;
  esac
  if ! command -v "$exe" >/dev/null || [ ! -f "$inc/lua.h" ]; then echo "$vm: not installed (or no headers): skipped"; continue; fi
  mkdir -p "$out/$vm"
  cc -shared -fPIC -O2 -I"$inc" "$root/dumpers/lua/heapdump_native.c" -o "$out/$vm/heapdump_native.so"
  for mode in off track; do
    LUA_PATH="$root/dumpers/lua/?.lua;;" LUA_CPATH="$out/$vm/?.so" /usr/bin/time -f "   peak RSS %M KB, wall %e s" \
      "$exe" "$here/state1m.lua" "$out/$vm/$mode.json" "$n" "$mode"
    ls -l "$out/$vm/$mode.json" | awk '{print "   dump " $5 " bytes"}'
  done
done
echo "== hook cost on calls and lines (calls.lua)"
for vm in ${VMS:-lua5.1 lua5.4 lua5.5 luajit}; do
  case "$vm" in
    lua5.5) exe="$lua55/bin/lua5.5" ;;
    luajit) exe=luajit ;;
    *) exe="$vm" ;;
  esac
  [ -f "$out/$vm/heapdump_native.so" ] || continue
  LUA_PATH="$root/dumpers/lua/?.lua;;" LUA_CPATH="$out/$vm/?.so" "$exe" "$here/calls.lua"
done
