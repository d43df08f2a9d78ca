-- Event listeners with allocation sites tracked: each widget registers a listener table on a global bus;
-- dialogs 1..40 never unsubscribe (the leak), 41..50 do.
local H = require "harness"
local heapdump = require "heapdump"

local Bus = { listeners = {} }
function Bus.on(owner, fn)
  local listener = { owner = owner, fn = fn }
  Bus.listeners[#Bus.listeners + 1] = listener
  return listener
end
function Bus.off(listener)
  for i = #Bus.listeners, 1, -1 do
    if Bus.listeners[i] == listener then table.remove(Bus.listeners, i) end
  end
end
_G.Bus = Bus

local function widget(name)
  local self = { name = name, buffer = {} }
  self.listener = Bus.on(self, function(x) self.buffer[#self.buffer + 1] = x end)
  return self
end

local toolbar = widget("toolbar")
heapdump.track(true)
H.snap("before")
for i = 1, 50 do
  local w = widget("dialog" .. i)
  if i > 40 then Bus.off(w.listener) end
end
H.snap("after")
heapdump.track(false)
