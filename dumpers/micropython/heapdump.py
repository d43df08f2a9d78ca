# heapdump.py - MicroPython on-board heap dumper for heapload (no debugger needed).
#
# Runs on the board (any port with `uctypes`; `micropython.viper` makes it fast but is optional). It reads the
# GC heap areas, the RAM holding mp_state_ctx and the C stack with uctypes.bytearray_at and writes them as
# text lines (base64, a CRC-16 per line) to a stream, normally the REPL's stdout, where
# `heapload micropython capture` reads them and writes DIR/regions.json and the images. On a computer:
#
#   heapload micropython capture --port /dev/ttyACM0 --symbols firmware.elf DIR
#
# sends this file over the raw REPL and calls dump() with the addresses from the symbols. By hand:
#
#   import heapdump; heapdump.dump(0x20000a10, 684)        # &mp_state_ctx and its size (nm -S firmware.elf)
#
# Consistency: every buffer is allocated and the area layout worked out before the first byte is copied;
# while copying nothing is allocated (no calls of Python functions, whose frames may live on the heap; only
# built-in methods and viper code) and the GC is disabled, so the images show one moment of the heap.
# The dumper's own allocations (its buffers, views and lists) are listed in the header ("own" lines) so
# that heapload can tell them apart; gc.mem_alloc() before and after copying is reported to prove that
# nothing changed.
#
# Stream (one header, then fixed-length data lines, then the trailer):
#   heapload-dump 1
#   word_size W / little_endian 0|1 / bytes_per_block B
#   region I BASE_HEX SIZE CONTENTS...
#   own ADDR_HEX BYTES WHAT
#   used_at_entry N / stack_use N / encoder viper|python
#   data
#   DRRoooooooocccc BASE64<spaces>          R region index (2 hex), o offset (8 hex), c CRC-16/CCITT-FALSE
#   end used_before_copy N used_after_copy N
# Facts: heapload's docs "MicroPython GC heap dump format" (area invariants §3, roots §4).

import gc
import sys
import micropython
import uctypes

_B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_HEX = b"0123456789abcdef"
CHUNK = 192  # bytes per data line (a multiple of 3: base64 without padding inside a region)


def _crc_table():
    t = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
            c &= 0xFFFF
        t.append(c)
    return t


_VIPER = """
@micropython.viper
def _enc(src: ptr8, off: int, n: int, line: ptr8) -> int:
    # line[0..2] (D and the region) are set by the caller; here: offset, CRC, ' ', base64 of src[off:off+n]
    t = ptr8(_TABLES)
    ct = ptr16(_CRC)
    c = ptr8(_CHUNKBUF)
    i = 0
    while i < n:
        c[i] = src[off + i]
        i += 1
    k = 0
    while k < 8:
        line[3 + k] = t[64 + ((off >> (28 - 4 * k)) & 15)]
        k += 1
    crc = 0xFFFF
    i = 0
    while i < n:
        crc = ((crc << 8) & 0xFFFF) ^ int(ct[((crc >> 8) ^ c[i]) & 0xFF])
        i += 1
    k = 0
    while k < 4:
        line[11 + k] = t[64 + ((crc >> (12 - 4 * k)) & 15)]
        k += 1
    line[15] = 32
    p = 16
    i = 0
    while i + 3 <= n:
        v = (c[i] << 16) | (c[i + 1] << 8) | c[i + 2]
        line[p] = t[(v >> 18) & 63]
        line[p + 1] = t[(v >> 12) & 63]
        line[p + 2] = t[(v >> 6) & 63]
        line[p + 3] = t[v & 63]
        p += 4
        i += 3
    r = n - i
    if r > 0:
        v = c[i] << 16
        if r == 2:
            v |= c[i + 1] << 8
        line[p] = t[(v >> 18) & 63]
        line[p + 1] = t[(v >> 12) & 63]
        if r == 2:
            line[p + 2] = t[(v >> 6) & 63]
        else:
            line[p + 2] = 61
        line[p + 3] = 61
        p += 4
    return p
"""


def _words(addr, count, w, little):
    raw = bytes(uctypes.bytearray_at(addr, count * w))
    out = []
    for i in range(count):
        v = 0
        for j in range(w):
            b = raw[i * w + (w - 1 - j if little else j)]
            v = (v << 8) | b
        out.append(v)
    return out


