-- Benchmark state for heapdump.lua: 1,000,000 tables (plus the usual libraries), then one dump.
-- Usage: lua state1m.lua OUT.json [N] [track]   (with dumpers/lua on LUA_PATH; "track" needs heapdump_native on
-- LUA_CPATH and builds the state with allocation tracking on). Prints the build's and the dump's CPU time.
local heapdump = require "heapdump"
local out = assert(arg[1], "usage: state1m.lua OUT.json [N] [track]")
local N = tonumber(arg[2]) or 1000000
local track = arg[3] == "track"

if track then heapdump.track(true) end
local b0 = os.clock()
Bench = { items = {} }
local items = Bench.items
for i = 1, N do
  local t = { id = i }
  if i % 2 == 0 then t.prev = items[i - 1] end   -- some references between the tables
  items[i] = t
end
local built = os.clock() - b0
if track then heapdump.track(false) end
collectgarbage("collect")
local t0 = os.clock()
local n = heapdump.write(out, { label = "bench" })
local extra = ""
if track then
  local native = require "heapdump_native"
  local blocks, sites, bytes = native.trackstats()
  extra = string.format(", tracking tables %d blocks %d sites %.1f MB (C heap)", blocks, sites, bytes / 1e6)
end
io.stderr:write(string.format("%s%s%s: built in %.2f s CPU, %d objects written in %.2f s CPU%s\n", _VERSION,
  (jit and (" " .. jit.version) or ""), track and " tracking" or "", built, n, os.clock() - t0, extra))
