/*
 * heapdump_native: the optional C helper of heapload's Lua dumper (heapdump.lua). Public C API only; one source for
 * Lua 5.1, 5.2, 5.3, 5.4, 5.5 and LuaJIT 2.1. When `require "heapdump_native"` succeeds, heapdump.write uses it to
 * see what the debug library hides:
 *
 *   mainthread()      the main thread (5.2+: the registry's LUA_RIDX_MAINTHREAD; 5.1/LuaJIT, where no API returns
 *                     it: the main thread once this module was loaded, or any of its functions ran, on it
 *                     (lua_pushthread returns 1 there)), or nil when not known yet
 *   getupvalue(f, n)  name and value of upvalue n of any function, C functions included (lua_getupvalue: the
 *                     Lua 5.1 debug library refuses C functions, so coroutine.wrap generators hide their thread)
 *   udsize(u)         the payload size in bytes of a full userdata (lua_objlen / lua_rawlen), nil for others
 *   islight(u)        true for a light userdata (5.2 and 5.3 cannot tell them from full ones in Lua)
 *   stroffset(s)      the distance in bytes from a string object to its bytes (lua_tolstring - lua_topointer):
 *                     small for strings that hold their bytes, anything else for Lua 5.5 external strings
 *                     (lua_pushexternalstring, used by the auxiliary library's buffers) whose bytes Lua does not
 *                     count as its own
 *   track(on)         allocation sites: true installs an allocator wrapper (lua_setallocf) and a call/return/line
 *                     hook on the calling thread and the main thread (coroutines they create inherit it; LuaJIT's
 *                     hooks are global); every GC object allocated
 *                     while on is recorded as address -> site (source, line, function); frees drop their entry.
 *                     false stops recording (and removes the hooks); the sites of objects still alive are kept,
 *                     and the wrapper is taken out once none is left. Before the first track(true) nothing is
 *                     installed. Returns the previous state.
 *   sitesbegin()      snapshot of the recorded blocks, sorted, for site(); pauses recording; returns their count
 *   site(v)           the site id (>= 1) of the block holding object v, or nil (allocated while not tracking)
 *   siteinfo(id)      source, line, function name of a site id
 *   sitesend()        frees the snapshot and resumes recording
 *   trackstats()      recorded blocks, sites, bytes of the tables (C heap, outside the Lua allocator)
 *
 * Build (the headers of the Lua the program runs on; Debian: liblua5.x-dev, libluajit-5.1-dev):
 *
 *   cc -shared -fPIC -O2 -I/usr/include/lua5.4 heapdump_native.c -o heapdump_native.so
 *
 * and put the directory of heapdump_native.so on package.cpath (LUA_CPATH). On macOS add
 * -undefined dynamic_lookup. heapdump.lua works without it.
 */
#if defined(__unix__) || defined(__APPLE__)
#define _GNU_SOURCE 1
#include <dlfcn.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "lua.h"
#include "lauxlib.h"

