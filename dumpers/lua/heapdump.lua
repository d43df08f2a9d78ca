--- heapdump.lua: writes a JSON heap snapshot of the running Lua state, for heapload.
--
-- One file, pure Lua (the debug library; LuaJIT's ffi library for cdata); runs unchanged on Lua 5.1, 5.2, 5.3, 5.4,
-- 5.5 and LuaJIT 2.1. An optional C helper, heapdump_native.c beside this file (built against the program's Lua
-- headers, found through package.cpath), shows what the debug library hides: see docs/reference/lua-dumper-format.md.
--
--   local heapdump = require "heapdump"
--   heapdump.write("after.json", { label = "after" })   -- returns the number of objects written
--
-- Options (all optional):
--   label      text stored in the snapshot's "label" field
--   level      how many extra caller frames to leave out of the calling thread's stack (a wrapper such
--              as a test harness passes 1 to leave its own frame out); default 0
--   maxstring  write at most this many bytes of each string's contents (the record says "truncated")
--   maxframes  at most this many frames per thread (the top ones and the 20 oldest; the dump says how many it
--              left out): the debug library finds frame n in n steps, so 10^5 frames would take minutes;
--              default 5000
--   native     false: do not use heapdump_native even when it is on package.cpath
--
-- Allocation sites (needs heapdump_native): heapdump.track(true) records, for every object allocated from then on,
-- the source line and function that allocated it; heapdump.track(false) stops recording (the sites of the objects
-- still alive are kept). Each later dump gives such objects a "site"; objects allocated while not tracking have none.
--
-- What it does, in order, in a coroutine of its own (the caller's stack may have no room left): stops the collector
-- when it runs (restored afterwards; Lua 5.1 cannot tell whether it runs, so there it is left as it is), records
-- the calling thread's frames, then walks the object graph
-- breadth-first (iteratively, so 10^4-deep chains are fine) from the roots: the registry, the globals, the
-- main thread, the per-type metatables (string, number, ...) and the calling thread's stack. Every object is
-- written once, as soon as it is reached, to the file through a small buffer (the whole dump is never one
-- string). Only objects reachable from those roots are written, so the dumper's own tables, frames and file
-- are not in the dump. The file is written as PATH.tmp and renamed to PATH at the end: a dump that fails
-- leaves no file behind, says why on stderr and raises the error.
--
-- Identity: Lua 5.4, 5.5 and LuaJIT: string.format("%p") (real addresses of every collectable, strings
-- included). Lua 5.1-5.3: the address tostring() prints (a __tostring taken out of the metatable for the call); strings
-- have no printable address there and get ids "s1", "s2", ... by content. A string record is always written
-- before the first record that refers to it.
--
-- Sizes (x86_64, 64-bit builds; LuaJIT GC64), in bytes as the VM's allocator counts them
-- (collectgarbage("count")), from each version's struct sizes checked against that count: see
-- docs/reference/lua-dumper-format.md. Table capacities are guessed as the next power of two of the array border and of the
-- number of other keys (what insertion gives; constructors and table.pack size exactly); thread stacks are
-- estimated.
--
-- Schema: heapload's docs/reference/lua-dumper-format.md.

local M = {}

local debug, string, table, io, math, os = debug, string, table, io, math, os
local type, next, rawget, rawset, tostring, pcall, error = type, next, rawget, rawset, tostring, pcall, error
local format, byte, sub, gsub, find = string.format, string.byte, string.sub, string.gsub, string.find
local getinfo, getlocal, getupvalue = debug.getinfo, debug.getlocal, debug.getupvalue
local getmetatable_ = debug.getmetatable
local getfenv_ = debug.getfenv
local getuservalue = debug.getuservalue
local upvalueid = debug.upvalueid
-- the library functions the dumper calls, as they are when it is loaded (a program may wrap them later)
local cocreate, coresume, costatus, corunning = coroutine.create, coroutine.resume, coroutine.status, coroutine.running
local rename, remove, open, stderr = os.rename, os.remove, io.open, io.stderr
local rep, max = string.rep, math.max
local mathtype = math.type
local huge = math.huge
local floor = math.floor
local collectgarbage = collectgarbage

local VERSION = _VERSION
local JIT = rawget(_G, "jit")
local JITVERSION = type(JIT) == "table" and JIT.version or nil
-- "5.1" ... "5.5" or "jit" (a later 5.x is sized as 5.5 and says so)
local V = JITVERSION and "jit" or (VERSION:match("%d+%.%d+") or "5.4")
local KNOWN = { ["5.1"] = true, ["5.2"] = true, ["5.3"] = true, ["5.4"] = true, ["5.5"] = true, jit = true }
local SV = KNOWN[V] and V or "5.5"                  -- the version whose layouts size the objects
local OLD = V == "5.1" or V == "jit"                -- no main thread in the registry, function environments
-- the types written as objects; any other (LuaJIT's "trace" and "proto", seen in stack slots) is a value
local WALKED = { table = true, ["function"] = true, thread = true, userdata = true, cdata = true, string = true }
local HAS_P = pcall(format, "%p", M)                -- 5.4+, LuaJIT
local LIGHT_C = not OLD                             -- C functions without upvalues are values, not objects
local NEG_LOCALS = V ~= "5.1"                       -- varargs via negative local indexes

-- the optional C helper (heapdump_native.c): loaded now, so that on 5.1/LuaJIT it learns the main thread when
-- this module is loaded on it
local NATIVE
local TRACKED, TRACKING, JITWASON = false, false, nil   -- heapdump.track: ever on, on now, LuaJIT's JIT was on
do
  local ok, m = pcall(require, "heapdump_native")
  if ok and type(m) == "table" and type(m.getupvalue) == "function" then NATIVE = m end
end

-- a buffer larger than LUAL_BUFFERSIZE makes lauxlib create its box metatable in the registry once ("LUABOX" in
-- 5.3, "_UBOX*" in 5.4+); create it now, on loading, so it is not a "new" object in a later snapshot
do local _ = rep("x", 8192) end

-- the ffi library (LuaJIT) for cdata sizes: the program's, else loaded at the first cdata (loading it on load would add
-- the ffi module's objects to every snapshot)
local FFI
local function ffi()
  if FFI == nil and V == "jit" then
    local loaded = rawget(package or {}, "loaded")
    local m = loaded and rawget(loaded, "ffi")
    if type(m) ~= "table" then
      local ok, r = pcall(require, "ffi")
      m = ok and r or nil
    end
    FFI = type(m) == "table" and m or false
  end
  return FFI
end

-- Sizes in bytes, per version, as each VM's allocator counts them (x86_64; LuaJIT GC64): tab = the table
-- header, slot = one array slot, node = one hash node, str = the string header, lstr = the header of a 5.5 long
-- string, xstr = a 5.5 external string (lua_pushexternalstring: its bytes are not the VM's), lcl/lup = a Lua
-- closure and each upvalue slot, ccl/cup = a C closure and each upvalue, ud = a userdata header (5.4+: without
-- user values), uv = each user value (5.4+, plus 8 once), thread = a coroutine that has not run, ci = each
-- CallInfo beyond the first.
local SZ = ({
  ["5.1"] = { tab = 64, slot = 16, node = 40, str = 24, lcl = 40, lup = 8, ccl = 40, cup = 16, ud = 40,
              thread = 1224, ci = 40 },
  ["5.2"] = { tab = 56, slot = 16, node = 40, str = 24, lcl = 32, lup = 8, ccl = 32, cup = 16, ud = 40,
              thread = 752, ci = 80 },
  ["5.3"] = { tab = 56, slot = 16, node = 32, str = 24, lcl = 32, lup = 8, ccl = 32, cup = 16, ud = 40,
              thread = 760, ci = 72 },
  ["5.4"] = { tab = 56, slot = 16, node = 24, str = 24, lcl = 32, lup = 8, ccl = 32, cup = 16, ud = 32, uv = 16,
              thread = 928, ci = 64 },
  ["5.5"] = { tab = 48, slot = 9, node = 24, str = 24, lstr = 32, xstr = 48, lcl = 32, lup = 8, ccl = 32, cup = 16,
              ud = 32, uv = 16, thread = 936, ci = 64 },
  jit     = { tab = 64, slot = 8, node = 24, str = 24, lcl = 40, lup = 8, ccl = 48, cup = 8, ud = 48,
              thread = 472, ci = 0 },
})[SV]

local function pow2(n)
  local p = 1
  while p < n do p = p * 2 end
  return p
end

-- bytes of a table with `narr` keys in its array part (`exact`: the array's real capacity when known) and
-- `nhash` other keys
local function tablesize(narr, nhash, exact)
  local a = exact or (narr > 0 and pow2(narr) or 0)
  local arr
  if SV == "jit" then
    -- lj_tab.c: slot 0 is part of the array; a table filled by insertion gets at least 2 + 1 slots
    if exact then arr = (a + 1) * 8 elseif narr > 0 then arr = (pow2(narr < 2 and 2 or narr) + 1) * 8 else arr = 0 end
    local h = nhash > 0 and pow2(nhash < 2 and 2 or nhash) or 0
    return SZ.tab + arr + h * SZ.node
  end
  local h = nhash > 0 and pow2(nhash) or 0
  if SV == "5.5" then
    -- values and one tag byte per slot, and an unsigned; a node part of 8 nodes or more keeps its free pointer
    -- in front of the nodes
    return SZ.tab + (a > 0 and a * SZ.slot + 4 or 0) + h * SZ.node + (h >= 8 and 8 or 0)
  end
  return SZ.tab + a * SZ.slot + h * SZ.node
end

-- bytes of a string of `len` bytes; second result: true for a 5.5 external string
local function stringsize(s, len)
  if SV == "jit" then return SZ.str + len + 4 - (len % 4), false end   -- lj_str.c: len + 1 rounded up to 4
  if SZ.lstr and len > 40 then                                         -- 5.5 long strings (LUAI_MAXSHORTLEN 40)
    if NATIVE and NATIVE.stroffset then
      local off = NATIVE.stroffset(s)
      if off and off ~= SZ.str and off ~= SZ.lstr then return SZ.xstr, true end
    end
    return SZ.lstr + len + 1, false
  end
  return SZ.str + len + 1, false
end

-- bytes of a LuaJIT cdata (lj_cdata.c): the payload (ffi.sizeof of the value) after a 16-byte header; VLA/VLS
-- and types aligned to more than 8 bytes get 8 more bytes of header and the alignment padding
local function cdatasize(v)
  local FFI = ffi()
  if not FFI then return 16, nil end
  local okt, ct = pcall(FFI.typeof, v)
  if not okt then return 16, nil end
  local cts = tostring(ct)
  local payload, var
  if find(cts, "&>$") then
    payload = 8                                   -- a reference: a boxed pointer
  else
    local okf, fixed = pcall(FFI.sizeof, ct)
    if not okf then
      var = true                                  -- VLA / VLS: the size of this value
      local okv, n = pcall(FFI.sizeof, v)
      payload = okv and n or 0
    else
      payload = fixed or 8                        -- a C function: its address
    end
  end
  local oka, align = pcall(FFI.alignof, ct)
  align = oka and align or 8
  if var or align > 8 then
    return payload + 24 + (align > 8 and align - 8 or 0), cts
  end
  return payload + 16, cts
end

-- JSON text of a string: escapes ", \ and control bytes; bytes that are not valid UTF-8 become U+FFFD
-- (the record then also carries "hex" with the exact bytes).
local ESC = {}
for i = 0, 31 do ESC[string.char(i)] = format("\\u%04x", i) end
ESC["\""], ESC["\\"], ESC["\n"], ESC["\r"], ESC["\t"], ESC["\127"] = "\\\"", "\\\\", "\\n", "\\r", "\\t", "\\u007f"

local function jstr(s)
  return "\"" .. (gsub(s, "[%c\"\\]", ESC)) .. "\""
end

-- The dumper makes no long string from a long one: pieces of at most CHUNK bytes (a gsub result of more than
-- LUAL_BUFFERSIZE bytes goes through a userdata box, and Lua 5.5.0 then runs a collection even when the
-- collector is stopped, clearing weak tables under the walk).
local CHUNK = 128

-- writes the JSON text of the bytes s[from..to] (no quotes) through out, escaped, piece by piece
local function escaped(out, s, from, to)
  for i = from, to, CHUNK do
    local j = i + CHUNK - 1
    if j > to then j = to end
    out((gsub(sub(s, i, j), "[%c\"\\]", ESC)))
  end
end

-- writes the first n bytes of s as a JSON string through out; bytes that are not valid UTF-8 become U+FFFD.
-- Returns false when there were such bytes.
local function jsonstring(out, s, n)
  out("\"")
  if not find(s, "[\128-\255]") then
    escaped(out, s, 1, n)
    out("\"")
    return true
  end
  local ok, i, from = true, 1, 1
  while i <= n do
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
    local good = need >= 0 and i + need <= n
    if good and need > 0 then
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
      escaped(out, s, from, i - 1)
      out("\239\191\189")
      i = i + 1
      from = i
    end
  end
  escaped(out, s, from, n)
  out("\"")
  return ok
end

-- writes the hex digits of the first n bytes of s through out, piece by piece
local function hexdigits(out, s, n)
  for i = 1, n, CHUNK do
    local j = i + CHUNK - 1
    if j > n then j = n end
    out(format(rep("%02x", j - i + 1), byte(s, i, j)))
  end
end

local function jnum(n)
  if n ~= n then return "{\"num\":\"nan\"}" end
  if n == huge then return "{\"num\":\"inf\"}" end
  if n == -huge then return "{\"num\":\"-inf\"}" end
  if mathtype and mathtype(n) == "integer" then return format("%d", n) end
  return format("%.17g", n)
end

-- The standard library's C functions (found when this module is loaded, so
-- a coroutine.wrap generator the program stores later in a library table is not one of them). On 5.1 the
-- debug library cannot read C upvalues: a builtin (pairs, ipairs, newproxy) hides nothing of the program's.
local BUILTIN = setmetatable({}, { __mode = "k" })
do
  local loaded = rawget(package or {}, "loaded") or {}
  for _, lib in ipairs({ "_G", "coroutine", "string", "table", "math", "io", "os", "debug", "package", "utf8",
                         "bit", "bit32", "jit", "ffi" }) do
    local t = rawget(loaded, lib)
    if type(t) == "table" then
      for k, f in next, t do
        if type(k) == "string" and type(f) == "function" and BUILTIN[f] == nil then
          local ok, info = pcall(getinfo, f, "S")
          if ok and info and info.what == "C" then BUILTIN[f] = true end
        end
      end
    end
  end
end

-- Frames of a thread (`co`; nil: the calling thread, its levels counted as getinfo counts them in capture's caller),
-- from level `first`: at most `max`; when there are more, the top ones and the BOTTOM oldest (the debug library walks
-- n frames to reach frame n: 10^5 frames deep, each bottom frame costs milliseconds). Returns the list and how many
-- frames were left out.
local BOTTOM = 20
local function capture(co, first, max)
  -- levels of the calling thread as seen from here; no tail calls below (a tail call takes its caller's level away)
  local function gi(level, what)
    local info
    if co then info = getinfo(co, level, what) else info = getinfo(level + 2, what) end   -- gi, capture
    return info
  end
  local function gl(level, i)
    local name, value
    if co then name, value = getlocal(co, level, i) else name, value = getlocal(level + 3, i) end   -- gl, frame, capture
    return name, value
  end
  local function pgl(level, i)
    local ok, name, value
    if co then ok, name, value = pcall(getlocal, co, level, i)
    else ok, name, value = pcall(getlocal, level + 4, i) end            -- pcall, pgl, frame, capture
    return ok, name, value
  end
  local function frame(level, info)
    local locals, varargs = {}, {}
    local i = 1
    while true do
      local name, value = gl(level, i)
      if name == nil then break end
      locals[i] = { name, value }
      i = i + 1
    end
    if NEG_LOCALS then
      i = 1
      while true do
        local okv, name, value = pgl(level, -i)
        if not okv or name == nil then break end
        varargs[i] = { value }
        i = i + 1
      end
    end
    return { info = info, locals = locals, varargs = varargs, level = level - first + (co and first or 0) }
  end
  local list, n = {}, 0
  local level = first
  while true do
    if n >= max and gi(level, "l") then break end
    local info = gi(level, "Slnfu")
    if not info then return list, 0 end
    n = n + 1
    list[n] = frame(level, info)
    level = level + 1
  end
  -- more than max: find the deepest level (doubling, then halving), keep the top half, add the bottom half
  local lo, hi = level, level + 1
  while gi(hi, "l") do lo = hi; hi = level + (hi - level + 1) * 2 end
  while hi - lo > 1 do
    local mid = floor((lo + hi) / 2)
    if gi(mid, "l") then lo = mid else hi = mid end
  end
  local last = lo
  local bottom = floor(max / 2)
  if bottom > BOTTOM then bottom = BOTTOM end
  local top = max - bottom
  for k = top + 1, n do list[k] = nil end
  n = top
  for l = last - bottom + 1, last do
    local info = gi(l, "Slnfu")
    if info then n = n + 1; list[n] = frame(l, info) end
  end
  return list, (last - first + 1) - n
end

-- The body of write(), in the walk's coroutine (or, where no coroutine can start, in the caller's thread): stops the
-- collector, reads the calling thread's frames when they were not read yet, walks, restores the collector, renames the
-- file. Returns true and the object count, or false and why.
local function writeIn(path, options, countKB, runningThread, isMain, stack, omitted, stackError, main)
  local extra = options.level or 0
  local native = NATIVE
  if options.native == false then native = nil end
  local sites = native and native.sitesbegin and TRACKED and native.sitesbegin() or nil
  -- the collector: stopped for the walk when it runs (so no finalizer changes the heap meanwhile) and restarted
  -- afterwards. Inside a finalizer (5.4+) collectgarbage answers nothing and the collector does not run. Lua 5.1
  -- has no "isrunning": the collector is left as it is there.
  local running, collector = false, "unknown"
  if V ~= "5.1" then
    local ok, r = pcall(collectgarbage, "isrunning")
    if ok and r == true then running, collector = true, "running"
    elseif ok and r == false then collector = "stopped" end
  end
  if running then collectgarbage("stop") end
  local caller = runningThread
  if caller == nil and native then caller = main end
  local tmp = path .. ".tmp"
  if isMain == nil then isMain = runningThread == nil end
  local ok, result = pcall(M._dump, tmp, options, stack, omitted, countKB, collector, native, runningThread, isMain,
    caller, 2 + extra, stackError, sites)
  if sites then native.sitesend() end
  if running then pcall(collectgarbage, "restart") end
  if ok then
    local renamed, why = rename(tmp, path)
    if not renamed then
      remove(path)                              -- Windows: rename does not replace
      renamed, why = rename(tmp, path)
    end
    if renamed then return true, result end
    ok, result = false, "cannot rename " .. tmp .. " to " .. path .. ": " .. tostring(why)
  end
  remove(tmp)
  return false, result
end

-- What write() does with writeIn's outcome: the object count, or the reason on stderr and as an error.
local function finish(path, ok, done, result)
  if ok and done then return result end
  if not ok then result = done end
  local message = "heapdump: no snapshot written" .. (type(path) == "string" and " to " .. path or "") .. ": "
    .. tostring(result)
  pcall(function() stderr:write(message, "\n") end)
  error(message, 0)
end

-- write() on the main thread of 5.1 and LuaJIT without the C helper: that thread is no object the walk's coroutine
-- could read frames from, so they are read here (level 1 is pcall, 2 this function, 3 pcall, 4 write, 5 its caller).
local function writeHere(path, options, countKB)
  local okStack, stack, omitted = pcall(capture, nil, 5 + (options.level or 0), max(2, options.maxframes or 5000))
  local stackError
  if not okStack then stack, omitted, stackError = {}, 0, stack end
  local co = cocreate(writeIn)
  local ok, done, result = coresume(co, path, options, countKB, nil, true, stack, omitted, stackError)
  if not ok and costatus(co) == "suspended" then
    ok, done, result = pcall(writeIn, path, options, countKB, nil, true, stack, omitted, stackError)
  end
  return ok, done, result
end

--- Writes a heap snapshot of the running state to `path` (JSON, UTF-8).
-- @param path    file to create (overwritten; written as path .. ".tmp", then renamed)
-- @param options table (see the header) or nil
-- @return the number of objects written
function M.write(path, options)
  -- little happens on the caller's stack, which may have no room (a stack overflow's message handler): the work runs
  -- in a coroutine of its own, whose stack grows as the walk needs; there the calling thread's level 1 is this function
  local countKB = collectgarbage("count")          -- first: the VM's total before the dumper allocates anything
  options = options or {}
  if type(path) ~= "string" then
    return finish(path, true, false, "the file name is a " .. type(path) .. ", not a string")
  end
  local main = nil
  if corunning() == nil and NATIVE and options.native ~= false and NATIVE.mainthread then
    main = NATIVE.mainthread()                     -- called on the main thread: the helper learns it now if not yet
  end
  if corunning() == nil and main == nil then
    local here, ok, done, result = pcall(writeHere, path, options, countKB)
    if not here then
      -- no room here to read the frames (LuaJIT's stack overflow handler): without them
      ok, done, result = coresume(cocreate(writeIn), path, options, countKB, nil, true, {}, 0,
        "no room on the stack to read them: " .. tostring(ok))
    end
    return finish(path, ok, done, result)
  end
  local co = cocreate(writeIn)
  local th, ismain = corunning()
  local ok, done, result = coresume(co, path, options, countKB, th, ismain, nil, nil, nil, main)
  if not ok and costatus(co) == "suspended" then
    -- no coroutine could start (the C stack is exhausted): here, without the calling thread's frames
    ok, done, result = pcall(writeIn, path, options, countKB, th, ismain, {}, 0,
      "no coroutine could start to read them: " .. tostring(done))
  end
  return finish(path, ok, done, result)
end

-- the walk; separate so that write() can restore the collector and remove the file on errors.
-- Output goes piece by piece into a buffer that is handed to file:write as separate arguments, so the
-- walk makes almost no garbage (the collector is stopped while it runs): no record is concatenated.
function M._dump(path, options, stack, stackOmitted, countKB, collector, native, runningThread, isMain, caller, first,
                 stackError, tracked)
  local maxframes = options.maxframes or 5000
  if maxframes < 2 then maxframes = 2 end
  if stack == nil then
    local okStack
    okStack, stack, stackOmitted = pcall(capture, caller, first, maxframes)
    if not okStack then stack, stackOmitted, stackError = {}, 0, stack end
  end
  -- levels: 1 is the caller of write
  for k = 1, #stack do stack[k].level = k end
  if stackOmitted > 0 then
    local depth = #stack + stackOmitted
    local bottom = floor(maxframes / 2)
    if bottom > BOTTOM then bottom = BOTTOM end
    for k = #stack - bottom + 1, #stack do stack[k].level = depth - (#stack - k) end
  end
  local f, openError = open(path, "wb")
  if not f then error(openError, 0) end
  local closed = false
  local okWalk, result = pcall(function()
    local unpack = table.unpack or unpack
    local buf, nbuf = {}, 0
    local function flush()
      if nbuf > 0 then
        local wrote, why = f:write(unpack(buf, 1, nbuf))
        if not wrote then error(why, 0) end
      end
      nbuf = 0
    end
    local function out(s)
      nbuf = nbuf + 1
      buf[nbuf] = s
      if nbuf >= 64 then flush() end
    end

    local maxstring = options.maxstring
    local ids = {}           -- object -> its id as a JSON string (with the quotes)
    local queue, qhead, qtail = {}, 1, 0
    local nstrings, nobjects, nsynthetic = 0, 0, 0
    local bytes = 0
    local changed = 0        -- strings met in a record before their own record (the heap changed meanwhile)
    local warnings = {}
    local sep = "\n"         -- before the next record
    local vararg = {}        -- 5.5 vararg tables (the named "...t" parameter of a running frame)
    -- runningThread: the caller's thread (5.1 and LuaJIT: nil on the main thread)
    local mainthread = nil
    if not OLD then
      -- LUA_RIDX_MAINTHREAD: 1 up to 5.4, 3 since 5.5
      local registry = debug.getregistry()
      mainthread = rawget(registry, 3)
      if type(mainthread) ~= "thread" then mainthread = rawget(registry, 1) end
      if type(mainthread) ~= "thread" then mainthread = nil end
    elseif native and native.mainthread then
      mainthread = native.mainthread()
    end
    if isMain and runningThread == nil then runningThread = mainthread end

    -- the address tostring prints; a __tostring metamethod is taken out of the metatable for the call (the
    -- metatable itself stays: setting it again would mark an object with __gc for finalization once more)
    local function addr(v)
      if HAS_P then return format("%p", v) end
      local mt = getmetatable_(v)
      local s
      local ts = mt ~= nil and rawget(mt, "__tostring")
      if ts then
        rawset(mt, "__tostring", nil)
        local ok, r = pcall(tostring, v)
        rawset(mt, "__tostring", ts)
        s = ok and r or ""
      else
        s = tostring(v)
      end
      local a = s:match("0x%x+")
      if a then return a end
      nsynthetic = nsynthetic + 1
      return "o" .. nsynthetic
    end

    -- allocation sites (heapdump.track): the helper's site id of an object -> its index in "tracking.sites"
    local siteIndex, siteIds, nsited = {}, {}, 0
    local function site(v)
      local s = native.site(v)
      if s == nil then return end
      local i = siteIndex[s]
      if i == nil then
        i = #siteIds
        siteIds[i + 1] = s
        siteIndex[s] = i
      end
      out(",\"site\":"); out(i)
      nsited = nsited + 1
    end
    if not tracked then site = function() end end

    local function emitstring(s, qid)
      local len = #s
      local size, external = stringsize(s, len)
      bytes = bytes + size
      local n, truncated = len, false
      if maxstring and len > maxstring then n, truncated = maxstring, true end
      out(sep); out(qid); out(":{\"type\":\"string\""); site(s); out(",\"len\":"); out(len); out(",\"size\":"); out(size)
      if external then out(",\"external\":true,\"externalBytes\":"); out(len + 1) end
      out(",\"value\":")
      if not jsonstring(out, s, n) then out(",\"hex\":\""); hexdigits(out, s, n); out("\"") end
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

    -- light userdata are values, not objects: the helper knows; 5.1/LuaJIT full userdata always have an
    -- environment table; on 5.4+ debug.setuservalue refuses a light userdata (an out-of-range index leaves a full
    -- one unchanged); 5.2/5.3 cannot tell them apart from Lua (they are written as userdata objects there)
    local function islightud(u)
      if native and native.islight then return native.islight(u) end
      if OLD then return getfenv_(u) == nil end
      if V ~= "5.2" and V ~= "5.3" then return not pcall(debug.setuservalue, u, nil, 0x7fffffff) end
      return false
    end

    local function islight(fn)
      if not LIGHT_C then return false end
      local info = getinfo(fn, "Su")
      return info.what == "C" and info.nups == 0
    end

    local function ptr(v)
      if HAS_P then return format("%p", v) end
      local ok, text = pcall(tostring, v)              -- light userdata share one metatable, which may have __tostring
      return ok and type(text) == "string" and text:match("0x%x+") or "?"
    end

    -- JSON text of a value: a string = an object id; numbers, booleans; special values as objects. Inside a
    -- record (inrecord true) a string without a record yet cannot be written: the heap changed since the
    -- record's first pass (5.1, where the collector may run finalizers); it is written as null and counted.
    local function val(v, inrecord)
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
      if t == "string" and inrecord then changed = changed + 1; return "null" end
      if not WALKED[t] then return "{\"internal\":\"" .. t .. "\"}" end   -- LuaJIT: a trace or proto in a stack slot
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

    -- 5.5: the named vararg table of a frame (function f(a, ...t)): the local right after the parameters
    local function notevarargs(list)
      if SV ~= "5.5" then return end
      for k = 1, #list do
        local fr = list[k]
        local info = fr.info
        if info.isvararg and info.what ~= "C" and info.nparams then
          local l = fr.locals[info.nparams + 1]
          if l and type(l[2]) == "table" and l[1] ~= "(vararg table)" then vararg[l[2]] = true end
        end
      end
    end

    local function frames(list, omitted)
      if omitted and omitted > 0 then out(",\"framesOmitted\":"); out(omitted) end
      out(",\"frames\":[")
      for k = 1, #list do
        local fr = list[k]
        local info = fr.info
        if k > 1 then out(",") end
        out("{\"level\":"); out(fr.level); out(",\"what\":"); out(jstr(info.what or "?"))
        out(",\"source\":"); out(jstr(info.short_src or "?")); out(",\"line\":"); out(info.currentline or -1)
        if info.linedefined and info.linedefined > 0 then out(",\"linedefined\":"); out(info.linedefined) end
        if info.name then out(",\"name\":"); out(jstr(info.name)) end
        if info.func and not islight(info.func) then out(",\"func\":"); out(val(info.func, true)) end
        out(",\"locals\":[")
        for j = 1, #fr.locals do
          local l = fr.locals[j]
          if j > 1 then out(",") end
          out("{\"name\":"); out(jstr(l[1])); out(",\"value\":"); out(val(l[2], true)); out("}")
        end
        out("]")
        if #fr.varargs > 0 then
          out(",\"varargs\":[")
          for j = 1, #fr.varargs do
            if j > 1 then out(",") end
            out(val(fr.varargs[j][1], true))
          end
          out("]")
        end
        out("}")
      end
      out("]")
    end

    local function start(v, t)
      out(sep); out(ids[v]); out(":{\"type\":\""); out(t); out("\"")
      site(v)
      sep = ",\n"
    end

    -- upvalue n of a function: the debug library, or the helper for what it hides (5.1 C functions)
    local function upvalue(fn, n, isC)
      if isC and native and V == "5.1" then return native.getupvalue(fn, n) end
      return getupvalue(fn, n)
    end

    local omittedThreads, omittedFrames = 0, 0
    local function walk(v)
      local t = type(v)
      local size = 0
      if t == "table" then
        for k, x in next, v do pre(k); pre(x) end
        start(v, t)
        local mt = getmetatable_(v)
        if mt ~= nil then out(",\"metatable\":"); out(val(mt, true)) end
        local mode = mt ~= nil and rawget(mt, "__mode")
        if type(mode) == "string" then
          local w = (find(mode, "k", 1, true) and "k" or "") .. (find(mode, "v", 1, true) and "v" or "")
          if w ~= "" then out(",\"weak\":\""); out(w); out("\"") end
        end
        local border          -- the raw length: 5.1/LuaJIT have no __len for tables, 5.2+ would call it for #
        if OLD then border = #v else border = rawlen(v) end
        local narr, nhash, first = 0, 0, true
        out(",\"pairs\":[")
        for k, x in next, v do
          if first then out("[") else out(",[") end
          first = false
          out(val(k, true)); out(","); out(val(x, true)); out("]")
          if type(k) == "number" and k >= 1 and k <= border and floor(k) == k then narr = narr + 1
          else nhash = nhash + 1 end
        end
        out("],\"narr\":"); out(narr); out(",\"nhash\":"); out(nhash)
        local exact = nil
        if vararg[v] then
          -- ltable.c: a vararg table is made with room for exactly its n arguments and one hash node ("n")
          local n = rawget(v, "n")
          if type(n) == "number" and n >= narr and floor(n) == n then exact = n end
          out(",\"vararg\":true")
        end
        size = tablesize(narr, nhash, exact)
      elseif t == "function" then
        local info = getinfo(v, "Su")
        local nups = info.nups or 0
        local isC = info.what == "C"
        local env = getfenv_ and getfenv_(v) or nil
        for i = 1, nups do
          local name, x = upvalue(v, i, isC)
          if name == nil then break end
          pre(x)
        end
        start(v, t)
        size = isC and (SZ.ccl + SZ.cup * nups) or (SZ.lcl + SZ.lup * nups)
        out(",\"what\":"); out(jstr(info.what)); out(",\"source\":"); out(jstr(info.short_src or "?"))
        out(",\"linedefined\":"); out(info.linedefined or -1)
        out(",\"lastlinedefined\":"); out(info.lastlinedefined or -1)
        out(",\"nups\":"); out(nups)
        if isC and BUILTIN[v] then out(",\"builtin\":true") end
        if env ~= nil then out(",\"env\":"); out(val(env, true)) end
        out(",\"upvalues\":[")
        for i = 1, nups do
          local name, x = upvalue(v, i, isC)
          if name == nil then break end
          if i > 1 then out(",") end
          out("{\"name\":"); out(jstr(name)); out(",\"value\":"); out(val(x, true))
          if upvalueid and not isC then
            local okid, uid = pcall(upvalueid, v, i)
            if okid and uid ~= nil then out(",\"uid\":\""); out(ptr(uid)); out("\"") end
          end
          out("}")
        end
        out("]")
      elseif t == "thread" then
        local list, omitted
        if v == runningThread then
          list, omitted = stack, stackOmitted
        else
          list, omitted = capture(v, 0, maxframes)
          if omitted > 0 then omittedThreads, omittedFrames = omittedThreads + 1, omittedFrames + omitted end
        end
        notevarargs(list)
        preframes(list)
        start(v, t)
        local status = (v == runningThread) and "running" or costatus(v)
        out(",\"status\":\""); out(status); out("\"")
        if getfenv_ then
          local env = getfenv_(v)
          if env ~= nil then out(",\"env\":"); out(val(env, true)) end
        end
        -- estimated: a thread that has not run, plus a CallInfo per frame (5.1: an array doubling from 8), plus the
        -- stack slots in use beyond the first 40 (each frame's locals and temporaries run up to the next frame)
        local nframes = #list + (omitted or 0)
        local slots = 0
        for k = 1, #list do slots = slots + #list[k].locals + #list[k].varargs + 1 end
        if omitted and omitted > 0 and #list > 0 then slots = slots + floor(slots / #list * omitted) end
        local stackbytes = slots > 40 and (slots - 40) * (SV == "jit" and 8 or 16) or 0
        if SV == "5.1" then
          local cis = nframes + 1 < 8 and 8 or pow2(nframes + 1)
          size = SZ.thread + SZ.ci * (cis - 8) + stackbytes
        else
          size = SZ.thread + SZ.ci * nframes + stackbytes
        end
        frames(list, omitted)
      elseif t == "userdata" then
        local mt = getmetatable_(v)
        local name = mt ~= nil and rawget(mt, "__name")
        local uvs, nuv = {}, 0
        if SZ.uv and getuservalue then
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
        local payload = native and native.udsize and native.udsize(v) or nil
        size = SZ.ud
        if nuv > 0 and SZ.uv then size = size + 8 + SZ.uv * nuv end
        if payload then
          size = size + payload
          out(",\"payload\":"); out(payload)
        else
          out(",\"payloadSizeUnknown\":true")
        end
        if mt ~= nil then out(",\"metatable\":"); out(val(mt, true)) end
        if type(name) == "string" then out(",\"name\":"); jsonstring(out, name, #name) end
        if nuv > 0 then
          out(",\"uservalues\":[")
          for i = 1, nuv do
            if i > 1 then out(",") end
            out(val(uvs[i], true))
          end
          out("]")
        end
        if getfenv_ and not getuservalue then
          local env = getfenv_(v)
          if env ~= nil then out(",\"env\":"); out(val(env, true)) end
        end
      else
        -- LuaJIT cdata (and anything else a future version adds)
        start(v, t)
        local cts
        size, cts = cdatasize(v)
        if cts then
          out(",\"ctype\":"); out(jstr(cts))
          -- tostring would run a metatype's __tostring: only 64-bit integers print themselves
          local repr
          if find(cts, "^ctype<u?int64_t>$") then repr = tostring(v)
          else repr = "cdata" .. sub(cts, 6) .. ": " .. ptr(v) end
          out(",\"repr\":"); out(jstr(repr))
        else
          out(",\"repr\":"); out(jstr(t .. ": " .. ptr(v)))
        end
      end
      out(",\"size\":"); out(size); out("}")
      bytes = bytes + size
      nobjects = nobjects + 1
    end

    -- header
    out("{\"format\":\"lua-heap-snapshot\",\"formatVersion\":1,\n\"lua\":{\"version\":" .. jstr(VERSION)
      .. ",\"jit\":" .. (JITVERSION and jstr(JITVERSION) or "null")
      .. ",\"addressesAreReal\":true,\"stringIds\":" .. (HAS_P and "\"address\"" or "\"content\"") .. "},\n"
      .. "\"dumper\":{\"name\":\"heapload heapdump.lua\",\"kind\":\"pure-lua\",\"sizes\":\"estimated\""
      .. ",\"sizesFor\":\"" .. SV .. "\",\"native\":" .. (native and "true" or "false") .. "},\n"
      .. "\"label\":" .. (options.label and jstr(tostring(options.label)) or "null") .. ",\n"
      .. "\"stats\":{" .. (type(countKB) == "number" and ("\"gcCountKB\":" .. jnum(countKB) .. ",") or "")
      .. "\"collector\":\"" .. collector .. "\"},\n\"objects\":{")

    -- roots, in this order; their values are scheduled (strings written) before the walk
    local registry = debug.getregistry()
    local globals
    if OLD then globals = rawget(_G, "getfenv")(0) else globals = rawget(registry, 2) end
    local roots = { { "registry", val(registry) }, { "globals", val(globals) } }
    if mainthread ~= nil then roots[#roots + 1] = { "mainthread", val(mainthread) } end
    local mts = {}
    local samples = { { "string", "" }, { "number", 0 }, { "boolean", true }, { "nil", nil }, { "function", print } }
    for _, s in ipairs(samples) do
      local mt = getmetatable_(s[2])
      if mt ~= nil then mts[#mts + 1] = { s[1], val(mt) } end
    end
    notevarargs(stack)
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
    frames(stack, stackOmitted)
    out("}},\n\"summary\":{\"objects\":"); out(nobjects); out(",\"estimatedBytes\":"); out(bytes); out("}")
    if tracked then
      out(",\n\"tracking\":{\"state\":\""); out(TRACKING and "on" or "off"); out("\",\"objectsWithSite\":"); out(nsited)
      out(",\"objectsWithoutSite\":"); out(nobjects - nsited); out(",\"sites\":[")
      for i = 1, #siteIds do
        local source, line, name = native.siteinfo(siteIds[i])
        if i > 1 then out(",\n") end
        out("{\"source\":"); out(jstr(source or "?")); out(",\"line\":"); out(line or -1)
        out(",\"function\":"); out(jstr(name or "?")); out("}")
      end
      out("]}")
    end

    if OLD and mainthread == nil and not isMain then
      warnings[#warnings + 1] = "dumped inside a coroutine on " .. (JITVERSION or VERSION) .. " without heapdump_native: "
        .. "the main thread is no object there, so its stack and the coroutines between it and this one (each "
        .. "held by its resumer's frame) are not in this snapshot, nor what only they hold; build heapdump_native "
        .. "(docs/reference/lua-dumper-format.md) and load it on the main thread"
    end
    if stackOmitted > 0 then
      warnings[#warnings + 1] = format("%d frame(s) in the middle of the calling thread's stack are not in this snapshot "
        .. "(maxframes = %d: the top ones and the %d oldest are), nor what only they hold", stackOmitted, maxframes,
        BOTTOM < floor(maxframes / 2) and BOTTOM or floor(maxframes / 2))
    end
    if omittedThreads > 0 then
      warnings[#warnings + 1] = format("%d frame(s) of %d coroutine(s) are not in this snapshot (maxframes = %d: the top "
        .. "ones and the %d oldest of each are), nor what only they hold", omittedFrames, omittedThreads, maxframes,
        BOTTOM < floor(maxframes / 2) and BOTTOM or floor(maxframes / 2))
    end
    if stackError then
      warnings[#warnings + 1] = "the calling thread's frames could not be read (" .. tostring(stackError) .. "): its "
        .. "locals are not in this snapshot"
    end
    if changed > 0 then
      warnings[#warnings + 1] = format("%d reference(s) to strings written as null: the heap changed during the dump "
        .. "(a finalizer ran)", changed)
    end
    if #warnings > 0 then
      out(",\n\"warnings\":[")
      for i = 1, #warnings do
        if i > 1 then out(",") end
        out(jstr(warnings[i]))
      end
      out("]")
    end
    out("}\n")
    flush()
    return nobjects
  end)
  local okClose, closeError = f:close()
  if okWalk and not okClose then okWalk, result = false, closeError end
  if not okWalk then error(result, 0) end
  return result
end

--- Switches allocation-site tracking on (true) or off (false); needs the C helper heapdump_native.
-- While on, every object allocated gets the site (source, line, function) of the Lua code running then: the
-- line of a table constructor, closure or concatenation; for objects a C function makes, the Lua line that called
-- it. Coroutines created before tracking started are not followed (their allocations get the site of the line
-- that resumed them; LuaJIT follows every coroutine). On LuaJIT the JIT compiler is off while tracking (compiled
-- code runs no hooks); it is switched on again by track(false) when it was on. Off, sites of objects still alive
-- are kept for later dumps; nothing is installed before the first track(true).
-- @param on boolean
-- @return whether tracking was on before
function M.track(on)
  if not (NATIVE and NATIVE.track) then
    error("heapdump.track: the C helper heapdump_native is not loaded (build it: docs/reference/lua-dumper-format.md)", 2)
  end
  on = on and true or false
  if on and not TRACKING and JIT and JIT.status and JIT.off then
    JITWASON = JIT.status()
    if JITWASON then JIT.flush(); JIT.off() end
  end
  local ok, was = pcall(NATIVE.track, on)
  if not ok then                                    -- e.g. a debug hook of the program's own is set
    if JITWASON and not TRACKING then JITWASON = nil; JIT.on() end
    error(was, 2)
  end
  if on then TRACKED = true end
  TRACKING = on
  if not on and JITWASON then JITWASON = nil; JIT.on() end
  return was
end

return M