def _decode(v, i, k, bpb):
    a = v[i]
    l = v[i + 1]
    if a <= 0 or l <= 0 or l > (1 << 30):
        return False
    p = v[i + 2 + k]
    e = v[i + 3 + k]
    if p <= 0 or e <= p or p % bpb or e - p != 4 * l * bpb or p < a + l:
        return False
    end = a + l
    for j in range(k):
        t = v[i + 2 + j]
        if j == 0:
            if t != end and t != end + 1:
                return False
        elif t != end:
            return False
        end = t + (4 * l + 7) // 8
    return p >= end


def find_areas(ctx, ctx_size, w, little, split=False):
    """[(image_start, atb, pool_end)] of every GC heap area, by the invariants of heapload's reader, and
    thread.stack_top. The split-heap `next` chain is followed only when `split` is true (the build has gc_add:
    MICROPY_GC_SPLIT_HEAP): on other builds the word before the area fields is a count, and reading memory at
    an arbitrary address faults on a board."""
    bpb = 4 * w
    n = ctx_size // w
    v = _words(ctx, n, w, little)
    for i in range(n - 3):
        for k in range(3):
            if i + 3 + k < n and _decode(v, i, k, bpb):
                areas = [(v[i], v[i], v[i + 3 + k])]
                nxt = v[i - 1] if i > 0 and split else 0
                seen = []
                while nxt and nxt % w == 0 and nxt not in seen and len(areas) < 64:
                    seen.append(nxt)
                    f = _words(nxt, 5 + k, w, little)
                    if not _decode(f, 1, k, bpb):
                        break
                    start = nxt if 0 <= f[1] - nxt <= 512 else f[1]
                    areas.append((start, f[1], f[4 + k]))
                    nxt = f[0]
                return areas, v[0]
    raise ValueError("no GC heap area in mp_state_ctx at 0x%x: wrong address or size?" % ctx)


def _subtract(ranges, holes):
    out = []
    for s, e in ranges:
        pieces = [(s, e)]
        for hs, he in holes:
            nxt = []
            for ps, pe in pieces:
                if he <= ps or hs >= pe:
                    nxt.append((ps, pe))
                    continue
                if ps < hs:
                    nxt.append((ps, hs))
                if he < pe:
                    nxt.append((he, pe))
            pieces = nxt
        out.extend(p for p in pieces if p[1] > p[0])
    return out


