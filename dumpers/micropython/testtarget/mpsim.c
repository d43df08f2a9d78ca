/*
 * mpsim.c - a structure-faithful MicroPython heap simulator: a test target for heapload_gdb.py and heapload's
 * MicroPython reader on 32-bit, big-endian and split-heap targets (built with a cross gcc, run under qemu-user
 * with its gdbstub). It is NOT MicroPython: it has no interpreter. It lays out memory the way MicroPython
 * v1.29 does (py/mpstate.h, py/gc.c, py/qstr.h, py/obj.h as described in heapload's shared notes "MicroPython
 * GC heap dump format"), by the same field names the dumper and the reader rely on:
 *
 *   mp_state_ctx {thread {stack_top, stack_limit, dict_locals, ...}, vm {last_pool, ..., mp_loaded_modules_dict,
 *   dict_main, ..., qstr_last_chunk, qstr_last_alloc, qstr_last_used}, mem {counters, area {[next], ATB, len,
 *   FTB, [WTB], pool start/end, ...}, ...}}; mp_type_* type objects; a ROM qstr pool and a heap qstr pool with
 *   its chunk; the GC areas laid out by gc_init / gc_add (v1.20+ formula with the gap byte, split heap areas
 *   storing their own mp_state_mem_area_t at their start).
 *
 * and allocates real-shaped objects with a first-fit allocator that keeps the allocation table (ATB) and the
 * finaliser / weak-reference tables as MicroPython's GC does: a globals dict table, a cache dict with str values
 * that grows between two stops (its table is reallocated and the old one freed), a list of bytearrays, a user
 * class and an instance, a float, a weakref and some garbage.
 *
 * At each stop (the function mp_micropython_mem_info, where a gdb breakpoint goes) it prints what it built:
 *   GC: total: ..., used: ..., free: ...           (gc_info, as MicroPython prints it)
 *    No. of 1-blocks: ..., 2-blocks: ..., max blk sz: ..., max free sz: ...
 *   expect objects N bytes B references R weak W  (counted when the objects were made, not read back)
 *   expect garbage N                               (objects made and dropped: unreachable, unless a stale
 *                                                   word on the C stack still points at one)
 *   expect type NAME COUNT BYTES                   (per heapload type name)
 *
 * Build options: -DSPLIT_HEAP=n (areas, 1..3), -DWEAKREF=1 (weak-reference table and a weakref object),
 * -DHEAP0_SIZE=bytes (the first area; 24 KiB by default).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef SPLIT_HEAP
#define SPLIT_HEAP 1
#endif
#ifndef WEAKREF
#define WEAKREF 0
#endif
#define MICROPY_GC_SPLIT_HEAP (SPLIT_HEAP > 1)

typedef uintptr_t mp_uint_t;
typedef intptr_t mp_int_t;
typedef void *mp_obj_t;
typedef size_t qstr;
typedef unsigned char byte;

#define WORD ((size_t)sizeof(void *))
#define BYTES_PER_BLOCK (4 * WORD)
#define MP_OBJ_NEW_SMALL_INT(i) ((mp_obj_t)((((mp_uint_t)(i)) << 1) | 1))
#define MP_OBJ_NEW_QSTR(q) ((mp_obj_t)((((mp_uint_t)(q)) << 3) | 2))
#define MP_OBJ_NONE ((mp_obj_t)(uintptr_t)0x6)

/* ------------------------------------------------------------------------------------------------ objects */

struct _mp_obj_type_t;
typedef struct _mp_obj_base_t {
    const struct _mp_obj_type_t *type;
} mp_obj_base_t;

/* v1.20+ slot representation: base, u16 flags, u16 name, 12 slot indexes, slots[] */
typedef struct _mp_obj_type_t {
    mp_obj_base_t base;
    uint16_t flags;
    uint16_t name;
    uint8_t slot_index[12];
    const void *slots[2];
} mp_obj_type_t;

typedef struct _mp_map_elem_t {
    mp_obj_t key;
    mp_obj_t value;
} mp_map_elem_t;

typedef struct _mp_map_t {
    size_t all_keys_are_qstrs : 1;
    size_t is_fixed : 1;
    size_t is_ordered : 1;
    size_t used : (8 * sizeof(size_t) - 3);
    size_t alloc;
    mp_map_elem_t *table;
} mp_map_t;