/* Learns the main thread when running on it (5.1/LuaJIT): kept in the table that is upvalue 1 of every function. */
static void learn_main(lua_State *L) {
#if LUA_VERSION_NUM < 502
  lua_rawgeti(L, lua_upvalueindex(1), 1);
  if (lua_isnil(L, -1)) {
    if (lua_pushthread(L)) {
      lua_rawseti(L, lua_upvalueindex(1), 1);
    } else {
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
#else
  (void)L;
#endif
}

static int l_mainthread(lua_State *L) {
  learn_main(L);
#if LUA_VERSION_NUM >= 502
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
#else
  lua_rawgeti(L, lua_upvalueindex(1), 1);
#endif
  return 1;
}

static int l_getupvalue(lua_State *L) {
  const char *name;
  int n = (int)luaL_checkinteger(L, 2);
  learn_main(L);
  luaL_checktype(L, 1, LUA_TFUNCTION);
  name = lua_getupvalue(L, 1, n);
  if (name == NULL) {
    return 0;
  }
  lua_pushstring(L, name);
  lua_insert(L, -2);
  return 2;
}

static int l_udsize(lua_State *L) {
  learn_main(L);
  if (lua_type(L, 1) != LUA_TUSERDATA) {
    return 0;
  }
#if LUA_VERSION_NUM >= 502
  lua_pushinteger(L, (lua_Integer)lua_rawlen(L, 1));
#else
  lua_pushinteger(L, (lua_Integer)lua_objlen(L, 1));
#endif
  return 1;
}

static int l_islight(lua_State *L) {
  learn_main(L);
  lua_pushboolean(L, lua_type(L, 1) == LUA_TLIGHTUSERDATA);
  return 1;
}

static int l_stroffset(lua_State *L) {
  const char *bytes;
  const char *object;
  learn_main(L);
  if (lua_type(L, 1) != LUA_TSTRING) {
    return 0;
  }
  bytes = lua_tolstring(L, 1, NULL);
  object = (const char *)lua_topointer(L, 1);
  if (object == NULL) {
    return 0;
  }
  lua_pushnumber(L, (lua_Number)(bytes - object));
  return 1;
}


/* ---- allocation sites ---------------------------------------------------------------------------------------------
 * One tracked Lua state per process. Everything here lives in the C heap (malloc), never in the Lua allocator. The
 * hook keeps the current position (function descriptor + line) of the running Lua code; the allocator wrapper stamps
 * each new block with it. Lua 5.2+ passes the new object's type tag as osize for GC objects (0 for other blocks), so
 * only objects are recorded there; 5.1 and LuaJIT pass 0 for every block, so every new block is recorded (lookups
 * find the block that holds an object, so the extra blocks are never answers). */

typedef struct { uintptr_t key; uint32_t size; uint32_t site; } Block;        /* key 0 = empty slot */
typedef struct { char *source; char *name; int what; } Func;                  /* what: 0 Lua, 1 main */
typedef struct { uint32_t func; int32_t line; uint32_t next; } Site;          /* next: hash chain, 0 = end */

static struct {
  lua_Alloc orig; void *origud; int installed; int on; int paused; lua_State *owner;
  Block *blocks; size_t cap; size_t count;                   /* open addressing, linear probing */
  Func *funcs; uint32_t nfuncs, capfuncs;                    /* index 0 unused */
  Site *sites; uint32_t nsites, capsites;                    /* index 0 unused */
  uint32_t *sitehash; uint32_t sitehashcap;                   /* heads of the chains, power of two */
  uint32_t *funchash; uint32_t funchashcap;
  uint32_t curfunc; int32_t curline; uint32_t cursite; lua_State *curthread; int called;
  Block *sorted; size_t nsorted;
} T;

static size_t slot(uintptr_t key, size_t cap) {
  uint64_t h = (uint64_t)(key >> 3) * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 20) & (cap - 1);
}

static int grow_blocks(void) {
  size_t ncap = T.cap ? T.cap * 2 : 1 << 16, i;
  Block *nb = (Block *)calloc(ncap, sizeof(Block));
  if (nb == NULL) return 0;
  for (i = 0; i < T.cap; i++) {
    if (T.blocks[i].key) {
      size_t j = slot(T.blocks[i].key, ncap);
      while (nb[j].key) j = (j + 1) & (ncap - 1);
      nb[j] = T.blocks[i];
    }
  }
  free(T.blocks);
  T.blocks = nb;
  T.cap = ncap;
  return 1;
}

static void put_block(void *p, size_t size, uint32_t site) {
  size_t j;
  if ((T.count + 1) * 2 > T.cap && !grow_blocks()) return;    /* out of C memory: the block stays without site */
  j = slot((uintptr_t)p, T.cap);
  while (T.blocks[j].key && T.blocks[j].key != (uintptr_t)p) j = (j + 1) & (T.cap - 1);
  if (!T.blocks[j].key) T.count++;
  T.blocks[j].key = (uintptr_t)p;
  T.blocks[j].size = size > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)size;
  T.blocks[j].site = site;
}

