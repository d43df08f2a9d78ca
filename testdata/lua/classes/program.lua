-- Classes by metatable, userdata and (LuaJIT) cdata with known counts: heapload's class histogram test
-- (ClassHistogramLuaTest). Snapshots "before" and "after", each after two full collections.
local H = require "harness"

-- a global class table that is its own metatable
Animal = {}
Animal.__index = Animal
function Animal.new(name) return setmetatable({ name = name }, Animal) end

-- a subclass: its instances' metatable is Dog, Dog's metatable is an anonymous {__index = Animal}
Dog = setmetatable({}, { __index = Animal })
Dog.__index = Dog
function Dog.new(name) return setmetatable({ name = name, tricks = {} }, Dog) end

-- a class whose instances each get their own anonymous metatable {__index = Cat}
Cat = {}
function Cat.new(name) return setmetatable({ name = name }, { __index = Cat }) end

-- a metatable with __name (as luaL_newmetatable names it), held by nothing but its instances
local pointMeta = { __name = "Point" }
local function newPoint(x, y) return setmetatable({ x = x, y = y }, pointMeta) end

-- a class known only by a local of the main chunk and an upvalue of its constructor
local Queue = {}
Queue.__index = Queue
local function newQueue() return setmetatable({ items = {} }, Queue) end

zoo = { animals = {}, dogs = {}, cats = {}, points = {}, queues = {}, files = {}, cdata = {} }
zoo.animals[1] = Animal.new("a1")
zoo.animals[2] = Animal.new("a2")
zoo.dogs[1] = Dog.new("d1")
zoo.points[1] = newPoint(1, 2)
H.snap("before")

for i = 2, 4 do zoo.dogs[i] = Dog.new("d" .. i) end
for i = 1, 2 do zoo.cats[i] = Cat.new("c" .. i) end
for i = 2, 5 do zoo.points[i] = newPoint(i, i) end
for i = 1, 2 do zoo.queues[i] = newQueue() end
for i = 1, 2 do zoo.files[i] = io.tmpfile() end            -- full userdata of class FILE*
if jit then
  local ffi = require "ffi"
  ffi.cdef "typedef struct { double x, y; } hl_point2;"
  for i = 1, 4 do zoo.cdata[i] = ffi.new("hl_point2", i, i) end
  for i = 1, 3 do zoo.cdata[4 + i] = ffi.new("int64_t", i) end
end
H.snap("after")