typedef struct _mp_obj_dict_t {
    mp_obj_base_t base;
    mp_map_t map;
} mp_obj_dict_t;

typedef struct _mp_obj_list_t {
    mp_obj_base_t base;
    size_t alloc;
    size_t len;
    mp_obj_t *items;
} mp_obj_list_t;

typedef struct _mp_obj_str_t {
    mp_obj_base_t base;
    size_t hash;
    size_t len;
    const byte *data;
} mp_obj_str_t;

typedef struct _mp_obj_array_t {
    mp_obj_base_t base;
    size_t typecode : 8;
    size_t free : (8 * sizeof(size_t) - 8);
    size_t len;
    void *items;
} mp_obj_array_t;

typedef struct _mp_obj_instance_t {
    mp_obj_base_t base;
    mp_map_t members;
} mp_obj_instance_t;

#if UINTPTR_MAX > 0xffffffffu
typedef double mp_float_t;
#else
typedef float mp_float_t;
#endif
typedef struct _mp_obj_float_t {
    mp_obj_base_t base;
    mp_float_t value;
} mp_obj_float_t;

typedef struct _mp_obj_ref_t {
    mp_obj_base_t base;
    struct _mp_obj_ref_t *ref_fin_next;
    mp_obj_t obj_weak_ref;
    mp_obj_t callback;
} mp_obj_ref_t;

/* ------------------------------------------------------------------------------------------------ qstrs */

typedef uint8_t qstr_hash_t;
typedef uint8_t qstr_len_t;

typedef struct _qstr_pool_t {
    const struct _qstr_pool_t *prev;
    size_t total_prev_len : (8 * sizeof(size_t) - 1);
    size_t is_sorted : 1;
    size_t alloc;
    size_t len;
    qstr_hash_t *hashes;
    qstr_len_t *lengths;
    const char *qstrs[];
} qstr_pool_t;

enum { Q_NULL, Q_empty, Q_type, Q_dict, Q_list, Q_str, Q_bytearray, Q_float, Q_ref, Q_value, Q_ROM_COUNT };

__attribute__((used)) const qstr_hash_t mp_qstr_const_hashes[Q_ROM_COUNT] = {0, 5, 58, 63, 39, 80, 118, 53, 17, 87};
__attribute__((used)) const qstr_len_t mp_qstr_const_lengths[Q_ROM_COUNT] = {0, 0, 4, 4, 4, 3, 9, 5, 3, 5};
__attribute__((used)) const qstr_pool_t mp_qstr_const_pool_static = {NULL, 0, 1, 0, 0, NULL, NULL, {NULL}};
__attribute__((used)) const qstr_pool_t mp_qstr_const_pool = {
    &mp_qstr_const_pool_static, 0, 1, Q_ROM_COUNT, Q_ROM_COUNT, (qstr_hash_t *)mp_qstr_const_hashes,
    (qstr_len_t *)mp_qstr_const_lengths,
    {"", "", "type", "dict", "list", "str", "bytearray", "float", "ref", "value"},
};

/* the qstrs interned at run time (heap pool), numbered from Q_ROM_COUNT */
static const char *const runtime_qstrs[] = {"_cache", "names", "Node", "node", "wr", "lookup"};
enum { Q_cache = Q_ROM_COUNT, Q_names, Q_Node, Q_node, Q_wr, Q_lookup, Q_ALL };

/* ------------------------------------------------------------------------------------------------ types */

#define TYPE(sym, q) __attribute__((used)) const mp_obj_type_t sym = {{&mp_type_type}, 0, q, {0}, {NULL, NULL}}
extern const mp_obj_type_t mp_type_type;
TYPE(mp_type_type, Q_type);
TYPE(mp_type_dict, Q_dict);
TYPE(mp_type_list, Q_list);
TYPE(mp_type_str, Q_str);
TYPE(mp_type_bytearray, Q_bytearray);
TYPE(mp_type_float, Q_float);
__attribute__((used)) static const mp_obj_type_t mp_type_ref = {{&mp_type_type}, 0, Q_ref, {0}, {NULL, NULL}};

/* ------------------------------------------------------------------------------------------------ state */

typedef struct _mp_state_mem_area_t {
    #if MICROPY_GC_SPLIT_HEAP
    struct _mp_state_mem_area_t *next;
    #endif
    byte *gc_alloc_table_start;
    size_t gc_alloc_table_byte_len;
    byte *gc_finaliser_table_start;
    #if WEAKREF
    byte *gc_weakref_table_start;
    #endif
    byte *gc_pool_start;
    byte *gc_pool_end;
    size_t gc_last_free_atb_index;
    size_t gc_last_used_block;
} mp_state_mem_area_t;