static void drop_block(void *p) {        /* backward-shift deletion: no tombstones */
  size_t i, j, k;
  if (T.count == 0) return;
  i = slot((uintptr_t)p, T.cap);
  while (T.blocks[i].key != (uintptr_t)p) {
    if (!T.blocks[i].key) return;
    i = (i + 1) & (T.cap - 1);
  }
  T.blocks[i].key = 0;
  T.count--;
  j = i;
  for (;;) {
    j = (j + 1) & (T.cap - 1);
    if (!T.blocks[j].key) return;
    k = slot(T.blocks[j].key, T.cap);
    /* move j into the hole i when its home k is not cyclically in (i, j] */
    if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
      T.blocks[i] = T.blocks[j];
      T.blocks[j].key = 0;
      i = j;
    }
  }
}

static uint32_t hash_str(const char *s, uint32_t h) {
  while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
  return h;
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = (char *)malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* the descriptor id of (source, name, what), interned by content; 0 when out of C memory */
static uint32_t intern_func(const char *source, const char *name, int what) {
  uint32_t h = hash_str(name, hash_str(source, 2166136261u) ^ (uint32_t)what), i;
  if (T.funchashcap == 0 || T.nfuncs * 2 >= T.funchashcap) {
    uint32_t ncap = T.funchashcap ? T.funchashcap * 2 : 1024, f;
    uint32_t *nh = (uint32_t *)calloc(ncap, sizeof(uint32_t));
    if (nh == NULL) return 0;
    for (f = 1; f < T.nfuncs; f++) {
      uint32_t g = hash_str(T.funcs[f].name, hash_str(T.funcs[f].source, 2166136261u) ^ (uint32_t)T.funcs[f].what);
      for (i = g & (ncap - 1); nh[i]; i = (i + 1) & (ncap - 1)) {}
      nh[i] = f;
    }
    free(T.funchash);
    T.funchash = nh;
    T.funchashcap = ncap;
  }
  for (i = h & (T.funchashcap - 1); T.funchash[i]; i = (i + 1) & (T.funchashcap - 1)) {
    Func *f = &T.funcs[T.funchash[i]];
    if (f->what == what && strcmp(f->source, source) == 0 && strcmp(f->name, name) == 0) return T.funchash[i];
  }
  if (T.nfuncs == 0) T.nfuncs = 1;
  if (T.nfuncs >= T.capfuncs) {
    uint32_t ncap = T.capfuncs ? T.capfuncs * 2 : 256;
    Func *nf = (Func *)realloc(T.funcs, ncap * sizeof(Func));
    if (nf == NULL) return 0;
    T.funcs = nf;
    T.capfuncs = ncap;
  }
  T.funcs[T.nfuncs].source = dup_str(source);
  T.funcs[T.nfuncs].name = dup_str(name);
  T.funcs[T.nfuncs].what = what;
  if (!T.funcs[T.nfuncs].source || !T.funcs[T.nfuncs].name) return 0;
  T.funchash[i] = T.nfuncs;
  return T.nfuncs++;
}

/* the site id of the current position, interned; 0 when not known */
static uint32_t current_site(void) {
  uint32_t h, s;
  if (T.cursite || T.curfunc == 0) return T.cursite;
  if (T.sitehashcap == 0 || T.nsites * 2 >= T.sitehashcap) {
    uint32_t ncap = T.sitehashcap ? T.sitehashcap * 2 : 4096;
    uint32_t *nh = (uint32_t *)calloc(ncap, sizeof(uint32_t));
    if (nh == NULL) return 0;
    for (s = 1; s < T.nsites; s++) {
      h = (T.sites[s].func * 2654435761u ^ (uint32_t)T.sites[s].line * 40503u) & (ncap - 1);
      T.sites[s].next = nh[h];
      nh[h] = s;
    }
    free(T.sitehash);
    T.sitehash = nh;
    T.sitehashcap = ncap;
  }
  h = (T.curfunc * 2654435761u ^ (uint32_t)T.curline * 40503u) & (T.sitehashcap - 1);
  for (s = T.sitehash[h]; s; s = T.sites[s].next) {
    if (T.sites[s].func == T.curfunc && T.sites[s].line == T.curline) return T.cursite = s;
  }
  if (T.nsites == 0) T.nsites = 1;
  if (T.nsites >= T.capsites) {
    uint32_t ncap = T.capsites ? T.capsites * 2 : 1024;
    Site *ns = (Site *)realloc(T.sites, ncap * sizeof(Site));
    if (ns == NULL) return 0;
    T.sites = ns;
    T.capsites = ncap;
  }
  T.sites[T.nsites].func = T.curfunc;
  T.sites[T.nsites].line = T.curline;
  T.sites[T.nsites].next = T.sitehash[h];
  T.sitehash[h] = T.nsites;
  return T.cursite = T.nsites++;
}

static void *track_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  void *r;
  (void)ud;
  if (nsize == 0) {
    if (ptr != NULL) drop_block(ptr);
    return T.orig(T.origud, ptr, osize, 0);
  }
  r = T.orig(T.origud, ptr, osize, nsize);
  if (r == NULL) return NULL;
  if (ptr != NULL) {
    drop_block(ptr);                   /* a block that grows or shrinks is no new object */
  } else if (T.on && !T.paused) {
#if LUA_VERSION_NUM >= 502
    if (osize != 0)                    /* the type tag of a new GC object */
#endif
    {
      uint32_t s = current_site();
      if (s) put_block(r, nsize, s);
    }
  }
  return r;
}

