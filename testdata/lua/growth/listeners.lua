-- Dialogs that subscribe to an event bus and forget to unsubscribe: the listener list grows at every step.
-- Snapshots "s1" (5 dialogs opened and closed), "s2" (15), "s3" (25); dialogs with an even number unsubscribe.
local H = require "harness"

bus = { listeners = {} }

function bus.on(fn)
  bus.listeners[#bus.listeners + 1] = fn
  return #bus.listeners
end

function bus.off(index)
  table.remove(bus.listeners, index)
end

local opened = 0

local function openDialog()
  opened = opened + 1
  local dialog = { title = "dialog" .. opened, buffer = {} }
  local index = bus.on(function(event) dialog.buffer[#dialog.buffer + 1] = event end)
  if opened % 2 == 0 then
    bus.off(index)
  end
end

for _ = 1, 5 do openDialog() end
H.snap("s1")
for _ = 1, 10 do openDialog() end
H.snap("s2")
for _ = 1, 10 do openDialog() end
H.snap("s3")
