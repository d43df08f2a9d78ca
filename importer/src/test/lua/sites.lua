local heapdump = require "heapdump"
Old = { "before tracking" }
heapdump.track(true)
local function handler(n)
  return function() return n end
end
Made = {}
for i = 1, 3 do
  Made[#Made + 1] = { index = i }
  Made[#Made + 1] = handler(i)
  Made[#Made + 1] = "item-" .. i .. "-x"
end
local function id(x) return x end
Made.after = id("p") .. string.rep("q", 3)
heapdump.track(false)
heapdump.write(os.getenv("HEAPDUMP_DIR") .. "/sites.json", { label = "sites" })
