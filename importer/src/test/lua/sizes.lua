-- sizes.lua: heapload's test of the Lua dumper's sizes against the VM's own count (LuaSizesTest).
--
-- Creates objects of every kind the running VM has, one at a time between full collections, and prints for
-- each how many bytes collectgarbage("count") grew by:
--
--   SIZE <key> <bytes> <what>
--
-- <key> is the object's id as heapload's dumper writes it (%p on 5.4+ and LuaJIT, the address tostring prints on
-- 5.1-5.3), or "str:" followed by the text for strings. Then it writes $HEAPDUMP_DIR/sizes.json with heapdump.write.
-- The C modules udhelper (userdata, C closures, 5.5 external strings) and heapdump_native (payload sizes) are used
-- when on package.cpath.
local heapdump = require "heapdump"
local okU, U = pcall(require, "udhelper")
if not okU then U = nil end
local V = rawget(_G, "jit") and "jit" or _VERSION:match("%d+%.%d+")
if V == "jit" then jit.off() end           -- a compiled trace is counted by the VM too
local HAS_P = pcall(string.format, "%p", {})

local keep = {}
for i = 1, 1024 do keep[i] = false end
local n = 0
local lines = {}
for i = 1, 1024 do lines[i] = false end
local nlines = 0

-- the string table grows at powers of two: make it big first, so that the strings made below never grow it
local filler = {}
for i = 1, 3000 do filler[i] = "filler string " .. i end

local function key(v)
  if type(v) == "string" then return "str:" .. v:sub(1, 2) .. "#" .. #v end
  if type(v) == "string" then return "str:" .. v end
  if HAS_P then return string.format("%p", v) end
  local mt = debug.getmetatable(v)
  if mt ~= nil then debug.setmetatable(v, nil) end
  local s = tostring(v)
  if mt ~= nil then debug.setmetatable(v, mt) end
  return s:match("0x%x+")
end

-- One kind of object: what make(k) returns, measured as the growth of collectgarbage("count") over the call, with
-- the collector stopped, three times (three objects); the smallest growth is the object's size. make builds its object
-- from pieces that exist already. Modes:
--   "warm" (default): after full collections, make(k + 500) runs once first, so that the call's stack, CallInfo list
--                     and concatenation buffer (Lua's and LuaJIT's) exist and have grown, then make(k)
--   "collect":        no warm-up, full collections after the call (what leaves garbage, like the auxiliary library's
--                     buffer boxes, and coroutines, whose stacks a collection shrinks)
--   "once":           one object, no warm-up (Lua 5.2/5.3 reuse a closure whose upvalues are the same: a second
--                     one would be the first again)
collectgarbage("stop")
local serial = 0
local function measure(what, make, mode)
  mode = mode or "warm"
  local best, bestv
  for _ = 1, mode == "once" and 1 or 3 do
    serial = serial + 1
    collectgarbage("collect")
    collectgarbage("collect")
    if mode == "warm" then
      local warm = make(serial + 500)
      warm = nil
    end
    local before = collectgarbage("count")
    local v = make(serial)
    if mode == "collect" then
      collectgarbage("collect")
      collectgarbage("collect")
    end
    local bytes = (collectgarbage("count") - before) * 1024
    n = n + 1
    keep[n] = v
    if best == nil or bytes < best then best, bestv = bytes, v end
  end
  nlines = nlines + 1
  lines[nlines] = { bestv, best, what }
end

-- unique two-byte heads for strings (short strings are interned: a text that exists costs nothing), made now
local heads = {}
for k = 1, 1000 do heads[k] = string.char(14 + k % 18, 14 + math.floor(k / 18) % 18) end
-- bodies of each length, made now
local bodies = {}
local function body(len)
  if not bodies[len] then bodies[len] = string.rep("d", len) end
  return bodies[len]
end

-- tables filled by insertion (their capacities are powers of two); keys that already exist
local keys = {}
for i = 1, 40 do keys[i] = "key" .. i end
for _, size in ipairs({ 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33 }) do
  measure("array " .. size, function() local t = {} for i = 1, size do t[i] = i end return t end)
end
for _, size in ipairs({ 1, 2, 3, 4, 5, 8, 9, 16, 17 }) do
  measure("hash " .. size, function() local t = {} for i = 1, size do t[keys[i]] = i end return t end)
end
measure("array 3 + hash 3", function() local t = {} for i = 1, 3 do t[i] = i; t[keys[i]] = i end return t end)
measure("array 5 + hash 2", function() local t = {} for i = 1, 5 do t[i] = i end t.key1 = 1 t.key2 = 2 return t end)
measure("empty table", function() return {} end)
local mt = {}
measure("empty table with a metatable", function() return setmetatable({}, mt) end)

-- strings of each length class
for _, len in ipairs({ 3, 4, 5, 7, 8, 20, 39, 40, 41, 42, 99, 500, 1024, 5000 }) do
  body(len - 2)
  measure("string " .. len, function(k) return heads[k] .. bodies[len - 2] end)
