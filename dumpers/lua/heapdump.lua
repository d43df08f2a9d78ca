--- heapdump.lua: writes a JSON heap snapshot of the running Lua state, for heapload.
--
-- One file, pure Lua (the debug library only); runs unchanged on Lua 5.1, 5.2, 5.3, 5.4 and LuaJIT 2.1.
--
--   local heapdump = require "heapdump"
--   heapdump.write("after.json", { label = "after" })   -- returns the number of objects written
--
-- Options (all optional):
--   label      text stored in the snapshot's "label" field
--   level      how many extra caller frames to leave out of the calling thread's stack (a wrapper such
--              as a test harness passes 1 to leave its own frame out); default 0
--   maxstring  write at most this many bytes of each string's contents (the record says "truncated")
--
-- What it does, in order: stops the collector (restored afterwards), records the calling thread's frames,
-- then walks the object graph breadth-first (iteratively, so 10^4-deep chains are fine) from the roots:
-- the registry, the globals, the main thread (5.2+), the per-type metatables (string, number, ...) and
-- the calling thread's stack. Every object is written once, as soon as it is reached, to the file
-- through a small buffer (the whole dump is never one string). Only objects reachable from those roots
-- are written, so the dumper's own tables, frames and file are not in the dump.
--
-- Identity: Lua 5.4 and LuaJIT: string.format("%p") (real addresses of every collectable, strings
-- included). Lua 5.1-5.3: the address tostring() prints (with the metatable removed for the call); strings
-- have no printable address there and get ids "s1", "s2", ... by content (equal strings are one string
-- object in those versions' string tables for short strings; a long string with equal content is folded
-- into one). A string record is always written before the first record that refers to it.
--
-- Sizes are estimates (x86_64, 64-bit builds; LuaJIT GC64) from the struct sizes of each version:
-- lobject.h / lstate.h / lfunc.h of Lua 5.1-5.4 and lj_obj.h of LuaJIT 2.1 (facts collected in heapload's
-- research notes on Lua-state snapshots). Table capacities are guessed as the next power of two of the
-- array border and of the number of other keys; userdata payload lengths and thread stack sizes are not
-- visible from Lua.
--
-- Schema: heapload's docs/reference/lua-dumper-format.md.

local M = {}

local debug, string, table, io, math = debug, string, table, io, math
local type, next, rawget, tostring, pcall, select = type, next, rawget, tostring, pcall, select
local format, byte, sub, gsub, find = string.format, string.byte, string.sub, string.gsub, string.find
local concat = table.concat
local getinfo, getlocal, getupvalue = debug.getinfo, debug.getlocal, debug.getupvalue
local getmetatable_, setmetatable_ = debug.getmetatable, debug.setmetatable
local getfenv_ = debug.getfenv
local getuservalue = debug.getuservalue
local upvalueid = debug.upvalueid
local mathtype = math.type
local huge = math.huge
local floor = math.floor

local VERSION = _VERSION
local JIT = rawget(_G, "jit")
local JITVERSION = type(JIT) == "table" and JIT.version or nil
-- "5.1", "5.2", "5.3", "5.4" or "jit"
local V = JITVERSION and "jit" or (VERSION:match("%d+%.%d+") or "5.4")
local HAS_P = pcall(format, "%p", M)               -- 5.4, LuaJIT
local LIGHT_C = V == "5.2" or V == "5.3" or V == "5.4"  -- C functions without upvalues are values, not objects
local NEG_LOCALS = V ~= "5.1"                       -- varargs via negative local indexes

