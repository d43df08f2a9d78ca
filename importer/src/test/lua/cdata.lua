-- cdata.lua: heapload's test of LuaJIT cdata in a dump (LuaCdataTest): 8 MiB of FFI data, as programs hold it (a VLA
-- frame buffer, an array of structs, a variable-length struct, boxed integers, pointers into the buffer), and a
-- metatype with methods. Writes $HEAPDUMP_DIR/cdata.json after full collections.
local heapdump = require "heapdump"
local ffi = require "ffi"
ffi.cdef [[
  typedef struct { float x, y, z; } hl_vec3;
  typedef struct { int count; uint8_t bytes[?]; } hl_blob;
  typedef struct { int id; } hl_handle;
]]
local Handle = ffi.metatype("hl_handle", { __index = { describe = function(self) return "handle " .. self.id end },
  __tostring = function() error("the dumper must not call __tostring") end,
  __len = function() error("the dumper must not call __len") end })
Scene = {
  frame = ffi.new("uint32_t[?]", 1024 * 1024),            -- 4 MiB
  vertices = ffi.new("hl_vec3[?]", 262144),                -- 3 MiB
  blob = ffi.new("hl_blob", 1048576),                      -- 1 MiB + 4
  ids = { 1LL, 2LL, 3ULL },
  handles = { Handle(1), Handle(2) },
}
Scene.cursor = Scene.frame + 100                            -- a pointer into the buffer: no GC reference
collectgarbage("collect")
collectgarbage("collect")
heapdump.write((os.getenv("HEAPDUMP_DIR") or ".") .. "/cdata.json", { label = "cdata" })