typedef struct _mp_state_mem_t {
    size_t total_bytes_allocated;
    size_t current_bytes_allocated;
    size_t peak_bytes_allocated;
    mp_state_mem_area_t area;
    int gc_stack_overflow;
    size_t gc_block_stack[64];
    #if MICROPY_GC_SPLIT_HEAP
    mp_state_mem_area_t *gc_area_stack[64];
    #endif
    uint16_t gc_auto_collect_enabled;
    size_t gc_alloc_amount;
    size_t gc_alloc_threshold;
    #if MICROPY_GC_SPLIT_HEAP
    mp_state_mem_area_t *gc_last_free_area;
    #endif
} mp_state_mem_t;

typedef struct _mp_state_vm_t {
    /* root pointer section: from thread.dict_locals up to qstr_last_chunk */
    qstr_pool_t *last_pool;
    mp_obj_t mp_emergency_exception_obj;
    mp_obj_dict_t *mp_module_builtins_override_dict;
    mp_obj_dict_t mp_loaded_modules_dict;
    mp_obj_dict_t dict_main;
    mp_obj_t mp_sys_path;
    mp_obj_t mp_sys_argv;
    mp_obj_ref_t *mp_weakref_fin_head;
    /* not scanned */
    char *qstr_last_chunk;
    size_t qstr_last_alloc;
    size_t qstr_last_used;
    uint16_t mp_sched_idx;
    mp_int_t mp_pending_exception;
} mp_state_vm_t;

typedef struct _mp_state_thread_t {
    char *stack_top;
    size_t stack_limit;
    mp_obj_dict_t *dict_locals;
    mp_obj_dict_t *dict_globals;
    void *nlr_top;
} mp_state_thread_t;

typedef struct _mp_state_ctx_t {
    mp_state_thread_t thread;
    mp_state_vm_t vm;
    mp_state_mem_t mem;
} mp_state_ctx_t;

mp_state_ctx_t mp_state_ctx;
#define MP_STATE_MEM(x) (mp_state_ctx.mem.x)

/* static heap regions (bare-metal ports: gc_heap in .bss); areas 1.. are added with gc_add */
#ifndef HEAP0_SIZE
#define HEAP0_SIZE (24 * 1024)
#endif
static byte gc_heap[HEAP0_SIZE] __attribute__((aligned(64)));
#if SPLIT_HEAP > 1
static byte gc_heap_extra[SPLIT_HEAP - 1][12 * 1024] __attribute__((aligned(64)));
#endif

__attribute__((used)) const mp_obj_str_t mp_sys_version_obj = {{&mp_type_str}, 0,
    sizeof "3.4.0; mpsim (MicroPython layout v1.29)" - 1, (const byte *)"3.4.0; mpsim (MicroPython layout v1.29)"};

/* ------------------------------------------------------------------------------------------------ GC */

#define AT_FREE 0
#define AT_HEAD 1
#define AT_TAIL 2
#define ATB_GET(a, b) (((a)->gc_alloc_table_start[(b) / 4] >> (2 * ((b) % 4))) & 3)
#define ATB_SET(a, b, v) ((a)->gc_alloc_table_start[(b) / 4] = (byte)(((a)->gc_alloc_table_start[(b) / 4] \
    & ~(3 << (2 * ((b) % 4)))) | ((v) << (2 * ((b) % 4)))))

static void gc_setup_area(mp_state_mem_area_t *area, byte *start, byte *end) {
    size_t total = (size_t)(end - start);
    /* v1.20+: (T - 1 gap byte) * 8 / (8 + 4 [FTB] + 4 [WTB] + 32 * BPB) */
    area->gc_alloc_table_byte_len = (total - 1) * 8 / (8 + 4 + (WEAKREF ? 4 : 0) + 32 * BYTES_PER_BLOCK);
    area->gc_alloc_table_start = start;
    size_t ftb_len = (area->gc_alloc_table_byte_len * 4 + 7) / 8;
    area->gc_finaliser_table_start = start + area->gc_alloc_table_byte_len + 1; /* the v1.20 gap byte */
    #if WEAKREF
    area->gc_weakref_table_start = area->gc_finaliser_table_start + ftb_len;
    #endif
    (void)ftb_len;
    area->gc_pool_start = end - area->gc_alloc_table_byte_len * 4 * BYTES_PER_BLOCK;
    area->gc_pool_end = end;
    area->gc_last_free_atb_index = 0;
    area->gc_last_used_block = 0;
    memset(start, 0, (size_t)(area->gc_pool_start - start));
}

