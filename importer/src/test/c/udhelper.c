/*
 * udhelper: test C module for heapload's Lua dumper tests (the case classes_userdata of
 * shared/testdata/lua needs full userdata with user values, which pure Lua cannot create).
 *
 *   newud(size [, nuv])  a full userdata with a zeroed payload of `size` bytes; Lua 5.4: `nuv` user values
 *                        (default 1)
 *   setuv(ud, n, v)      Lua 5.4: sets user value n; 5.2/5.3: sets the user value (n ignored);
 *                        5.1/LuaJIT: sets the environment table (v must be a table)
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

static const luaL_Reg functions[] = {{"newud", newud}, {"setuv", setuv}, {NULL, NULL}};

int luaopen_udhelper(lua_State *L) {
  lua_newtable(L);
#if LUA_VERSION_NUM >= 502
  luaL_setfuncs(L, functions, 0);
#else
  luaL_register(L, NULL, functions);
#endif
  return 1;
}