/* functions already named: (source text pointer, linedefined) -> descriptor, checked against the chunk name; a
 * function keeps the name it was first called under, so that the hook asks for names ("n", which reads the caller's
 * code) once per function, not on every call and return */
#define NAMECACHE 4096
static struct { const char *source; int linedefined; uint32_t func; } namecache[NAMECACHE];

static uint32_t describe(lua_State *L, lua_Debug *ar) {
  size_t h = (((uintptr_t)ar->source >> 3) ^ (size_t)ar->linedefined * 40503u) & (NAMECACHE - 1);
  uint32_t f = namecache[h].func;
  if (f && namecache[h].source == ar->source && namecache[h].linedefined == ar->linedefined
      && strcmp(T.funcs[f].source, ar->short_src) == 0) {
    return f;
  }
  {
    char fallback[96];
    const char *name;
    int main = ar->what[0] == 'm';
    name = lua_getinfo(L, "n", ar) ? ar->name : NULL;
    if (name == NULL) {
      if (main) {
        name = "main chunk";
      } else {
        snprintf(fallback, sizeof fallback, "function <%.60s:%d>", ar->short_src, ar->linedefined);
        name = fallback;
      }
    }
    f = intern_func(ar->short_src, name, main);
  }
  if (f) {
    namecache[h].source = ar->source;
    namecache[h].linedefined = ar->linedefined;
    namecache[h].func = f;
  }
  return f;
}

/* the current position from frame `level` of L on: the first Lua function there; returns whether one was found */
static int locate(lua_State *L, lua_Debug *ar, int level) {
  int last = level + 64;
  for (; level < last && lua_getstack(L, level, ar); level++) {
    if (lua_getinfo(L, "Sl", ar) && ar->what[0] != 'C') {
      T.curfunc = describe(L, ar);
      T.curline = ar->currentline > 0 ? ar->currentline : ar->linedefined;
      T.cursite = 0;
      T.curthread = L;
      T.called = 0;
      return 1;
    }
  }
  return 0;
}

