# heapload_gdb.py - a gdb command that takes a MicroPython heap dump for heapload.
#
#   (gdb) source dumpers/micropython/heapload_gdb.py
#   (gdb) heapload-dump DIR [--label L] [--chunk BYTES] [--max-static BYTES] [--max-rom BYTES]
#
# Stop the target anywhere first (a breakpoint, Ctrl-C). The command finds `mp_state_ctx` by symbol, reads
# the GC heap area chain (with debug info by the field names of mp_state_ctx.mem; without it by the
# invariants heapload's reader uses: pool size == 4 * ATB bytes * block size, the side tables chained after
# the ATB with or without the v1.20 gap byte, the split-heap `next` word before the area fields), and writes
#
#   DIR/regions.json   every memory image with its base address (what `heapload micropython` reads)
#   DIR/heap_areaN.bin each heap area: its mp_state_mem_area_t when it lives in the area (split heaps),
#                      ATB, [gap], [FTB], [WTB], pool
#   DIR/static*.bin    the RAM holding mp_state_ctx: all of .data/.bss (minus heaps and stack) when that is
#                      at most --max-static bytes (default 1 MiB), else mp_state_ctx alone
#   DIR/rom*.bin       the read-only sections holding the ROM qstr pools and their strings, when they add up to at
#                      most --max-rom bytes (default 1 MiB; 0: none), so ROM qstrs (attribute, function, file names)
#                      are shown by their text
#   DIR/stack.bin      the current thread's C stack, $sp .. mp_state_ctx.thread.stack_top
#   DIR/info.txt       sp, pc, stack_top, the area fields, the MicroPython version string when readable,
#                      the target (architecture, byte order, connection), registers and backtrace
#   DIR/symbols.nm.txt the ELF's symbol table as `nm -S -n --defined-only` prints it (runtime addresses),
#                      so the dump loads without any other file
#   DIR/layouts.json   with debug info: the layouts (field offsets and names) of mp_state_ctx_t, mp_code_state_t
#                      and the object structs heapload names references by (LAYOUT_STRUCTS)
#
# Memory is read in chunks (--chunk, default 16 KiB; halved down to 64 bytes when a remote stub refuses a
# read), so OpenOCD, pyOCD, probe-rs, J-Link and QEMU gdbstubs all serve it. Works for 32- and 64-bit,
# little- and big-endian targets and MicroPython v1.18 and later (facts: heapload's
# docs/reference/formats.md). Needs gdb built with Python 3 (every distribution's gdb is).

import json
import os
import shlex
import struct
import time

import gdb

DEFAULT_CHUNK = 16 * 1024
DEFAULT_MAX_STATIC = 1 << 20
DEFAULT_MAX_ROM = 1 << 20


class DumpError(Exception):
    pass


# --------------------------------------------------------------------------------------------- target facts

def _word_size():
    return int(gdb.parse_and_eval("sizeof(void*)"))


def _little_endian():
    text = gdb.execute("show endian", to_string=True)
    return "big endian" not in text


def _symbol_address(name):
    """Runtime address of a global or static data symbol, with or without debug info, or None."""
    try:
        sym = gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
    except (AttributeError, gdb.error):
        sym = None
    if sym is not None and not sym.is_function and sym.addr_class != gdb.SYMBOL_LOC_TYPEDEF:
        try:
            return int(sym.value().address), sym
        except gdb.error:
            pass
    try:
        return int(gdb.parse_and_eval("(unsigned long long)&'%s'" % name)), None
    except gdb.error:
        pass
    try:
        text = gdb.execute("info address %s" % name, to_string=True)
    except gdb.error:
        return None, None
    for tok in text.replace(".", " ").split():
        if tok.startswith("0x"):
            return int(tok, 16), None
    return None, None


# -------------------------------------------------------------------------------------------- ELF symbol table