static void gc_init(byte *start, byte *end) {
    end = (byte *)((uintptr_t)end & ~(uintptr_t)(BYTES_PER_BLOCK - 1));
    gc_setup_area(&MP_STATE_MEM(area), start, end);
    MP_STATE_MEM(gc_auto_collect_enabled) = 1;
    MP_STATE_MEM(gc_alloc_threshold) = (size_t)-1;
}

#if MICROPY_GC_SPLIT_HEAP
static void gc_add(byte *start, byte *end) {
    mp_state_mem_area_t *area = (mp_state_mem_area_t *)start;
    start += sizeof(mp_state_mem_area_t);
    end = (byte *)((uintptr_t)end & ~(uintptr_t)(BYTES_PER_BLOCK - 1));
    gc_setup_area(area, start, end);
    area->next = NULL;
    mp_state_mem_area_t *prev = &MP_STATE_MEM(area);
    while (prev->next != NULL) {
        prev = prev->next;
    }
    prev->next = area;
}
#define FOR_AREAS(a) for (mp_state_mem_area_t *a = &MP_STATE_MEM(area); a != NULL; a = a->next)
#else
#define FOR_AREAS(a) for (mp_state_mem_area_t *a = &MP_STATE_MEM(area); a != NULL; a = NULL)
#endif

static size_t area_blocks(const mp_state_mem_area_t *a) {
    return a->gc_alloc_table_byte_len * 4;
}

/* expected figures, counted as objects are made */
enum { T_DICT, T_MAP_TABLE, T_STR, T_STR_DATA, T_LIST, T_LIST_ITEMS, T_BYTEARRAY, T_ARRAY_DATA, T_TYPE, T_NODE,
    T_FLOAT, T_REF, T_QSTR_POOL, T_QSTR_CHUNK, T_COUNT };
static const char *const type_names[T_COUNT] = {"dict", "map_table", "str", "str_data", "list", "list_items",
    "bytearray", "array_data", "type", "Node", "float", "ref", "qstr_pool", "qstr_chunk"};
static long expect_count[T_COUNT];
static long expect_bytes[T_COUNT];
static long expect_refs;
static long expect_weak;
static long garbage_objects;

static void *gc_alloc(size_t n_bytes, int kind, int finaliser) {
    size_t n_blocks = (n_bytes + BYTES_PER_BLOCK - 1) / BYTES_PER_BLOCK;
    if (n_blocks == 0) {
        n_blocks = 1;
    }
    FOR_AREAS(a) {
        size_t total = area_blocks(a);
        size_t run = 0;
        for (size_t b = 0; b < total; b++) {
            run = ATB_GET(a, b) == AT_FREE ? run + 1 : 0;
            if (run == n_blocks) {
                size_t start = b + 1 - n_blocks;
                ATB_SET(a, start, AT_HEAD);
                for (size_t t = start + 1; t <= b; t++) {
                    ATB_SET(a, t, AT_TAIL);
                }
                if (finaliser) {
                    a->gc_finaliser_table_start[start / 8] |= (byte)(1 << (start % 8));
                }
                if (b > a->gc_last_used_block) {
                    a->gc_last_used_block = b;
                }
                byte *p = a->gc_pool_start + start * BYTES_PER_BLOCK;
                memset(p, 0, n_blocks * BYTES_PER_BLOCK);
                MP_STATE_MEM(total_bytes_allocated) += n_blocks * BYTES_PER_BLOCK;
                MP_STATE_MEM(current_bytes_allocated) += n_blocks * BYTES_PER_BLOCK;
                expect_count[kind]++;
                expect_bytes[kind] += (long)(n_blocks * BYTES_PER_BLOCK);
                return p;
            }
        }
    }
    printf("mpsim: out of memory allocating %zu bytes\n", n_bytes);
    return NULL;
}