end
-- an auxiliary-library buffer: on 5.5 an external string once longer than LUAL_BUFFERSIZE
local pairsOf = {}
for k = 1, 1000 do pairsOf[k] = false end
for _, len in ipairs({ 500, 1024, 5000 }) do
  body(len - 2)
  for k = serial + 1, serial + 3 do
    pairsOf[k] = { heads[k], bodies[len - 2] }
    pairsOf[k + 500] = { heads[k + 500], bodies[len - 2] }
  end
  -- Lua 5.2+: the buffer is a box userdata left as garbage; LuaJIT: its string buffer
  if V ~= "5.1" then   -- 5.1 leaves the pieces on its stack, which the collections shrink: covered by ".." there
    measure("string " .. len .. " by table.concat", function(k) return table.concat(pairsOf[k]) end,
      V ~= "jit" and "collect" or nil)
  end
end
if U and V == "5.5" then
  body(2998)
  for k = serial + 1, serial + 3 do
    pairsOf[k] = heads[k] .. bodies[2998]
    pairsOf[k + 500] = heads[k + 500] .. bodies[2998]
  end
  measure("string 3000 by lua_pushexternalstring", function(k) return U.extstring(pairsOf[k]) end)
end

-- Lua closures over upvalues that already exist (a new upvalue would be a separate object, not in the dump)
local u1, u2, u3 = {}, {}, {}
local function holder() return u1, u2, u3 end
measure("Lua closure, 0 upvalues", function() return function() return 1 end end, "once")
measure("Lua closure, 1 upvalue", function() return function() return u1 end end, "once")
measure("Lua closure, 3 upvalues", function() return function() return u1, u2, u3 end end, "once")

if U then
  for _, ups in ipairs({ 1, 2, 5 }) do
    measure("C closure, " .. ups .. " upvalues", function() return U.cclosure(ups) end)
  end
  if V == "5.1" or V == "jit" then
    measure("C closure, 0 upvalues", function() return U.cclosure(0) end)
  end
  for _, shape in ipairs({ { 0, 0 }, { 10, 0 }, { 10, 1 }, { 100, 3 }, { 4096, 0 } }) do
    local size, nuv = shape[1], shape[2]
    if nuv == 0 or V == "5.4" or V == "5.5" then
      measure("userdata " .. size .. " bytes, " .. nuv .. " user values", function() return U.newud(size, nuv) end)
    end
  end
end

-- a coroutine that has not run
local body = function() coroutine.yield() end
measure("coroutine, not started", function() return coroutine.create(body) end, "collect")


-- LuaJIT cdata: every kind of ctype, sized as lj_cdata.c allocates it
if V == "jit" then
  local ffi = require "ffi"
  ffi.cdef [[
    struct hl_point { double x, y; };
    struct hl_inner { int a; };
    struct hl_outer { struct hl_inner inner; };
    struct __attribute__((aligned(16))) hl_aligned16 { int x; };
    struct __attribute__((aligned(64))) hl_aligned64 { int x; };
    struct hl_vls { int n; double d[?]; };
    union hl_union { int i; double d; };
    enum hl_enum { HL_A, HL_B };
  ]]
  local types = {
    { "int", ffi.typeof("int") }, { "double", ffi.typeof("double") }, { "int64_t", ffi.typeof("int64_t") },
    { "bool", ffi.typeof("bool") }, { "complex", ffi.typeof("complex") }, { "uint8_t[3]", ffi.typeof("uint8_t[3]") },
    { "int[1000]", ffi.typeof("int[1000]") }, { "struct hl_point", ffi.typeof("struct hl_point") },
    { "union hl_union", ffi.typeof("union hl_union") }, { "enum hl_enum", ffi.typeof("enum hl_enum") },
    { "struct hl_aligned16", ffi.typeof("struct hl_aligned16") }, { "struct hl_aligned64", ffi.typeof("struct hl_aligned64") },
    { "void *", ffi.typeof("void *") }, { "int (*)(int)", ffi.typeof("int (*)(int)") },
  }
  for _, t in ipairs(types) do
    measure("cdata " .. t[1], function() return t[2]() end)
  end
  local vla, vls = ffi.typeof("int[?]"), ffi.typeof("struct hl_vls")
  for _, count in ipairs({ 0, 1, 7, 1000, 1048576 }) do
    measure("cdata int[?] of " .. count, function() return vla(count) end)
  end
  measure("cdata struct hl_vls of 10", function() return vls(10) end)
  local outer = ffi.typeof("struct hl_outer")()
  measure("cdata reference struct hl_inner &", function() return outer.inner end)
  local i64 = ffi.typeof("int64_t")
  measure("cdata 64-bit integer box", function(k) return i64(k) end)
end

local function finish()
  for i = 1, nlines do
    local l = lines[i]
    print(string.format("SIZE\t%s\t%d\t%s", key(l[1]), l[2], l[3]))
  end
  filler = nil
  heapdump.write((os.getenv("HEAPDUMP_DIR") or ".") .. "/sizes.json", { label = "sizes" })
end

if V == "5.5" then
  -- 5.5: a vararg table (function f(...t)) is made with room for exactly its arguments; the dumper knows it as
  -- such while its frame runs, so the dump is written from inside that frame
  local va = load("return function(f, ...t) local r = f(t) return r end")()
  local before
  local function inside(t)
    local bytes = (collectgarbage("count") - before) * 1024
    nlines = nlines + 1
    lines[nlines] = { t, bytes, "vararg table of 5" }
    finish()
  end
  collectgarbage("collect")
  collectgarbage("collect")
  va(function() return collectgarbage("count") end, 1, 2, 3, 4, 5)   -- the calls' CallInfos exist then
  before = collectgarbage("count")
  va(inside, 1, 2, 3, 4, 5)
else
  finish()
end
