-- A program with a leak, for the README's Lua recipe: a module keeps every session it opens in a cache and never
-- removes one. Run from the repository root (heapdump.lua found through LUA_PATH):
--   LUA_PATH="dumpers/lua/?.lua;;" lua5.4 testdata/lua/session-cache/program.lua
-- It writes lua-before.json (10 sessions) and lua-after.json (110 sessions) into the current directory.
local heapdump = require "heapdump"

package.loaded.sessions = (function()
  local M = { cache = {} }
  function M.open(user)
    M.cache[user] = { user = user, buffer = string.rep("x", 64) .. user }   -- the leak: never removed
  end
  return M
end)()

for i = 1, 10 do require("sessions").open("user" .. i) end
collectgarbage("collect"); collectgarbage("collect")
heapdump.write("lua-before.json", { label = "before" })

for i = 11, 110 do require("sessions").open("user" .. i) end
collectgarbage("collect"); collectgarbage("collect")
heapdump.write("lua-after.json", { label = "after" })
