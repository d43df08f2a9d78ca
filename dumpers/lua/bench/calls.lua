-- Hook cost of heapdump.track on code that calls and runs lines more than it allocates: fib(30) (about 2.7 million
-- calls) and 200,000 short string concatenations, tracking off and then on. Usage: lua calls.lua (heapdump and
-- heapdump_native on LUA_PATH / LUA_CPATH). Prints CPU seconds of each.
local heapdump = require "heapdump"
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local function work()
  local t0 = os.clock()
  fib(30)
  local t1 = os.clock()
  local keep = {}
  for i = 1, 200000 do keep[i % 1000 + 1] = "k" .. i end
  return t1 - t0, os.clock() - t1
end
local f0, s0 = work()
heapdump.track(true)
local f1, s1 = work()
heapdump.track(false)
io.stderr:write(string.format("%s%s: fib(30) %.2f s -> %.2f s tracking (x%.1f); 200k concatenations %.2f s -> %.2f s (x%.1f)\n",
  _VERSION, (jit and (" " .. jit.version) or ""), f0, f1, f1 / f0, s0, s1, s1 / s0))
