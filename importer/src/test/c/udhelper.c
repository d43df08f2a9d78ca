/*
 * udhelper: test C module for heapload's Lua dumper tests (the case classes_userdata of
 * shared/testdata/lua needs full userdata with user values, which pure Lua cannot create).
 *
 *   newud(size [, nuv])  a full userdata with a zeroed payload of `size` bytes; Lua 5.4: `nuv` user values
 *                        (default 1)
 *   setuv(ud, n, v)      Lua 5.4: sets user value n; 5.2/5.3: sets the user value (n ignored);
 *                        5.1/LuaJIT: sets the environment table (v must be a table)
 *   cclosure(n)          a C closure with n upvalues (each true)
 *   extstring(s)         Lua 5.5: an external string (lua_pushexternalstring) holding a copy of s in memory of the
 *                        state's allocator, freed by it; other versions: s
 *
 * Built by the tests with: cc -shared -fPIC -I<lua headers> udhelper.c -o udhelper.so
 */
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

static int newud(lua_State *L) {
  size_t size = (size_t)luaL_checkinteger(L, 1);
  void *payload;
#if LUA_VERSION_NUM >= 504
  payload = lua_newuserdatauv(L, size, (int)luaL_optinteger(L, 2, 1));
#else
  payload = lua_newuserdata(L, size);
#endif
  memset(payload, 0, size);
  return 1;
}

static int setuv(lua_State *L) {
  int ok;
  luaL_checktype(L, 1, LUA_TUSERDATA);
  lua_settop(L, 3);
#if LUA_VERSION_NUM >= 504
  ok = lua_setiuservalue(L, 1, (int)luaL_checkinteger(L, 2));
#elif LUA_VERSION_NUM >= 502
  lua_setuservalue(L, 1);
  ok = 1;
#else
  luaL_checktype(L, 3, LUA_TTABLE);
  ok = lua_setfenv(L, 1);
#endif
  lua_pushboolean(L, ok);
  return 1;
}

static int closurebody(lua_State *L) {
  (void)L;
  return 0;
}

static int cclosure(lua_State *L) {
  int n = (int)luaL_checkinteger(L, 1);
  int i;
  luaL_checkstack(L, n, "too many upvalues");
  for (i = 0; i < n; i++) {
    lua_pushboolean(L, 1);
  }
  lua_pushcclosure(L, closurebody, n);
  return 1;
}

static int extstring(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
#if LUA_VERSION_NUM >= 505
  void *ud;
  lua_Alloc allocf = lua_getallocf(L, &ud);
  char *copy = (char *)allocf(ud, NULL, 0, len + 1);
  if (copy == NULL) {
    return luaL_error(L, "not enough memory");
  }
  memcpy(copy, s, len);
  copy[len] = '\0';
  lua_pushexternalstring(L, copy, len, allocf, ud);
#else
  lua_pushlstring(L, s, len);
#endif
  return 1;
}

static const luaL_Reg functions[] = {{"newud", newud}, {"setuv", setuv}, {"cclosure", cclosure}, {"extstring", extstring},
  {NULL, NULL}};

int luaopen_udhelper(lua_State *L) {
  lua_newtable(L);
#if LUA_VERSION_NUM >= 502
  luaL_setfuncs(L, functions, 0);
#else
  luaL_register(L, NULL, functions);
#endif
  return 1;
}
