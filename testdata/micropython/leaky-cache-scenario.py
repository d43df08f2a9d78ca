# A scenario for the MicroPython dumper tests: a module-global cache that grows between two markers.
# Each micropython.mem_info(1) call is a marker: a gdb breakpoint on mp_micropython_mem_info takes a dump
# there (before it prints, and mem_info allocates nothing, so the printed figures describe the dump).
import gc
import micropython


class Reading:
    def __init__(self, sensor, value):
        self.sensor = sensor
        self.value = value


_cache = {}


def lookup(key):
    entry = _cache.get(key)
    if entry is None:
        entry = ("result-%d" % key, bytearray(8))
        _cache[key] = entry
    return entry


readings = [Reading("s%d" % (i % 7), i * 0.5) for i in range(200)]
for k in range(100):
    lookup(k)
gc.collect()

micropython.mem_info(1)  # MARKER 1: before

for k in range(100, 1100):
    lookup(k)

micropython.mem_info(1)  # MARKER 2: after the cache grew
print("done", len(_cache), len(readings))