class Elf:
    """The few things wanted from the executable: symbols (name, value, size, type letter) and the writable
    allocated sections. Parsed here so that a build without debug info still gives the size of mp_state_ctx."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if data[:4] != b"\x7fELF":
            raise DumpError("%s is not an ELF file" % path)
        self.is64 = data[4] == 2
        self.little = data[5] == 1
        e = "<" if self.little else ">"
        if self.is64:
            shoff, = struct.unpack_from(e + "Q", data, 0x28)
            shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", data, 0x3A)
        else:
            shoff, = struct.unpack_from(e + "I", data, 0x20)
            shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", data, 0x2E)
        sections = []
        for i in range(shnum):
            off = shoff + i * shentsize
            if self.is64:
                name, typ, flags, addr, offset, size, link, info, align, entsize = struct.unpack_from(
                    e + "IIQQQQIIQQ", data, off)
            else:
                name, typ, flags, addr, offset, size, link, info, align, entsize = struct.unpack_from(
                    e + "IIIIIIIIII", data, off)
            sections.append((name, typ, flags, addr, offset, size, link, entsize))
        names = sections[shstrndx] if shstrndx < len(sections) else None

        def cstr(table_off, idx):
            end = data.index(b"\0", table_off + idx)
            return data[table_off + idx:end].decode("utf-8", "replace")

        self.sections = []
        for (name, typ, flags, addr, offset, size, link, entsize) in sections:
            sname = cstr(names[4], name) if names else ""
            self.sections.append((sname, typ, flags, addr, size))
        self.symbols = []
        for (name, typ, flags, addr, offset, size, link, entsize) in sections:
            if typ != 2:  # SHT_SYMTAB
                continue
            strtab_off = sections[link][4]
            step = 24 if self.is64 else 16
            for off in range(offset, offset + size, step):
                if self.is64:
                    st_name, st_info, st_other, st_shndx, st_value, st_size = struct.unpack_from(
                        e + "IBBHQQ", data, off)
                else:
                    st_name, st_value, st_size, st_info, st_other, st_shndx = struct.unpack_from(
                        e + "IIIBBH", data, off)
                if st_name == 0 or st_shndx == 0:
                    continue
                styp = st_info & 15
                if styp in (3, 4, 6):  # SECTION, FILE, TLS
                    continue
                letter = self._letter(st_info >> 4, styp, st_shndx)
                if letter is None:
                    continue
                self.symbols.append((st_value, st_size, letter, cstr(strtab_off, st_name)))

    def _letter(self, bind, styp, shndx):
        if shndx == 0xFFF1:
            letter = "a"
        elif shndx >= len(self.sections) or shndx >= 0xFF00:
            return None
        else:
            sname, typ, flags, addr, size = self.sections[shndx]
            if flags & 4:
                letter = "t"
            elif typ == 8:
                letter = "b"
            elif flags & 1:
                letter = "d"
            elif flags & 2:
                letter = "r"
            else:
                return None
        return letter.upper() if bind in (1, 2) else letter

    def symbol(self, name):
        for s in self.symbols:
            if s[3] == name:
                return s
        return None

    def writable_ranges(self, bias):
        """[start, end) of the allocated, writable, non-TLS sections, merged when they touch (<= 256 bytes apart)."""
        spans = sorted((addr + bias, addr + bias + size) for (sname, typ, flags, addr, size) in self.sections
                       if flags & 2 and flags & 1 and not flags & 0x400 and size > 0 and addr != 0)
        merged = []
        for s, e in spans:
            if merged and s - merged[-1][1] <= 256:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        return [tuple(m) for m in merged]

    def write_nm(self, path, bias, word_size):
        width = 2 * word_size
        with open(path, "w") as f:
            for value, size, letter, name in sorted(self.symbols, key=lambda s: (s[0], s[3])):
                addr = value + bias if letter not in "aA" else value
                if size:
                    f.write("%0*x %0*x %s %s\n" % (width, addr, width, size, letter, name))
                else:
                    f.write("%0*x %s %s\n" % (width, addr, letter, name))


def _executable():
    try:
        name = gdb.current_progspace().filename
    except (AttributeError, gdb.error):
        name = None
    if name and os.path.isfile(name):
        return name
    for o in gdb.objfiles():
        if o.filename and os.path.isfile(o.filename):
            return o.filename
    return None


# ------------------------------------------------------------------------------------------------ memory

class Memory:
    def __init__(self, word_size, little, chunk):
        self.inferior = gdb.selected_inferior()
        self.w = word_size
        self.fmt = ("<" if little else ">") + ("Q" if word_size == 8 else "I")
        self.chunk = chunk
        self.bytes_read = 0

    def read(self, address, length):
        out = bytearray()
        at = address
        end = address + length
        while at < end:
            n = min(self.chunk, end - at)
            try:
                out += self.inferior.read_memory(at, n).tobytes()
                at += n
                self.bytes_read += n
            except gdb.MemoryError:
                if self.chunk <= 64:
                    raise DumpError("cannot read target memory at 0x%x (%d bytes)" % (at, n))
                self.chunk //= 2
        return bytes(out)

    def copy_to(self, address, length, path):
        """Streams [address, address+length) into path, chunk by chunk."""
        with open(path, "wb") as f:
            at = address
            end = address + length
            while at < end:
                n = min(1 << 18, end - at)
                f.write(self.read(at, n))
                at += n

    def words(self, address, count):
        data = self.read(address, count * self.w)
        return list(struct.unpack(self.fmt[0] + self.fmt[1] * count, data))

    def word(self, address):
        return self.words(address, 1)[0]


# --------------------------------------------------------------------------------------------- heap areas

class Area:
    def __init__(self, index, struct_address, atb, atb_len, side_tables, pool_start, pool_end, struct_size):
        self.index = index
        self.struct_address = struct_address
        self.atb = atb
        self.atb_len = atb_len
        self.side_tables = side_tables  # [(name, address)]
        self.pool_start = pool_start
        self.pool_end = pool_end
        self.struct_size = struct_size

    def image_range(self):
        """The image: the area's own mp_state_mem_area_t when it sits just before the ATB (split heap areas
        added by gc_add), then ATB .. pool end."""
        start = self.atb
        if self.struct_address is not None and 0 <= self.atb - self.struct_address <= 512:
            start = self.struct_address
        return start, self.pool_end


def _decode(w, i, k, bpb):
    """The locator's pattern at word i with k side tables: A, L, t_1..t_k, P, E (as heapload's GcHeapLocator)."""
    a, l = w[i], w[i + 1]
    if a <= 0 or l <= 0 or l > (1 << 30):
        return False
    p, e = w[i + 2 + k], w[i + 3 + k]
    if p <= 0 or e <= p or p % bpb or e - p != 4 * l * bpb or p < a + l:
        return False
    table_end = a + l
    for j in range(k):
        t = w[i + 2 + j]
        if j == 0:
            if t not in (table_end, table_end + 1):
                return False
        elif t != table_end:
            return False
        table_end = t + (4 * l + 7) // 8
    return p >= table_end


def areas_by_invariants(mem, ctx, ctx_size, bpb):
    w = mem.w
    n = ctx_size // w
    words = mem.words(ctx, n)
    for i in range(n - 3):
        for k in range(3):
            if i + 3 + k < n and _decode(words, i, k, bpb):
                return _chain(mem, ctx + i * w, words[i:i + 4 + k], k, i > 0 and words[i - 1], bpb), i, k
    raise DumpError("no GC heap area found in mp_state_ctx (0x%x, %d bytes) with %d-byte words and %d-byte blocks: "
                    "not a MicroPython build, or the symbols do not match the target?" % (ctx, ctx_size, w, bpb))


def _area_from_words(index, struct_address, fields_address, v, k):
    names = ["gc_finaliser_table_start", "gc_weakref_table_start"][:k]
    return Area(index, struct_address, v[0], v[1], list(zip(names, v[2:2 + k])), v[2 + k], v[3 + k], None)


def _chain(mem, fields0, v0, k, next_word, bpb):
    w = mem.w
    out = [_area_from_words(0, None, fields0, v0, k)]
    nxt = next_word
    seen = set()
    while nxt and nxt not in seen and len(out) < 256:
        seen.add(nxt)
        try:
            v = mem.words(nxt + w, 4 + k)
        except DumpError:
            break
        if not _decode(v, 0, k, bpb):
            break
        area = _area_from_words(len(out), nxt, nxt + w, v, k)
        area.struct_size = (v[0] - nxt) if 0 < v[0] - nxt <= 512 else None
        out.append(area)
        nxt = mem.word(nxt)
    return out


def areas_by_debug_info(ctx_value):
    """From the DWARF field names: mp_state_ctx.mem.area (v1.20+ layouts, `next` on split heaps) or the fields
    inline in mp_state_ctx.mem (<= v1.19)."""
    mem = ctx_value["mem"]
    field_names = [f.name for f in mem.type.strip_typedefs().fields()]
    area = mem["area"] if "area" in field_names else mem
    out = []
    index = 0
    while True:
        names = [f.name for f in area.type.strip_typedefs().fields()]
        sides = [n for n in ("gc_finaliser_table_start", "gc_weakref_table_start", "gc_collect_table_start")
                 if n in names]
        struct_address = int(area.address) if index > 0 else None
        out.append(Area(index, struct_address, int(area["gc_alloc_table_start"]),
                        int(area["gc_alloc_table_byte_len"]), [(n, int(area[n])) for n in sides],
                        int(area["gc_pool_start"]), int(area["gc_pool_end"]), area.type.strip_typedefs().sizeof))
        if "next" not in names or int(area["next"]) == 0 or len(out) >= 256:
            return out
        area = area["next"].dereference()
        index += 1


# ------------------------------------------------------------------------------------------------ ranges

def subtract(ranges, holes):
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


ROM_POOLS = ("mp_qstr_const_pool", "mp_qstr_const_pool_static", "mp_qstr_frozen_const_pool")


def _rom_ranges(elf, bias, max_rom):
    """[(start, end, section names)] of the allocated read-only sections holding the ROM qstr pools and, with debug
    info, the strings they point at; none when they add up to more than max_rom bytes (then a note)."""
    addresses = []
    for name in ROM_POOLS:
        sym = elf.symbol(name)
        if sym is None:
            continue
        addresses.append(sym[0] + bias)
        try:
            pool = gdb.parse_and_eval(name)
            n = int(pool["len"])
            if n > 0:
                addresses.append(int(pool["qstrs"][0]))
                addresses.append(int(pool["qstrs"][n - 1]))
        except (gdb.error, RuntimeError):
            pass
    chosen = []
    for a in addresses:
        for (sname, typ, flags, addr, size) in elf.sections:
            start = addr + bias
            if typ != 8 and flags & 2 and not flags & 1 and size > 0 and addr != 0 and start <= a < start + size:
                if (start, start + size, sname) not in chosen:
                    chosen.append((start, start + size, sname))
    if not chosen:
        return [], None
    total = sum(e - s for s, e, _ in chosen)
    if total > max_rom:
        return [], ("read-only sections with the qstr pools (%d bytes) exceed --max-rom %d: ROM qstrs shown by "
                    "number" % (total, max_rom))
    chosen.sort()
    merged = []
    for s_, e_, n in chosen:
        if merged and s_ <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e_), merged[-1][2] + " " + n)
        else:
            merged.append((s_, e_, n))
    return merged, None


def _version_string(mem, w):
    """sys.version's text (mp_sys_version_obj, a str object {base, hash, len, data}), when readable."""
    addr, _ = _symbol_address("mp_sys_version_obj")
    if addr is None:
        return None
    try:
        v = mem.words(addr, 4)
        if 0 < v[2] < 256:
            return mem.read(v[3], v[2]).decode("utf-8", "replace")
    except (DumpError, gdb.error):
        return None
    return None