-- size estimates in bytes, per version (see the header)
local SZ = ({
  ["5.1"] = { tab = 64, arr = 16, node = 40, str = 24, udata = 40, lcl = 40, lup = 8, ccl = 40, cup = 16,
              thread = 184 + 45 * 16, ci = 40 },
  ["5.2"] = { tab = 64, arr = 16, node = 40, str = 24, udata = 40, lcl = 32, lup = 8, ccl = 32, cup = 16,
              thread = 208 + 45 * 16, ci = 80 },
  ["5.3"] = { tab = 56, arr = 16, node = 32, str = 24, udata = 40, lcl = 32, lup = 8, ccl = 32, cup = 16,
              thread = 216 + 45 * 16, ci = 72 },
  ["5.4"] = { tab = 56, arr = 16, node = 24, str = 24, udata = 32, lcl = 32, lup = 8, ccl = 32, cup = 16,
              thread = 208 + 45 * 16, ci = 64 },
  jit     = { tab = 64, arr = 8, node = 24, str = 24, udata = 48, lcl = 40, lup = 8, ccl = 48, cup = 8,
              thread = 96 + 48 * 8, ci = 0 },
})[V] or {}

local function pow2(n)
  local p = 1
  while p < n do p = p * 2 end
  return p
end

-- JSON text of a string: escapes ", \ and control bytes; bytes that are not valid UTF-8 become U+FFFD
-- (the record then also carries "hex" with the exact bytes).
local ESC = {}
for i = 0, 31 do ESC[string.char(i)] = format("\\u%04x", i) end
ESC["\""], ESC["\\"], ESC["\n"], ESC["\r"], ESC["\t"], ESC["\127"] = "\\\"", "\\\\", "\\n", "\\r", "\\t", "\\u007f"

local function utf8fix(s)
  -- returns s when it is valid UTF-8, else a copy with each invalid byte replaced by U+FFFD, and false
  if not find(s, "[\128-\255]") then return s, true end
  local out, n, i, len, ok = {}, 0, 1, #s, true
  local from = 1
  while i <= len do
    local c = byte(s, i)
    local need, lo, hi = 0, 0x80, 0xBF
    if c < 0x80 then need = 0
    elseif c >= 0xC2 and c <= 0xDF then need = 1
    elseif c == 0xE0 then need, lo = 2, 0xA0
    elseif c == 0xED then need, hi = 2, 0x9F
    elseif c >= 0xE1 and c <= 0xEF then need = 2
    elseif c == 0xF0 then need, lo = 3, 0x90
    elseif c >= 0xF1 and c <= 0xF3 then need = 3
    elseif c == 0xF4 then need, hi = 3, 0x8F
    else need = -1 end
    local good = need >= 0
    if need > 0 then
      for j = 1, need do
        local d = byte(s, i + j)
        local l, h = 0x80, 0xBF
        if j == 1 then l, h = lo, hi end
        if not d or d < l or d > h then good = false; break end
      end
    end
    if good then
      i = i + need + 1
    else
      ok = false
      n = n + 1; out[n] = sub(s, from, i - 1)
      n = n + 1; out[n] = "\239\191\189"
      i = i + 1
      from = i
    end
  end
  if ok then return s, true end
  n = n + 1; out[n] = sub(s, from)
  return concat(out), false
end

local function jstr(s)
  return "\"" .. (gsub(s, "[%c\"\\]", ESC)) .. "\""
end

local function hex(s)
  return (gsub(s, ".", function(c) return format("%02x", byte(c)) end))
end

local function jnum(n)
  if n ~= n then return "{\"num\":\"nan\"}" end
  if n == huge then return "{\"num\":\"inf\"}" end
  if n == -huge then return "{\"num\":\"-inf\"}" end
  if mathtype and mathtype(n) == "integer" then return format("%d", n) end
  return format("%.17g", n)
end

