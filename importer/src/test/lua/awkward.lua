-- awkward.lua: heapload's test of dumps taken from awkward places (LuaAwkwardPlacesTest). The first argument picks one:
--   finalizer   inside a __gc metamethod (a table's on 5.2+, a newproxy's on 5.1 and LuaJIT)
--   handler     inside an xpcall message handler, the failing function's frame still on the stack
--   overflow    inside the message handler of a stack overflow
--   stopped     with the collector stopped by the program (it stays stopped)
--   generational in generational mode (5.2, 5.4, 5.5; it stays so)
--   nodir       to a file in a directory that does not exist (fails)
--   full        to a file whose temporary name is a link to /dev/full (fails while writing)
--   gcfail      inside a finalizer, to a directory that does not exist (fails where errors become warnings)
-- It prints "state: ..." lines about the collector afterwards and "result: ..." with what heapdump.write did.
local heapdump = require "heapdump"
local mode = arg[1]
local dir = os.getenv("HEAPDUMP_DIR") or "."
local V = rawget(_G, "jit") and "jit" or _VERSION:match("%d+%.%d+")

local function dump(path)
  local ok, result = pcall(heapdump.write, path or (dir .. "/" .. mode .. ".json"), { label = mode })
  print("result: " .. tostring(ok) .. " " .. tostring(result))
end

local function finalizing(path)
  local victim = { finalized = "yes" }
  local function gc(self)
    local seen = self
    dump(path)
  end
  if V == "5.1" or V == "jit" then
    local p = newproxy(true)
    getmetatable(p).__gc = function() gc(victim) end
  else
    setmetatable(victim, { __gc = gc })
  end
  if V ~= "5.1" and V ~= "jit" then victim = nil end   -- 5.1/LuaJIT: the proxy's finalizer keeps it
end

if mode == "finalizer" then
  finalizing()
  collectgarbage("collect")
  collectgarbage("collect")
elseif mode == "gcfail" then
  finalizing(dir .. "/no/such/dir/gcfail.json")
  collectgarbage("collect")
  collectgarbage("collect")
elseif mode == "handler" then
  local function request()
    local inflight = { request = "GET /" }
    error("boom")
  end
  print(xpcall(request, function(m) dump() return m end))
elseif mode == "overflow" then
  local function recurse(n)
    local frame = { n }
    return recurse(n + 1) + #frame
  end
  print(xpcall(function() return recurse(1) end, function(m) dump() return m end))
elseif mode == "stopped" then
  collectgarbage("stop")
  dump()
  if V ~= "5.1" then print("state: running " .. tostring(collectgarbage("isrunning"))) end
elseif mode == "generational" then
  print("state: was " .. tostring(collectgarbage("generational")))
  dump()
  print("state: mode " .. tostring(collectgarbage("generational")))
  print("state: running " .. tostring(collectgarbage("isrunning")))
elseif mode == "nodir" then
  dump(dir .. "/no/such/dir/nodir.json")
elseif mode == "full" then
  dump(dir .. "/full.json")
end