static void gc_free(void *ptr, int kind) {
    FOR_AREAS(a) {
        if ((byte *)ptr >= a->gc_pool_start && (byte *)ptr < a->gc_pool_end) {
            size_t b = (size_t)((byte *)ptr - a->gc_pool_start) / BYTES_PER_BLOCK;
            size_t n = 0;
            do {
                ATB_SET(a, b + n, AT_FREE);
                n++;
            } while (b + n < area_blocks(a) && ATB_GET(a, b + n) == AT_TAIL);
            a->gc_finaliser_table_start[b / 8] &= (byte)~(1 << (b % 8));
            memset(ptr, 0, n * BYTES_PER_BLOCK);
            MP_STATE_MEM(current_bytes_allocated) -= n * BYTES_PER_BLOCK;
            expect_count[kind]--;
            expect_bytes[kind] -= (long)(n * BYTES_PER_BLOCK);
            return;
        }
    }
}

/* gc_info as py/gc.c computes it: a run of blocks is counted when the next block is FREE or a HEAD (or at the
 * area's end); a free run is closed only at a HEAD or at the area's end */
static void gc_info_print(void) {
    size_t total = 0, used = 0, free_b = 0, n1 = 0, n2 = 0, max_block = 0, max_free = 0;
    FOR_AREAS(a) {
        size_t blocks = area_blocks(a);
        size_t len = 0, len_free = 0;
        total += (size_t)(a->gc_pool_end - a->gc_pool_start);
        for (size_t b = 0; b < blocks; b++) {
            int kind = ATB_GET(a, b);
            if (kind == AT_FREE) {
                free_b++;
                len_free++;
                len = 0;
            } else if (kind == AT_HEAD) {
                used++;
                len = 1;
            } else if (kind == AT_TAIL) {
                used++;
                len++;
            }
            int finish = b + 1 == blocks;
            int next = finish ? AT_FREE : ATB_GET(a, b + 1);
            if (finish || next == AT_FREE || next == AT_HEAD) {
                if (len == 1) {
                    n1++;
                } else if (len == 2) {
                    n2++;
                }
                if (len > max_block) {
                    max_block = len;
                }
                if (finish || next == AT_HEAD) {
                    if (len_free > max_free) {
                        max_free = len_free;
                    }
                    len_free = 0;
                }
            }
        }
    }
    printf("GC: total: %zu, used: %zu, free: %zu\n", total, used * BYTES_PER_BLOCK, free_b * BYTES_PER_BLOCK);
    printf(" No. of 1-blocks: %zu, 2-blocks: %zu, max blk sz: %zu, max free sz: %zu\n", n1, n2, max_block, max_free);
}

/* --------------------------------------------------------------------------------------------- the scenario */

static void store(mp_obj_t *slot, void *target) {
    *slot = target;
    expect_refs++;
}

static mp_obj_str_t *new_str(const char *text, int kind_data) {
    size_t n = strlen(text);
    mp_obj_str_t *s = gc_alloc(sizeof(mp_obj_str_t), T_STR, 0);
    byte *data = gc_alloc(n + 1, kind_data, 0);
    memcpy(data, text, n + 1);
    s->base.type = &mp_type_str;
    s->hash = 0;
    for (size_t i = 0; i < n; i++) {
        s->hash = (s->hash * 33) ^ (byte)text[i];
    }
    s->hash &= 0xffff;
    s->len = n;
    store((mp_obj_t *)&s->data, data);
    return s;
}

static mp_map_elem_t *new_table(size_t alloc) {
    return gc_alloc(alloc * sizeof(mp_map_elem_t), T_MAP_TABLE, 0);
}

/* map_store: open addressing by the key's hash, as MicroPython's mp_map_lookup (linear probing) */
static void map_store(mp_map_t *map, mp_obj_t key, void *value) {
    size_t pos = ((mp_uint_t)key >> 1) % map->alloc;
    while (map->table[pos].key != NULL && map->table[pos].key != key) {
        pos = (pos + 1) % map->alloc;
    }
    if (map->table[pos].key == NULL) {
        map->used++;
    }
    map->table[pos].key = key;
    store(&map->table[pos].value, value);
}

static void dict_grow(mp_obj_dict_t *d, size_t new_alloc) {
    mp_map_elem_t *old = d->map.table;
    size_t old_alloc = d->map.alloc;
    d->map.table = new_table(new_alloc); /* the dict's pointer to its new table replaces the old one */
    d->map.alloc = new_alloc;
    d->map.used = 0;
    for (size_t i = 0; i < old_alloc; i++) {
        if (old[i].key != NULL) {
            map_store(&d->map, old[i].key, old[i].value);
            expect_refs--; /* the old table's value reference goes with it */
        }
    }
    gc_free(old, T_MAP_TABLE);
}

