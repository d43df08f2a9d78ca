-- Benchmark state for heapdump.lua: 1,000,000 tables (plus the usual libraries), then one dump.
-- Usage: lua state1m.lua OUT.json   (with dumpers/lua on LUA_PATH); prints the dump's wall time.
local heapdump = require "heapdump"
local out = assert(arg[1], "usage: state1m.lua OUT.json")
local N = tonumber(arg[2]) or 1000000

Bench = { items = {} }
local items = Bench.items
for i = 1, N do
  local t = { id = i }
  if i % 2 == 0 then t.prev = items[i - 1] end   -- some references between the tables
  items[i] = t
end
collectgarbage("collect")
local t0 = os.clock()
local n = heapdump.write(out, { label = "bench" })
io.stderr:write(string.format("%s: %d objects written in %.2f s CPU\n", _VERSION .. (jit and (" " .. jit.version) or ""), n, os.clock() - t0))