def _target_description():
    lines = []
    try:
        arch = gdb.selected_frame().architecture().name()
        lines.append("architecture=%s" % arch)
    except (gdb.error, AttributeError):
        pass
    for cmd in ("show endian", "show osabi"):
        try:
            lines.append("%s: %s" % (cmd, gdb.execute(cmd, to_string=True).strip().splitlines()[0]))
        except (gdb.error, IndexError):
            pass
    try:
        target = gdb.execute("info target", to_string=True).strip().splitlines()
        lines.extend("info target: " + t.strip() for t in target[:4] if t.strip())
    except gdb.error:
        pass
    try:
        conn = gdb.selected_inferior().connection
        if conn is not None:
            lines.append("connection=%s %s" % (conn.type, getattr(conn, "details", "") or ""))
    except AttributeError:
        pass
    return lines


# The collector's functions by phase (py/gc.c; ports name their entry gc_collect). A dump taken while one of them
# is on the stack has MARK entries in the allocation table; heapload tells from this line which allocations the
# collection keeps. Inlined functions show as frames when the ELF has debug info.
_GC_MARK_FRAMES = ("gc_mark_subtree", "gc_mark", "gc_collect_root", "gc_collect_start", "gc_collect_start_common",
                   "gc_helper_collect_regs_and_stack", "gc_collect_regs_and_stack", "gc_helper_get_regs",
                   "mp_thread_gc_others", "gc_deal_with_stack_overflow")
