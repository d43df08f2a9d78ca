--- harness.lua: the test harness heapload's tests load Lua programs with.
--
--   local H = require "harness"
--   H.snap("before")              -- full collection (twice), then heapdump.write("<dir>/before.json")
--   H.snap("after", { nogc = true })   -- no collection first
--
-- <dir> is the environment variable HEAPDUMP_DIR, or the current directory. The harness's own frame is
-- left out of the dump (level = 1).
local heapdump = require "heapdump"

local H = {}
local dir = os.getenv("HEAPDUMP_DIR") or "."

function H.snap(label, opts)
  if not (opts and opts.nogc) then
    collectgarbage("collect")
    collectgarbage("collect")
  end
  local n = heapdump.write(dir .. "/" .. label .. ".json", { label = label, level = 1 })
  io.stderr:write("heapdump ", label, ": ", n, " objects\n")
end

return H
