local H = require "harness"
local function worker(n)
  local job = { id = n }
  coroutine.yield(job)
  return job
end
local co = coroutine.create(worker)
coroutine.resume(co, 7)
local function handle(request)
  local session = { user = "ann" }
  H.snap("after")
  return session
end
handle("GET /")
