--- save_snapshot.lua: saves the raw table of lua-snapshot (cloudwu/lua-snapshot, lvzixun/lua-snapshot) to a
-- file heapload reads (`heapload FILE`, detected as format lua-snapshot).
--
--   local snapshot = require "snapshot"
--   local save = require "save_snapshot"
--   save(snapshot.snapshot(), "after.lua")
--
-- The raw table maps light userdata (object addresses) to record strings; it is written as a Lua table
-- literal with %q strings, sorted by address, so newlines and NUL bytes inside keys survive byte-exactly.
return function(S, path)
  local rows = {}
  for k, v in pairs(S) do
    local a = tostring(k):match("0x%x+") or tostring(k):match("%x+$") or tostring(k)
    rows[#rows + 1] = { a, v }
  end
  table.sort(rows, function(x, y) return x[1] < y[1] end)
  local f = assert(io.open(path, "wb"))
  f:write("return {\n")
  for _, r in ipairs(rows) do
    f:write(string.format("[%q] = %q,\n", r[1], r[2]))
  end
  f:write("}\n")
  f:close()
end
