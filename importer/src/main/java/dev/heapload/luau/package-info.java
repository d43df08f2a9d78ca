/**
 * Reader for Luau heap dumps (JSON written by {@code lua_memorydump} / {@code luaC_dump}, format in
 * shared/docs/formats/luau-luaC_dump.md): {@link dev.heapload.luau.LuauDumpReader} is the entry point;
 * the package-private {@code LuauJsonRepair} turns the VM's invalid JSON into valid JSON and
 * {@code RepairedChunks} runs file reading, checksum, gunzip and repair on a second thread.
 */
package dev.heapload.luau;