--- Writes a heap snapshot of the running state to `path` (JSON, UTF-8).
-- @param path    file to create (overwritten)
-- @param options table (see the header) or nil
-- @return the number of objects written
function M.write(path, options)
  options = options or {}
  local extra = options.level or 0
  -- a buffer larger than LUAL_BUFFERSIZE (5.3: 8 KiB, 5.4: 1 KiB) makes lauxlib create its box metatable
  -- in the registry once ("LUABOX" in 5.3, "_UBOX*" in 5.4); create it now, before the walk, so it is not
  -- a "new" object in a later snapshot
  local _ = string.rep("x", 131072)
  _ = nil
  local running = true
  if V ~= "5.1" then running = collectgarbage("isrunning") end
  collectgarbage("stop")

  -- the calling thread's frames: level 1 is this function, 2 its caller
  local stack = {}
  do
    local level = 2 + extra
    while true do
      local info = getinfo(level, "Slnf")
      if not info then break end
      local locals, varargs = {}, {}
      local i = 1
      while true do
        local name, value = getlocal(level, i)
        if name == nil then break end
        locals[i] = { name, value }
        i = i + 1
      end
      if NEG_LOCALS then
        i = 1
        while true do
          local okv, name, value = pcall(getlocal, level, -i)
          if not okv or name == nil then break end
          varargs[i] = { value }
          i = i + 1
        end
      end
      stack[#stack + 1] = { info = info, locals = locals, varargs = varargs, level = level - 1 - extra }
      level = level + 1
    end
  end

  local ok, result = pcall(M._dump, path, options, stack)
  if running then collectgarbage("restart") end
  if not ok then error(result, 2) end
  return result
end

-- the walk; separate so that write() can restore the collector on errors.
-- Output goes piece by piece into a buffer that is handed to file:write as separate arguments, so the
-- walk makes almost no garbage (the collector is stopped while it runs): no record is concatenated.
function M._dump(path, options, stack)
  local f = assert(io.open(path, "wb"))
  local unpack = table.unpack or unpack
  local buf, nbuf = {}, 0
  local function flush()
    if nbuf > 0 then f:write(unpack(buf, 1, nbuf)) end
    nbuf = 0
  end
  local function out(s)
    nbuf = nbuf + 1
    buf[nbuf] = s
    if nbuf >= 512 then flush() end
  end

  local maxstring = options.maxstring
  local ids = {}           -- object -> its id as a JSON string (with the quotes)
  local queue, qhead, qtail = {}, 1, 0
  local nstrings, nobjects, nsynthetic = 0, 0, 0
  local bytes = 0
  local sep = "\n"         -- before the next record
  -- 5.2+: (thread, ismain); 5.1 and LuaJIT: nil on the main thread, else the coroutine
  local runningThread, isMain = coroutine.running()
  if isMain == nil then isMain = runningThread == nil end

  local function addr(v)
    if HAS_P then return format("%p", v) end
    local mt = getmetatable_(v)
    local s
    if mt ~= nil then
      setmetatable_(v, nil)
      s = tostring(v)
      setmetatable_(v, mt)
    else
      s = tostring(v)
    end
    local a = s:match("0x%x+")
    if a then return a end
    nsynthetic = nsynthetic + 1
    return "o" .. nsynthetic
  end

  local function emitstring(s, qid)
    local len = #s
    local size = SZ.str + len + 1
    bytes = bytes + size
    local text, truncated = s, false
    if maxstring and len > maxstring then text, truncated = sub(s, 1, maxstring), true end
    local fixed, valid = utf8fix(text)
    out(sep); out(qid); out(":{\"type\":\"string\",\"len\":"); out(len); out(",\"size\":"); out(size)
    out(",\"value\":"); out(jstr(fixed))
    if not valid then out(",\"hex\":\""); out(hex(text)); out("\"") end
    if truncated then out(",\"truncated\":true") end
    out("}")
    sep = ",\n"
    nobjects = nobjects + 1
  end

  -- the quoted id of a collectable value, scheduling it for the walk on first sight; a string's record
  -- is written at once, so call this (through pre) before starting the record that refers to it
  local function id(v)
    local i = ids[v]
    if i then return i end
    if type(v) == "string" then
      if HAS_P then i = "\"" .. format("%p", v) .. "\"" else nstrings = nstrings + 1; i = "\"s" .. nstrings .. "\"" end
      ids[v] = i
      emitstring(v, i)
      return i
    end
    i = "\"" .. addr(v) .. "\""
    ids[v] = i
    qtail = qtail + 1
    queue[qtail] = v
    return i
  end

  -- light userdata are values, not objects: 5.1/LuaJIT full userdata always have an environment table;
  -- on 5.4 debug.setuservalue refuses a light userdata (an out-of-range index leaves a full one unchanged);
  -- 5.2/5.3 cannot tell them apart from Lua (they are written as userdata objects there)
  local function islightud(u)
    if V == "5.1" or V == "jit" then return getfenv_(u) == nil end
    if V == "5.4" then return not pcall(debug.setuservalue, u, nil, 0x7fffffff) end
    return false
  end

  local function islight(fn)
    if not LIGHT_C then return false end
    local info = getinfo(fn, "Su")
    return info.what == "C" and info.nups == 0
  end

  local function ptr(v)
    return HAS_P and format("%p", v) or tostring(v):match("0x%x+") or "?"
  end

  -- JSON text of a value: a string = an object id; numbers, booleans; special values as objects
  local function val(v)
    local t = type(v)
    if t == "number" then
      -- file:write prints integers exactly (5.3+: LUA_INTEGER_FMT; 5.1/LuaJIT: "%.14g", exact below 10^14),
      -- so they go out as numbers and make no string
      if (mathtype and mathtype(v) == "integer") or (v == floor(v) and v > -1e14 and v < 1e14) then return v end
      return jnum(v)
    end
    if t == "boolean" then return v and "true" or "false" end
    if t == "nil" then return "null" end
    local i = ids[v]
    if i then return i end
    if t == "userdata" and islightud(v) then return "{\"lud\":\"" .. ptr(v) .. "\"}" end
    if t == "function" and islight(v) then return "{\"lightcfunction\":\"" .. ptr(v) .. "\"}" end
    return id(v)
  end

  -- writes a string's record now if it has none yet (before a record that refers to it is started)
  local function pre(v)
    if type(v) == "string" and not ids[v] then id(v) end
  end

  local function preframes(list)
    for k = 1, #list do
      local fr = list[k]
      for j = 1, #fr.locals do pre(fr.locals[j][2]) end
      for j = 1, #fr.varargs do pre(fr.varargs[j][1]) end
    end
  end

  local function frames(list)
    out(",\"frames\":[")
    for k = 1, #list do
      local fr = list[k]
      local info = fr.info
      if k > 1 then out(",") end
      out("{\"level\":"); out(fr.level); out(",\"what\":"); out(jstr(info.what or "?"))
      out(",\"source\":"); out(jstr(info.short_src or "?")); out(",\"line\":"); out(info.currentline or -1)
      if info.linedefined and info.linedefined > 0 then out(",\"linedefined\":"); out(info.linedefined) end
      if info.name then out(",\"name\":"); out(jstr(info.name)) end
      if info.func and not islight(info.func) then out(",\"func\":"); out(val(info.func)) end
      out(",\"locals\":[")
      for j = 1, #fr.locals do
        local l = fr.locals[j]
        if j > 1 then out(",") end
        out("{\"name\":"); out(jstr(l[1])); out(",\"value\":"); out(val(l[2])); out("}")
      end
      out("]")
      if #fr.varargs > 0 then
        out(",\"varargs\":[")
        for j = 1, #fr.varargs do
          if j > 1 then out(",") end
          out(val(fr.varargs[j][1]))
        end
        out("]")
      end
      out("}")
    end
    out("]")
  end

  -- frames of another thread, read through debug.getinfo(co, level)
  local function threadframes(co)
    local list = {}
    local level = 0
    while true do
      local info = getinfo(co, level, "Slnf")
      if not info then break end
      local locals, varargs = {}, {}
      local i = 1
      while true do
        local name, value = getlocal(co, level, i)
        if name == nil then break end
        locals[i] = { name, value }
        i = i + 1
      end
      if NEG_LOCALS then
        i = 1
        while true do
          local okv, name, value = pcall(getlocal, co, level, -i)
          if not okv or name == nil then break end
          varargs[i] = { value }
          i = i + 1
        end
      end
      list[#list + 1] = { info = info, locals = locals, varargs = varargs, level = level }
      level = level + 1
    end
    return list
  end

  local function start(v, t)
    out(sep); out(ids[v]); out(":{\"type\":\""); out(t); out("\"")
    sep = ",\n"
  end

  local function walk(v)
    local t = type(v)
    local size = 0
    if t == "table" then
      for k, x in next, v do pre(k); pre(x) end
      start(v, t)
      local mt = getmetatable_(v)
      if mt ~= nil then out(",\"metatable\":"); out(val(mt)) end
      local mode = mt ~= nil and rawget(mt, "__mode")
      if type(mode) == "string" then
        local w = (find(mode, "k", 1, true) and "k" or "") .. (find(mode, "v", 1, true) and "v" or "")
        if w ~= "" then out(",\"weak\":\""); out(w); out("\"") end
      end
      local border = #v   -- raw length on 5.1/LuaJIT (no __len for tables there)
      if V ~= "5.1" and V ~= "jit" then border = rawlen(v) end
      local narr, nhash, first = 0, 0, true
      out(",\"pairs\":[")
      for k, x in next, v do
        if first then out("[") else out(",[") end
        first = false
        out(val(k)); out(","); out(val(x)); out("]")
        if type(k) == "number" and k >= 1 and k <= border and floor(k) == k then narr = narr + 1
        else nhash = nhash + 1 end
      end
      out("],\"narr\":"); out(narr); out(",\"nhash\":"); out(nhash)
      size = SZ.tab + (narr > 0 and pow2(narr) * SZ.arr or 0) + (nhash > 0 and pow2(nhash) * SZ.node or 0)
    elseif t == "function" then
      local info = getinfo(v, "Su")
      local nups = info.nups or 0
      local isC = info.what == "C"
      local env = getfenv_ and getfenv_(v) or nil
      for i = 1, nups do
        local name, x = getupvalue(v, i)
        if name == nil then break end
        pre(x)
      end
      start(v, t)
      size = isC and (SZ.ccl + SZ.cup * nups) or (SZ.lcl + SZ.lup * nups)
      out(",\"what\":"); out(jstr(info.what)); out(",\"source\":"); out(jstr(info.short_src or "?"))
      out(",\"linedefined\":"); out(info.linedefined or -1)
      out(",\"lastlinedefined\":"); out(info.lastlinedefined or -1)
      out(",\"nups\":"); out(nups)
      if env ~= nil then out(",\"env\":"); out(val(env)) end
      out(",\"upvalues\":[")
      for i = 1, nups do
        local name, x = getupvalue(v, i)
        if name == nil then break end
        if i > 1 then out(",") end
        out("{\"name\":"); out(jstr(name)); out(",\"value\":"); out(val(x))
        if upvalueid and not isC then
          local okid, uid = pcall(upvalueid, v, i)
          if okid and uid ~= nil then out(",\"uid\":\""); out(ptr(uid)); out("\"") end
        end
        out("}")
      end
      out("]")
    elseif t == "thread" then
      local list
      if v == runningThread then list = stack else list = threadframes(v) end
      preframes(list)
      start(v, t)
      local status = (v == runningThread) and "running" or coroutine.status(v)
      out(",\"status\":\""); out(status); out("\"")
      if getfenv_ then
        local env = getfenv_(v)
        if env ~= nil then out(",\"env\":"); out(val(env)) end
      end
      size = SZ.thread + SZ.ci * (#list + 1)
      frames(list)
    elseif t == "userdata" then
      local mt = getmetatable_(v)
      local name = mt ~= nil and rawget(mt, "__name")
      local uvs, nuv = {}, 0
      if V == "5.4" then
        while true do
          local x, present = getuservalue(v, nuv + 1)
          if not present then break end
          nuv = nuv + 1
          uvs[nuv] = x
        end
      elseif getuservalue then
        local x = getuservalue(v)
        if x ~= nil then nuv = 1; uvs[1] = x end
      end
      for i = 1, nuv do pre(uvs[i]) end
      start(v, t)
      size = SZ.udata
      if nuv > 0 and V == "5.4" then size = size + 8 + 16 * nuv end
      out(",\"payloadSizeUnknown\":true")
      if mt ~= nil then out(",\"metatable\":"); out(val(mt)) end
      if type(name) == "string" then out(",\"name\":"); out(jstr(name)) end
      if nuv > 0 then
        out(",\"uservalues\":[")
        for i = 1, nuv do
          if i > 1 then out(",") end
          out(val(uvs[i]))
        end
        out("]")
      end
      if getfenv_ and not getuservalue then
        local env = getfenv_(v)
        if env ~= nil then out(",\"env\":"); out(val(env)) end
      end
    else
      -- LuaJIT cdata (and anything else a future version adds)
      start(v, t)
      out(",\"repr\":"); out(jstr(tostring(v)))
      size = 16
    end
    out(",\"size\":"); out(size); out("}")
    bytes = bytes + size
    nobjects = nobjects + 1
  end

  -- header
  out("{\"format\":\"lua-heap-snapshot\",\"formatVersion\":1,\n\"lua\":{\"version\":" .. jstr(VERSION)
    .. ",\"jit\":" .. (JITVERSION and jstr(JITVERSION) or "null")
    .. ",\"addressesAreReal\":true,\"stringIds\":" .. (HAS_P and "\"address\"" or "\"content\"") .. "},\n"
    .. "\"dumper\":{\"name\":\"heapload heapdump.lua\",\"kind\":\"pure-lua\",\"sizes\":\"estimated\"},\n"
    .. "\"label\":" .. (options.label and jstr(tostring(options.label)) or "null") .. ",\n"
    .. "\"stats\":{\"gcCountKB\":" .. jnum(collectgarbage("count")) .. "},\n\"objects\":{")

  -- roots, in this order; their values are scheduled (strings written) before the walk
  local registry = debug.getregistry()
  local globals
  if V == "5.1" or V == "jit" then globals = rawget(_G, "getfenv")(0) else globals = rawget(registry, 2) end
  local mainthread = nil
  if V ~= "5.1" and V ~= "jit" then mainthread = rawget(registry, 1) end
  local roots = { { "registry", val(registry) }, { "globals", val(globals) } }
  if mainthread ~= nil then roots[#roots + 1] = { "mainthread", val(mainthread) } end
  local mts = {}
  local samples = { { "string", "" }, { "number", 0 }, { "boolean", true }, { "nil", nil }, { "function", print } }
  for _, s in ipairs(samples) do
    local mt = getmetatable_(s[2])
    if mt ~= nil then mts[#mts + 1] = { s[1], val(mt) } end
  end
  preframes(stack)
  local stackvals = {}
  for k = 1, #stack do
    local fr = stack[k]
    if fr.info.func then stackvals[#stackvals + 1] = val(fr.info.func) end
    for j = 1, #fr.locals do stackvals[#stackvals + 1] = val(fr.locals[j][2]) end
    for j = 1, #fr.varargs do stackvals[#stackvals + 1] = val(fr.varargs[j][1]) end
  end
  local ct = runningThread ~= nil and val(runningThread) or "null"

  while qhead <= qtail do
    local v = queue[qhead]
    queue[qhead] = nil
    qhead = qhead + 1
    walk(v)
  end

  out("\n},\n\"roots\":{")
  for i = 1, #roots do
    if i > 1 then out(",") end
    out("\""); out(roots[i][1]); out("\":"); out(roots[i][2])
  end
  out(",\"typeMetatables\":{")
  for i = 1, #mts do
    if i > 1 then out(",") end
    out("\""); out(mts[i][1]); out("\":"); out(mts[i][2])
  end
  out("},\"callstack\":{\"thread\":"); out(ct); out(",\"ismain\":"); out(tostring(isMain ~= false))
  frames(stack)
  out("}},\n\"summary\":{\"objects\":"); out(nobjects); out(",\"estimatedBytes\":"); out(bytes); out("}}\n")
  flush()
  f:close()
  return nobjects
end

return M