static void track_hook(lua_State *L, lua_Debug *ar) {
  if (!T.on) {
    lua_sethook(L, NULL, 0, 0);
    return;
  }
  if (ar->event == LUA_HOOKLINE) {
    if (T.called || L != T.curthread || T.curfunc == 0) {
      lua_Debug here;
      if (!locate(L, &here, 0)) return;
    }
    if (ar->currentline != T.curline) {
      T.curline = ar->currentline;
      T.cursite = 0;
    }
  } else if (ar->event == LUA_HOOKCALL
#ifdef LUA_HOOKTAILCALL
             || ar->event == LUA_HOOKTAILCALL
#endif
             ) {
    /* a Lua function's first line event names it; until then (and in C functions, which have no line events) the
     * caller's line stays the site */
    T.called = 1;
  } else {                             /* a return (5.1: also a tail return): back in the caller */
    lua_Debug here;
    if (!locate(L, &here, 1)) {
      T.curfunc = 0;
      T.cursite = 0;
    }
  }
}

static int l_track(lua_State *L) {
  int want = lua_toboolean(L, 1);
  int was = T.on;
  learn_main(L);
  if (want) {
    if (T.installed && T.owner != NULL) {
      void *ud;
      if (lua_getallocf(L, &ud) != track_alloc) return luaL_error(L, "heapdump.track: already on in another Lua state");
    }
    if (lua_gethook(L) != NULL && lua_gethook(L) != track_hook) {
      return luaL_error(L, "heapdump.track: a debug hook is already set on this thread");
    }
    if (!T.installed) {
#if defined(__unix__) || defined(__APPLE__)
      /* the allocator stays in use until lua_close frees the last object, after the module would be unloaded */
      Dl_info info;
      if (dladdr((void *)track_alloc, &info) && info.dli_fname != NULL) {
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE | RTLD_NOLOAD);
      }
#endif
      T.orig = lua_getallocf(L, &T.origud);
      lua_setallocf(L, track_alloc, &T);
      T.installed = 1;
    }
    T.owner = L;
    T.on = 1;
    T.curthread = NULL;
    T.curfunc = 0;
    T.cursite = 0;
    lua_sethook(L, track_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE, 0);
    /* the main thread too, when track(true) runs in a coroutine (5.1/LuaJIT: once the helper knows it) */
#if LUA_VERSION_NUM >= 502
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
#else
    lua_rawgeti(L, lua_upvalueindex(1), 1);
#endif
    if (lua_type(L, -1) == LUA_TTHREAD && lua_tothread(L, -1) != L && lua_gethook(lua_tothread(L, -1)) == NULL) {
      lua_sethook(lua_tothread(L, -1), track_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE, 0);
    }
    lua_pop(L, 1);
    {
      lua_Debug here;
      locate(L, &here, 1);             /* the caller of track(true) */
    }
  } else {
    T.on = 0;
    if (lua_gethook(L) == track_hook) lua_sethook(L, NULL, 0, 0);   /* other threads: at their next event */
    if (T.installed && T.count == 0) {
      lua_setallocf(L, T.orig, T.origud);
      T.installed = 0;
    }
  }
  lua_pushboolean(L, was);
  return 1;
}

static int cmp_blocks(const void *a, const void *b) {
  uintptr_t x = ((const Block *)a)->key, y = ((const Block *)b)->key;
  return x < y ? -1 : x > y;
}

static int l_sitesbegin(lua_State *L) {
  size_t i, n = 0;
  learn_main(L);
  free(T.sorted);
  T.sorted = NULL;
  T.nsorted = 0;
  T.paused = 1;
  if (T.count > 0) {
    T.sorted = (Block *)malloc(T.count * sizeof(Block));
    if (T.sorted == NULL) return luaL_error(L, "heapdump: out of memory for the allocation sites");
    for (i = 0; i < T.cap; i++) {
      if (T.blocks[i].key) T.sorted[n++] = T.blocks[i];
    }
    qsort(T.sorted, n, sizeof(Block), cmp_blocks);
    T.nsorted = n;
  }
  lua_pushinteger(L, (lua_Integer)n);
  return 1;
}