static mp_obj_dict_t *cache;
static int cache_len;

static void cache_fill(int upto) {
    char text[32];
    for (; cache_len < upto; cache_len++) {
        if ((size_t)(cache_len + 1) * 4 > cache->map.alloc * 3) {
            dict_grow(cache, cache->map.alloc * 2 + 1);
        }
        snprintf(text, sizeof text, "result-%d", cache_len);
        map_store(&cache->map, MP_OBJ_NEW_SMALL_INT(cache_len), new_str(text, T_STR_DATA));
    }
}

/* where the debugger stops (as the unix port's micropython.mem_info) */
__attribute__((noinline)) void mp_micropython_mem_info(int stop) {
    gc_info_print();
    long objects = 0, bytes = 0;
    for (int t = 0; t < T_COUNT; t++) {
        objects += expect_count[t];
        bytes += expect_bytes[t];
    }
    printf("expect stop %d objects %ld bytes %ld strong %ld weak %ld\n", stop, objects, bytes, expect_refs, expect_weak);
    /* garbage: unreachable unless a stale word on the C stack still points at it (conservative scanning) */
    printf("expect garbage %ld\n", garbage_objects);
    for (int t = 0; t < T_COUNT; t++) {
        if (expect_count[t] > 0) {
            printf("expect type %s %ld %ld\n", type_names[t], expect_count[t], expect_bytes[t]);
        }
    }
    fflush(stdout);
    __asm__ volatile ("" ::: "memory");
}

static void garbage(void) {
    /* made and dropped: allocated, unreachable */
    new_str("garbage: a temporary string", T_STR_DATA);
    garbage_objects += 2;
}

