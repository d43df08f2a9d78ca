-- deep.lua: heapload's test of dumps taken deep inside nested coroutines (LuaDeepCoroutinesTest).
--
-- Level 1 runs on the main thread; each level k < N starts level k + 1 in a new coroutine (even k: coroutine.create
-- and resume, odd k: a coroutine.wrap generator) and keeps it in its local `co`; every level holds a local table
-- { depth = k }. Level N writes $HEAPDUMP_DIR/deep.json. N is the first argument (default 150).
local heapdump = require "heapdump"
local N = tonumber(arg and arg[1]) or 150
local dir = os.getenv("HEAPDUMP_DIR") or "."

local function level(k)
  local mine = { depth = k }
  if k == N then
    heapdump.write(dir .. "/deep.json", { label = "deep" })
  elseif k % 2 == 0 then
    local co = coroutine.create(level)
    assert(coroutine.resume(co, k + 1))
  else
    local co = coroutine.wrap(level)
    co(k + 1)
  end
  return mine
end

level(1)