_GC_FINALISE_FRAMES = ("gc_sweep_run_finalisers",)
_GC_SWEEP_FRAMES = ("gc_sweep_free_blocks", "gc_sweep", "gc_collect_end", "gc_sweep_all")


def _gc_phase():
    """(phase, frames) when a garbage collection is on the stack: mark, finalise or sweep from the innermost
    collector frame, else None."""
    names = []
    try:
        f = gdb.newest_frame()
        while f is not None and len(names) < 200:
            names.append(f.name() or "")
            f = f.older()
    except gdb.error:
        pass
    if "gc_collect" not in names and not any(n in names for n in _GC_SWEEP_FRAMES + _GC_MARK_FRAMES):
        return None
    chain = []
    phase = None
    for n in names:
        if n in _GC_MARK_FRAMES or n in _GC_FINALISE_FRAMES or n in _GC_SWEEP_FRAMES or n == "gc_collect":
            chain.append(n)
            if phase is None:
                phase = ("mark" if n in _GC_MARK_FRAMES or n == "gc_collect"
                         else "finalise" if n in _GC_FINALISE_FRAMES else "sweep")
    return phase, " < ".join(chain)


# The C structs whose layout heapload uses to name references (field names, frames), when the ELF has debug info.
# Which type object uses which struct is heapload's knowledge (MicroPythonReader); the dumper only exports them.
LAYOUT_STRUCTS = (
    "mp_state_ctx_t", "mp_code_state_t", "mp_exc_stack_t", "nlr_buf_t", "mp_raw_code_t", "mp_module_context_t",
    "mp_obj_fun_bc_t", "mp_obj_gen_instance_t", "mp_obj_bound_meth_t", "mp_obj_closure_t", "mp_obj_cell_t",
    "mp_obj_exception_t", "mp_obj_module_t", "mp_obj_instance_t", "mp_obj_list_t", "mp_obj_dict_t", "mp_obj_str_t",
    "mp_obj_array_t", "mp_obj_tuple_t", "mp_obj_property_t", "mp_obj_static_class_method_t", "mp_obj_task_t",
    "mp_obj_task_queue_t", "mp_obj_uctypes_struct_t", "mp_obj_template_t", "mp_obj_interpolation_t", "mp_obj_deque_t",
    "mp_obj_stringio_t", "mp_obj_enumerate_t", "mp_obj_filter_t", "mp_obj_map_t", "mp_obj_zip_t", "mp_obj_reversed_t",
    "mp_obj_weakref_t", "mp_obj_set_t", "mp_obj_slice_t", "mp_obj_range_t", "mp_obj_namedtuple_t",
)


