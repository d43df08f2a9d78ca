# Test helper: runs dumpers/micropython/heapdump.py under CPython on the memory images of a heapload-dump directory,
# as if on the board that was dumped (its word size and byte order; uctypes.bytearray_at reads the images), with
# the plain Python encoder and without the stack. Writes the dump stream that `heapload micropython capture --stream`
# reads; prints heapdump.dump's consistency result.
#   python3 heapdump_on_images.py DUMP_DIR DUMPERS_DIR STREAM
import json
import os
import sys
import types

d, dumpers, stream = sys.argv[1], sys.argv[2], sys.argv[3]
doc = json.load(open(os.path.join(d, "regions.json")))
images = [(int(r["base"], 16), r["file"], open(os.path.join(d, r["file"]), "rb").read()) for r in doc["regions"]]


def bytearray_at(addr, n):
    for base, _, data in images:
        if base <= addr and addr + n <= base + len(data):
            return bytearray(data[addr - base:addr - base + n])
    raise OSError("unmapped 0x%x" % addr)


sys.modules["uctypes"] = types.SimpleNamespace(bytearray_at=bytearray_at, addressof=lambda o: id(o) & 0xFFFFFFF0)
sys.modules["micropython"] = types.SimpleNamespace(viper=lambda f: f, native=lambda f: f)
sys.path.insert(0, dumpers)
import heapdump  # noqa: E402

heapdump.sys = types.SimpleNamespace(maxsize=(1 << (8 * doc["word_size"] - 1)) - 1,
                                     byteorder="little" if doc["little_endian"] else "big")
heapdump.gc = types.SimpleNamespace(mem_alloc=lambda: 0, isenabled=lambda: False, disable=lambda: None,
                                    enable=lambda: None)
ctx = size = None
for line in open(os.path.join(d, "symbols.nm.txt")):
    f = line.split()
    if len(f) == 4 and f[3] == "mp_state_ctx":
        ctx, size = int(f[0], 16), int(f[1], 16)
static = [(base, len(data)) for base, name, data in images if name.startswith("static")]
with open(stream, "wb") as out:
    print(heapdump.dump(ctx, size, static, out, viper=False, stack=False, split=True, used_at_call=0))