static int l_sitesend(lua_State *L) {
  learn_main(L);
  free(T.sorted);
  T.sorted = NULL;
  T.nsorted = 0;
  T.paused = 0;
  if (!T.on && T.installed && T.count == 0) {
    lua_setallocf(L, T.orig, T.origud);
    T.installed = 0;
  }
  return 0;
}

/* the site of the block holding p: the last block starting at or before p, if p is inside it */
static uint32_t find_site(uintptr_t p) {
  size_t lo = 0, hi = T.nsorted;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (T.sorted[mid].key <= p) lo = mid + 1; else hi = mid;
  }
  if (lo == 0) return 0;
  lo--;
  return p - T.sorted[lo].key < T.sorted[lo].size ? T.sorted[lo].site : 0;
}

static int l_site(lua_State *L) {
  uintptr_t p = 0;
  uint32_t s;
  learn_main(L);
  if (T.nsorted == 0) return 0;
  switch (lua_type(L, 1)) {
    case LUA_TSTRING:                  /* 5.1-5.3 have no string address: the bytes lie inside the object */
      p = (uintptr_t)lua_topointer(L, 1);
      if (p == 0) p = (uintptr_t)lua_tolstring(L, 1, NULL);
      break;
    case LUA_TUSERDATA:                /* the payload follows the header: its address minus one is in the block */
      p = (uintptr_t)lua_touserdata(L, 1) - 1;
      break;
    case LUA_TTABLE: case LUA_TFUNCTION: case LUA_TTHREAD:
      p = (uintptr_t)lua_topointer(L, 1);
      break;
    default:                           /* LuaJIT cdata: the payload address, as userdata */
      p = (uintptr_t)lua_topointer(L, 1);
      if (p) p--;
      break;
  }
  if (p == 0 || (s = find_site(p)) == 0) return 0;
  lua_pushinteger(L, (lua_Integer)s);
  return 1;
}

static int l_siteinfo(lua_State *L) {
  lua_Integer id = luaL_checkinteger(L, 1);
  Func *f;
  learn_main(L);
  if (id < 1 || (uint32_t)id >= T.nsites) return 0;
  f = &T.funcs[T.sites[id].func];
  lua_pushstring(L, f->source);
  lua_pushinteger(L, T.sites[id].line);
  lua_pushstring(L, f->name);
  return 3;
}

static int l_trackstats(lua_State *L) {
  learn_main(L);
  lua_pushinteger(L, (lua_Integer)T.count);
  lua_pushinteger(L, (lua_Integer)(T.nsites ? T.nsites - 1 : 0));
  lua_pushinteger(L, (lua_Integer)(T.cap * sizeof(Block) + T.capsites * sizeof(Site) + T.capfuncs * sizeof(Func)
                                   + (T.sitehashcap + T.funchashcap) * sizeof(uint32_t)));
  return 3;
}

static const luaL_Reg functions[] = {
  {"mainthread", l_mainthread}, {"getupvalue", l_getupvalue}, {"udsize", l_udsize}, {"islight", l_islight},
  {"stroffset", l_stroffset}, {"track", l_track}, {"sitesbegin", l_sitesbegin}, {"site", l_site},
  {"siteinfo", l_siteinfo}, {"sitesend", l_sitesend}, {"trackstats", l_trackstats}, {NULL, NULL}
};

int luaopen_heapdump_native(lua_State *L) {
  const luaL_Reg *f;
  lua_newtable(L);                 /* the module */
  lua_newtable(L);                 /* shared state: [1] = the main thread once known */
  for (f = functions; f->name != NULL; f++) {
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, f->func, 1);
    lua_setfield(L, -3, f->name);
  }
  lua_getfield(L, -2, "mainthread");
  lua_call(L, 0, 1);               /* learns it now when loaded on the main thread */
  lua_pop(L, 2);
  lua_pushstring(L, "1");
  lua_setfield(L, -2, "version");
  return 1;
}
