-- A chat history capped at 20 messages: once full, every new message replaces the oldest; no leak. Snapshots
-- "s1" (10 messages), "s2" (30 posted: full), "s3" (60 posted: the 20 of s2 all replaced).
local H = require "harness"

chat = { history = {}, max = 20, posted = 0 }

local function post(from, text)
  chat.posted = chat.posted + 1
  table.insert(chat.history, { seq = chat.posted, from = from, text = text })
  if #chat.history > chat.max then
    table.remove(chat.history, 1)
  end
end

local function session(messages)
  for _ = 1, messages do
    post("Player" .. (chat.posted % 4), "gg " .. (chat.posted + 1))
  end
end

session(10)
H.snap("s1")
session(20)
H.snap("s2")
session(30)
H.snap("s3")
