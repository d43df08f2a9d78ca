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
 *
 * Build (the headers of the Lua the program runs on; Debian: liblua5.x-dev, libluajit-5.1-dev):
 *
 *   cc -shared -fPIC -O2 -I/usr/include/lua5.4 heapdump_native.c -o heapdump_native.so
 *
 * and put the directory of heapdump_native.so on package.cpath (LUA_CPATH). On macOS add
 * -undefined dynamic_lookup. heapdump.lua works without it.
 */
#include <stddef.h>

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

static const luaL_Reg functions[] = {
  {"mainthread", l_mainthread}, {"getupvalue", l_getupvalue}, {"udsize", l_udsize}, {"islight", l_islight},
  {"stroffset", l_stroffset}, {NULL, NULL}
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