int main(void) {
    volatile int top = 0; /* as mp_stack_ctrl_init: the address of a local of main */
    mp_state_ctx.thread.stack_top = (char *)&top;
    mp_state_ctx.thread.stack_limit = 40000;
    mp_state_ctx.thread.dict_locals = &mp_state_ctx.vm.dict_main;
    mp_state_ctx.thread.dict_globals = &mp_state_ctx.vm.dict_main;
    mp_state_ctx.vm.mp_loaded_modules_dict.base.type = &mp_type_dict;
    mp_state_ctx.vm.dict_main.base.type = &mp_type_dict;
    mp_state_ctx.vm.mp_sys_path = MP_OBJ_NONE;
    mp_state_ctx.vm.mp_sys_argv = MP_OBJ_NONE;

    gc_init(gc_heap, gc_heap + HEAP0_SIZE);
    #if SPLIT_HEAP > 1
    /* added from the last region down: the areas are not in ascending order (as unix's mmap'd ones) */
    for (int i = SPLIT_HEAP - 2; i >= 0; i--) {
        gc_add(gc_heap_extra[i], gc_heap_extra[i] + sizeof gc_heap_extra[i] - 8);
    }
    #endif

    /* heap qstr pool and its chunk (qstr_add: header + qstrs[alloc] + hashes[alloc] + lengths[alloc]) */
    size_t nq = Q_ALL - Q_ROM_COUNT;
    size_t pool_alloc = nq + 2;
    qstr_pool_t *pool = gc_alloc(sizeof(qstr_pool_t) + pool_alloc * (sizeof(char *) + 2), T_QSTR_POOL, 0);
    size_t chunk_alloc = 2 * BYTES_PER_BLOCK + 5;
    char *chunk = gc_alloc(chunk_alloc, T_QSTR_CHUNK, 0);
    pool->prev = &mp_qstr_const_pool;
    pool->total_prev_len = Q_ROM_COUNT;
    pool->is_sorted = 0;
    pool->alloc = pool_alloc;
    pool->len = nq;
    pool->hashes = (qstr_hash_t *)(pool->qstrs + pool_alloc);
    pool->lengths = (qstr_len_t *)(pool->hashes + pool_alloc);
    size_t used = 0;
    for (size_t i = 0; i < nq; i++) {
        size_t n = strlen(runtime_qstrs[i]);
        memcpy(chunk + used, runtime_qstrs[i], n + 1);
        pool->qstrs[i] = chunk + used;
        pool->lengths[i] = (qstr_len_t)n;
        pool->hashes[i] = (qstr_hash_t)(n * 7 + 1);
        used += n + 1;
    }
    expect_refs++; /* qstrs[0] points at the chunk's head; the others point into it (interior pointers) */
    mp_state_ctx.vm.last_pool = pool;
    mp_state_ctx.vm.qstr_last_chunk = chunk;
    mp_state_ctx.vm.qstr_last_alloc = chunk_alloc;
    mp_state_ctx.vm.qstr_last_used = used;

    /* __main__ globals: the static dict_main's table (a root) */
    mp_map_t *globals = &mp_state_ctx.vm.dict_main.map;
    globals->all_keys_are_qstrs = 1;
    globals->alloc = 7;
    globals->table = new_table(globals->alloc);

    garbage();

    cache = gc_alloc(sizeof(mp_obj_dict_t), T_DICT, 0);
    cache->base.type = &mp_type_dict;
    cache->map.alloc = 3;
    store((mp_obj_t *)&cache->map.table, new_table(cache->map.alloc));
    map_store(globals, MP_OBJ_NEW_QSTR(Q_cache), cache);

    mp_obj_list_t *names = gc_alloc(sizeof(mp_obj_list_t), T_LIST, 0);
    names->base.type = &mp_type_list;
    names->alloc = 8;
    store((mp_obj_t *)&names->items, gc_alloc(names->alloc * sizeof(mp_obj_t), T_LIST_ITEMS, 0));
    for (int i = 0; i < 5; i++) {
        mp_obj_array_t *ba = gc_alloc(sizeof(mp_obj_array_t), T_BYTEARRAY, 0);
        ba->base.type = &mp_type_bytearray;
        ba->typecode = 1; /* BYTEARRAY_TYPECODE */
        ba->len = 8 + 24 * (size_t)i;
        byte *items = gc_alloc(ba->len, T_ARRAY_DATA, 0);
        memset(items, 'a' + i, ba->len);
        store(&ba->items, items);
        store(&names->items[names->len++], ba);
    }
    map_store(globals, MP_OBJ_NEW_QSTR(Q_names), names);

    mp_obj_type_t *node_type = gc_alloc(sizeof(mp_obj_type_t), T_TYPE, 0);
    node_type->base.type = &mp_type_type;
    node_type->name = Q_Node;
    mp_obj_instance_t *node = gc_alloc(sizeof(mp_obj_instance_t), T_NODE, 1);
    store((mp_obj_t *)&node->base.type, node_type);
    node->members.alloc = 3;
    store((mp_obj_t *)&node->members.table, new_table(node->members.alloc));
    mp_obj_float_t *f = gc_alloc(sizeof(mp_obj_float_t), T_FLOAT, 0);
    f->base.type = &mp_type_float;
    f->value = (mp_float_t)1.5;
    map_store(&node->members, MP_OBJ_NEW_QSTR(Q_value), f);
    map_store(globals, MP_OBJ_NEW_QSTR(Q_node), node);

    garbage();

    #if WEAKREF
    /* weakref.ref(first cache value): the target is stored as ptr|1, the target's block flagged in the WTB */
    cache_fill(1);
    mp_obj_ref_t *wr = gc_alloc(sizeof(mp_obj_ref_t), T_REF, 1);
    wr->base.type = &mp_type_ref;
    mp_obj_t target = cache->map.table[(((mp_uint_t)MP_OBJ_NEW_SMALL_INT(0)) >> 1) % cache->map.alloc].value;
    wr->obj_weak_ref = (mp_obj_t)((mp_uint_t)target | 1);
    wr->callback = MP_OBJ_NONE;
    expect_weak++;
    FOR_AREAS(a) {
        if ((byte *)target >= a->gc_pool_start && (byte *)target < a->gc_pool_end) {
            size_t b = (size_t)((byte *)target - a->gc_pool_start) / BYTES_PER_BLOCK;
            a->gc_weakref_table_start[b / 8] |= (byte)(1 << (b % 8));
        }
    }
    map_store(globals, MP_OBJ_NEW_QSTR(Q_wr), wr);
    #endif

    cache_fill(20);
    mp_micropython_mem_info(1);
    cache_fill(120);
    garbage();
    mp_micropython_mem_info(2);
    printf("done %d\n", cache_len);
    return 0;
}