def _flatten(t, base, prefix, out, w, depth=0):
    """Leaf fields of a struct as [offset, dotted name, size]: nested structs and unions flattened, fixed arrays
    expanded (at most 64 elements), a flexible array member as [offset, name + "[]", element size]; bit fields left
    out."""
    t = t.strip_typedefs()
    if depth > 8:
        return
    if t.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
        for f in t.fields():
            if getattr(f, "bitpos", None) is None or f.bitsize:
                continue
            _flatten(f.type, base + f.bitpos // 8, (prefix + "." if prefix else "") + (f.name or ""), out, w,
                     depth + 1)
    elif t.code == gdb.TYPE_CODE_ARRAY:
        lo, hi = t.range()
        et = t.target().strip_typedefs()
        if hi < lo:
            out.append([base, prefix + "[]", et.sizeof])
            return
        if et.sizeof == 0:
            return
        for i in range(min(hi - lo + 1, 64)):
            _flatten(et, base + i * et.sizeof, "%s[%d]" % (prefix, i), out, w, depth + 1)
    elif t.code in (gdb.TYPE_CODE_PTR, gdb.TYPE_CODE_INT, gdb.TYPE_CODE_ENUM, gdb.TYPE_CODE_BOOL, gdb.TYPE_CODE_CHAR):
        out.append([base, prefix, t.sizeof])


