/* A stand-in firmware for heapload's ELF symbol test: the names and sizes MicroPython's reader looks up. */
typedef struct { const void *type; unsigned short flags, name; } mp_obj_type_t;
const mp_obj_type_t mp_type_type = { &mp_type_type, 0, 0 };
const mp_obj_type_t mp_type_dict = { &mp_type_type, 0, 0 };
static const mp_obj_type_t mp_type_ref = { &mp_type_type, 0, 0 };
const char *const qstr_strings[] = { "", "__main__", "Point" };
unsigned char mp_state_ctx[684];
static unsigned char gc_heap[4096];
const void *keep(void) { return &mp_type_ref == 0 ? 0 : (const void *)gc_heap; }
void _start(void) { for (;;) { } }
