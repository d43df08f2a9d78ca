-- hostile.lua: heapload's test of the Lua dumper on a state that fights back (LuaHostileStateTest): a table whose every
-- metamethod raises (__tostring, __index, __len, __pairs; a locked metatable; a __name that is not UTF-8), an open and
-- a closed file, a coroutine that died of an error, a string metatable with its own __index, keys inf, -inf, 2^63, -0.0,
-- 0.5 and true, a table that is its own key, a finalizer proxy, 20 KB of binary, a wrap generator; the dump is
-- written two coroutines deep, at most 100 bytes of each string.
local heapdump = require "heapdump"
local V = rawget(_G, "jit") and "jit" or _VERSION:match("%d+%.%d+")
local bad = setmetatable({}, { __tostring = function() error("tostring must not be called") end,
  __index = function() error("index must not be called") end, __len = function() error("len") end,
  __pairs = function() error("pairs") end, __metatable = "locked", __name = "Bad\255Name" })
local f = io.tmpfile(); f:write("x"); local closed = io.tmpfile(); closed:close()
local dead = coroutine.create(function() error("died") end); coroutine.resume(dead)
local strmt = getmetatable("")
strmt.__index = setmetatable({ extra = function() end }, { __index = string })
local weird = { [1/0] = "inf", [-1/0] = "-inf", [2^63] = "big", [-0.0] = "negzero", [0.5] = "half", [true] = false }
weird[weird] = weird
local gcproxy
if newproxy then gcproxy = newproxy(true); getmetatable(gcproxy).__gc = function() end
else gcproxy = setmetatable({}, { __gc = function() end }) end
Chaos = { bad = bad, f = f, closed = closed, dead = dead, weird = weird, gcproxy = gcproxy,
  long = string.rep("\0\1\2\255", 5000), nested = coroutine.wrap(function() coroutine.yield() end) }
Chaos.nested()
local co = coroutine.create(function()
  local inner = coroutine.create(function() coroutine.yield(heapdump.write(os.getenv("HEAPDUMP_DIR") .. "/hostile.json", { maxstring = 100 })) end)
  local ok, n = coroutine.resume(inner)
  return ok, n
end)
print(coroutine.resume(co))