def write_layouts(path, w):
    """layouts.json: {"word_size", "structs": {name: {"size", "fields": [[offset, name, size], ...]}}} for the
    structs of LAYOUT_STRUCTS the debug info has; returns their number (0: nothing written)."""
    structs = {}
    for name in LAYOUT_STRUCTS:
        try:
            t = gdb.lookup_type(name)
        except gdb.error:
            continue
        out = []
        try:
            _flatten(t, 0, "", out, w)
        except (gdb.error, RuntimeError):
            continue
        structs[name] = {"size": t.strip_typedefs().sizeof, "fields": out}
    if not structs:
        return 0
    with open(path, "w") as f:
        json.dump({"word_size": w, "structs": structs, "dumped_by": "heapload_gdb.py heapload-dump"}, f)
        f.write("\n")
    return len(structs)


def _human(n):
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return ("%d %s" % (n, unit)) if unit == "bytes" else ("%.1f %s" % (n, unit))
        n /= 1024.0


# --------------------------------------------------------------------------------------------------- dump

def dump(directory, label=None, chunk=DEFAULT_CHUNK, max_static=DEFAULT_MAX_STATIC, quiet=False,
         max_rom=DEFAULT_MAX_ROM):
    """Takes the dump; returns the path of regions.json."""
    started = time.time()
    if gdb.selected_thread() is None:
        raise DumpError("no running target: start or attach it and stop it first (a breakpoint, Ctrl-C)")
    w = _word_size()
    little = _little_endian()
    bpb = 4 * w
    mem = Memory(w, little, chunk)
    ctx, ctx_sym = _symbol_address("mp_state_ctx")
    if ctx is None:
        raise DumpError("no symbol mp_state_ctx: load the firmware's ELF (file firmware.elf) or this is not "
                        "a MicroPython build")
    exe = _executable()
    elf = None
    if exe:
        try:
            elf = Elf(exe)
        except (DumpError, OSError, struct.error, IndexError, ValueError):
            elf = None
    elf_ctx = elf.symbol("mp_state_ctx") if elf else None
    bias = ctx - elf_ctx[0] if elf_ctx else 0

    ctx_value = None
    if ctx_sym is not None:
        try:
            ctx_value = ctx_sym.value()
            ctx_size = ctx_value.type.strip_typedefs().sizeof
            if ctx_value.type.strip_typedefs().code != gdb.TYPE_CODE_STRUCT:
                ctx_value = None
        except gdb.error:
            ctx_value = None
    if ctx_value is None:
        ctx_size = elf_ctx[1] if elf_ctx and elf_ctx[1] else 4096
    areas = None
    method = "debug info (mp_state_ctx.mem field names)"
    if ctx_value is not None:
        try:
            areas = areas_by_debug_info(ctx_value)
        except (gdb.error, KeyError, RuntimeError):
            areas = None
    if areas is None:
        method = "invariants (no debug info for mp_state_ctx)"
        areas, _, _ = areas_by_invariants(mem, ctx, ctx_size, bpb)

    # stack
    frame = gdb.newest_frame()
    sp = int(frame.read_register("sp"))
    try:
        pc = int(frame.read_register("pc"))
    except (gdb.error, ValueError):
        pc = int(frame.pc())
    stack_top = int(ctx_value["thread"]["stack_top"]) if ctx_value is not None else mem.word(ctx)
    stack = None
    notes = []
    sp_aligned = sp - sp % w
    if 0 < stack_top and sp_aligned < stack_top and stack_top - sp_aligned <= (16 << 20):
        stack = (sp_aligned, stack_top)
    else:
        notes.append("stack not dumped: $sp 0x%x is not below mp_state_ctx.thread.stack_top 0x%x (another "
                     "thread or an interrupt stack?); the C stack's roots are missing" % (sp, stack_top))

    # static RAM: .data/.bss without heaps and stack
    holes = [a.image_range() for a in areas]
    if stack:
        holes.append(stack)
    static_ranges = []
    if elf:
        rw = elf.writable_ranges(bias)
        pieces = subtract(rw, holes)
        total = sum(e - s for s, e in pieces)
        if pieces and total <= max_static and any(s <= ctx and ctx + ctx_size <= e for s, e in pieces):
            static_ranges = pieces
        else:
            if pieces and total > max_static:
                notes.append(".data/.bss (%d bytes without heap and stack) exceeds --max-static %d: only "
                             "mp_state_ctx dumped" % (total, max_static))
    if not static_ranges:
        static_ranges = [(ctx, ctx + ctx_size)]

    # read-only data holding the ROM qstr pools and their strings (names of attributes, functions, files)
    rom_ranges = []
    if elf and max_rom > 0:
        rom_ranges, note = _rom_ranges(elf, bias, max_rom)
        if note:
            notes.append(note)

    os.makedirs(directory, exist_ok=True)
    regions = []
    written = []
    for a in areas:
        s, e = a.image_range()
        name = "heap_area%d.bin" % a.index
        mem.copy_to(s, e - s, os.path.join(directory, name))
        what = "gc heap area %d: %sgc_alloc_table_start .. gc_pool_end (ATB, [gap], %spool)" % (
            a.index, "mp_state_mem_area_t, " if s != a.atb else "",
            "".join("%s table, " % n.replace("gc_", "").replace("_table_start", "") for n, _ in a.side_tables))
        regions.append({"file": name, "base": "0x%x" % s, "size": e - s, "contents": what})
        written.append((name, e - s))
    for i, (s, e) in enumerate(static_ranges):
        name = "static.bin" if len(static_ranges) == 1 else "static%d.bin" % i
        mem.copy_to(s, e - s, os.path.join(directory, name))
        inside = " (holds mp_state_ctx)" if s <= ctx < e else ""
        regions.append({"file": name, "base": "0x%x" % s, "size": e - s,
                        "contents": "RAM: writable sections .data/.bss%s" % inside
                        if static_ranges != [(ctx, ctx + ctx_size)] else "mp_state_ctx"})
        written.append((name, e - s))
    for i, (s_, e_, sections) in enumerate(rom_ranges):
        name = "rom.bin" if len(rom_ranges) == 1 else "rom%d.bin" % i
        mem.copy_to(s_, e_ - s_, os.path.join(directory, name))
        regions.append({"file": name, "base": "0x%x" % s_, "size": e_ - s_,
                        "contents": "ROM: read-only section %s (the qstr pools and their strings)" % sections})
        written.append((name, e_ - s_))
    if stack:
        mem.copy_to(stack[0], stack[1] - stack[0], os.path.join(directory, "stack.bin"))
        regions.append({"file": "stack.bin", "base": "0x%x" % stack[0], "size": stack[1] - stack[0],
                        "contents": "C stack of the current thread: $sp .. mp_state_ctx.thread.stack_top"})
        written.append(("stack.bin", stack[1] - stack[0]))
    doc = {"little_endian": little, "word_size": w, "bytes_per_block": bpb, "regions": regions,
           "dumped_by": "heapload_gdb.py heapload-dump"}
    if label:
        doc["label"] = label
    with open(os.path.join(directory, "regions.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")

    layouts = 0
    if ctx_value is not None:
        layouts = write_layouts(os.path.join(directory, "layouts.json"), w)
        if layouts:
            written.append(("layouts.json", os.path.getsize(os.path.join(directory, "layouts.json"))))

    symbols_file = None
    if elf and elf.symbols:
        symbols_file = os.path.join(directory, "symbols.nm.txt")
        elf.write_nm(symbols_file, bias, w)

    version = _version_string(mem, w)
    gc_phase = _gc_phase()
    if gc_phase:
        notes.append("stopped inside a garbage collection (phase %s: %s): heapload shows the figures MicroPython "
                     "prints once it completes" % gc_phase)
    with open(os.path.join(directory, "info.txt"), "w") as f:
        if label:
            f.write("label=%s\n" % label)
        f.write("time_utc=%s\n" % time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        f.write("sp=0x%x\npc=0x%x\n" % (sp, pc))
        f.write("stack_top=0x%x\n" % stack_top)
        f.write("word_size=%d\nlittle_endian=%s\nbytes_per_block=%d\n" % (w, str(little).lower(), bpb))
        f.write("mp_state_ctx=0x%x\nsizeof_mp_state_ctx=%d\n" % (ctx, ctx_size))
        f.write("areas_found_by=%s\n" % method)
        for a in areas:
            f.write("area%d: struct=%s gc_alloc_table_start=0x%x gc_alloc_table_byte_len=%d %s gc_pool_start=0x%x "
                    "gc_pool_end=0x%x\n" % (a.index, "mp_state_ctx" if a.struct_address is None
                                            else "0x%x" % a.struct_address, a.atb, a.atb_len,
                                            " ".join("%s=0x%x" % t for t in a.side_tables), a.pool_start, a.pool_end))
        if version:
            f.write("micropython_version=%s\n" % version.replace("\n", " "))
        if gc_phase:
            f.write("gc_phase=%s (collector frames: %s)\n" % gc_phase)
        if exe:
            f.write("executable=%s\nload_bias=0x%x\n" % (exe, bias))
        for line in _target_description():
            f.write(line + "\n")
        for n in notes:
            f.write("note: %s\n" % n)
        for cmd in ("info registers", "bt 30"):
            try:
                f.write("\n# %s\n%s" % (cmd, gdb.execute(cmd, to_string=True)))
            except gdb.error as e:
                f.write("\n# %s: %s\n" % (cmd, e))

    elapsed = time.time() - started
    if not quiet:
        total = sum(n for _, n in written)
        print("heapload-dump: %d heap area(s) found by %s; %s read in %.1f s" % (
            len(areas), method, _human(total), elapsed))
        for name, n in written:
            print("  %-16s %12d bytes" % (name, n))
        for n in notes:
            print("  note: " + n)
        regions_path = os.path.join(directory, "regions.json")
        sym = exe if exe else "firmware.elf"
        print("next: heapload micropython %s --symbols %s" % (shlex.quote(regions_path), shlex.quote(sym)))
    return os.path.join(directory, "regions.json")


class HeaploadDumpCommand(gdb.Command):
    """heapload-dump DIR [--label L] [--chunk BYTES] [--max-static BYTES] [--max-rom BYTES]
Writes a MicroPython heap dump of the stopped target into DIR (regions.json, heap areas, static RAM, the C
stack, info.txt, symbols.nm.txt) for `heapload micropython DIR/regions.json`."""

    def __init__(self):
        super().__init__("heapload-dump", gdb.COMMAND_DATA, gdb.COMPLETE_FILENAME)

    def invoke(self, argument, from_tty):
        args = gdb.string_to_argv(argument)
        directory = None
        label = None
        chunk = DEFAULT_CHUNK
        max_static = DEFAULT_MAX_STATIC
        max_rom = DEFAULT_MAX_ROM
        i = 0
        try:
            while i < len(args):
                a = args[i]
                if a in ("--label", "--chunk", "--max-static", "--max-rom") and i + 1 < len(args):
                    v = args[i + 1]
                    if a == "--label":
                        label = v
                    elif a == "--chunk":
                        chunk = int(v, 0)
                    elif a == "--max-rom":
                        max_rom = int(v, 0)
                    else:
                        max_static = int(v, 0)
                    i += 2
                elif a.startswith("--") or directory is not None:
                    raise gdb.GdbError("usage: heapload-dump DIR [--label L] [--chunk BYTES] [--max-static BYTES] "
                                       "[--max-rom BYTES]")
                else:
                    directory = a
                    i += 1
        except ValueError:
            raise gdb.GdbError("heapload-dump: --chunk, --max-static and --max-rom take a number of bytes")
        if directory is None:
            raise gdb.GdbError("usage: heapload-dump DIR [--label L] [--chunk BYTES] [--max-static BYTES] "
                                       "[--max-rom BYTES]")
        if chunk < 64:
            raise gdb.GdbError("heapload-dump: --chunk must be at least 64 bytes")
        try:
            dump(os.path.expanduser(directory), label, chunk, max_static, max_rom=max_rom)
        except DumpError as e:
            raise gdb.GdbError("heapload-dump: %s" % e)


HeaploadDumpCommand()
