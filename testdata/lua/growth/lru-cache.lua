-- A 100-entry LRU cache that only evicts and refills: no leak. Snapshot "before" after warming it up with users
-- 1..100, "after" once users 101..400 went through it (300 misses, each evicting the least recently used entry).
local H = require "harness"

local LRU = {}
LRU.__index = LRU

function LRU.new(capacity)
  return setmetatable({ capacity = capacity, size = 0, map = {}, head = nil, tail = nil }, LRU)
end

function LRU:unlink(node)
  if node.prev then node.prev.next = node.next else self.head = node.next end
  if node.next then node.next.prev = node.prev else self.tail = node.prev end
  node.prev, node.next = nil, nil
end

function LRU:push(node)
  node.next = self.head
  if self.head then self.head.prev = node end
  self.head = node
  if not self.tail then self.tail = node end
end

function LRU:get(key, load)
  local node = self.map[key]
  if node then
    self:unlink(node)
    self:push(node)
    return node.value
  end
  node = { key = key, value = load(key) }
  self.map[key] = node
  self:push(node)
  self.size = self.size + 1
  if self.size > self.capacity then
    local old = self.tail
    self:unlink(old)
    self.map[old.key] = nil
    self.size = self.size - 1
  end
  return node.value
end

local function loadUser(key)
  local id = tonumber(key:match("%d+"))
  return { id = id, name = "user" .. id, payload = string.rep("x", 100) .. id }
end

users = LRU.new(100)
for id = 1, 100 do
  users:get("user:" .. id, loadUser)
end
H.snap("before")
for id = 101, 400 do
  users:get("user:" .. id, loadUser)
end
H.snap("after")