def dump(ctx, ctx_size, ranges=(), out=None, hook=None, viper=True, stack=True, split=False, used_at_call=None):
    """Writes the dump stream to `out` (default sys.stdout.buffer).

    ctx, ctx_size: address and size in bytes of mp_state_ctx (from the firmware's symbols);
    ranges: more (address, size) RAM ranges to include (.data/.bss); the heap areas and the stack are cut out;
    hook: called with no arguments right before copying (tests: a debugger breakpoint);
    viper: use the viper encoder when the port has it (about 50x faster than plain Python);
    stack: include the C stack from about the current stack pointer (stack_top - micropython.stack_use());
    split: the build has a split heap (the symbol gc_add exists): follow the areas' `next` chain;
    used_at_call: gc.mem_alloc() evaluated as the last argument of the call, so that the dumper's own frame
    (heap-allocated: it has many locals) counts among its own allocations.
    """
    used_at_entry = gc.mem_alloc() if used_at_call is None else used_at_call
    if out is None:
        out = getattr(sys.stdout, "buffer", sys.stdout)
    w = 8 if sys.maxsize > (1 << 32) else 4
    little = sys.byteorder == "little"
    areas, stack_top = find_areas(ctx, ctx_size, w, little, split)
    regions = []
    for i, (start, atb, end) in enumerate(areas):
        regions.append((start, end - start, "gc heap area %d: %sATB .. pool end" % (i, "area struct, " if start != atb else "")))
    holes = [(s, s + n) for s, n, _ in regions]
    use = 0
    if stack and hasattr(micropython, "stack_use"):
        use = micropython.stack_use()
        base = (stack_top - use - 64) // w * w
        regions_stack = (base, stack_top - base)
        holes.append((base, stack_top))
    else:
        regions_stack = None
    rw = _subtract([(a, a + n) for a, n in ranges] or [(ctx, ctx + ctx_size)], holes)
    if not any(s <= ctx and ctx + ctx_size <= e for s, e in rw):
        rw = _subtract([(ctx, ctx + ctx_size)], [])
    for s, e in rw:
        regions.append((s, e - s, "RAM .data/.bss%s" % (" (holds mp_state_ctx)" if s <= ctx < e else "")))
    if regions_stack:
        regions.append((regions_stack[0], regions_stack[1], "C stack: about sp .. mp_state_ctx.thread.stack_top"))

    # everything the copy needs, allocated now
    views = [uctypes.bytearray_at(s, n) for s, n, _ in regions]
    sizes = [n for _, n, _ in regions]
    line = bytearray(16 + (CHUNK // 3) * 4 + 1)
    for i in range(len(line)):
        line[i] = 32
    line[len(line) - 1] = 10
    chunk = bytearray(CHUNK)
    crctab = _crc_table()
    enc = None
    tab16 = None
    if viper:
        try:
            import array
            tab16 = array.array("H", crctab)
            g = {"micropython": micropython, "_TABLES": bytes(_B64 + _HEX), "_CRC": tab16, "_CHUNKBUF": chunk}
            exec(_VIPER, g)
            enc = g["_enc"]
        except Exception:
            enc = None
            tab16 = None
    write = out.write
    blank = 32
    b64 = _B64
    hexd = _HEX
    own = [(id(views), "list of views"), (uctypes.addressof(line), "line buffer"), (id(line), "line bytearray"),
           (uctypes.addressof(chunk), "chunk buffer"), (id(chunk), "chunk bytearray"),
           (id(crctab), "crc table")]
    for v in views:
        own.append((id(v), "uctypes view"))
    if tab16 is not None:
        own.append((id(tab16), "crc table (array)"))

    hdr = ["heapload-dump 1", "word_size %d" % w, "little_endian %d" % (1 if little else 0),
           "bytes_per_block %d" % (4 * w)]
    for i, (s, n, what) in enumerate(regions):
        hdr.append("region %d %x %d %s" % (i, s, n, what))
    for a, what in own:
        hdr.append("own %x %s" % (a, what))
    hdr.append("used_at_entry %d" % used_at_entry)
    hdr.append("stack_use %d" % use)
    hdr.append("encoder %s" % ("viper" if enc is not None else "python"))
    text = "\n".join(hdr) + "\n"
    write(text.encode() if hasattr(text, "encode") else text)
    del hdr, text
    write(b"data\n")
    used_before = gc.mem_alloc()
    if hook is not None:
        hook()
    gc_was = gc.isenabled()
    gc.disable()
    # ---- copy: no allocation from here to the end of the loop
    r = 0
    nr = len(views)
    while r < nr:
        src = views[r]
        size = sizes[r]
        off = 0
        while off < size:
            n = size - off
            if n > CHUNK:
                n = CHUNK
            if enc is not None:
                line[0] = 68
                line[1] = hexd[(r >> 4) & 15]
                line[2] = hexd[r & 15]
                p = enc(src, off, n, line)
            else:
                line[0] = 68
                line[1] = hexd[(r >> 4) & 15]
                line[2] = hexd[r & 15]
                k = 0
                while k < 8:
                    line[3 + k] = hexd[(off >> (28 - 4 * k)) & 15]
                    k += 1
                i = 0
                while i < n:
                    chunk[i] = src[off + i]
                    i += 1
                crc = 0xFFFF
                i = 0
                while i < n:
                    crc = ((crc << 8) & 0xFFFF) ^ crctab[((crc >> 8) ^ chunk[i]) & 0xFF]
                    i += 1
                k = 0
                while k < 4:
                    line[11 + k] = hexd[(crc >> (12 - 4 * k)) & 15]
                    k += 1
                p = 16
                i = 0
                while i + 3 <= n:
                    v = (chunk[i] << 16) | (chunk[i + 1] << 8) | chunk[i + 2]
                    line[p] = b64[(v >> 18) & 63]
                    line[p + 1] = b64[(v >> 12) & 63]
                    line[p + 2] = b64[(v >> 6) & 63]
                    line[p + 3] = b64[v & 63]
                    p += 4
                    i += 3
                if n - i > 0:
                    v = chunk[i] << 16
                    if n - i == 2:
                        v |= chunk[i + 1] << 8
                    line[p] = b64[(v >> 18) & 63]
                    line[p + 1] = b64[(v >> 12) & 63]
                    line[p + 2] = b64[(v >> 6) & 63] if n - i == 2 else 61
                    line[p + 3] = 61
                    p += 4
            while p < len(line) - 1:
                line[p] = blank
                p += 1
            write(line)
            off += n
        r += 1
    used_after = gc.mem_alloc()
    # ---- copy done
    if gc_was:
        gc.enable()
    text = "end used_before_copy %d used_after_copy %d\n" % (used_before, used_after)
    write(text.encode() if hasattr(text, "encode") else text)
    return used_before == used_after
