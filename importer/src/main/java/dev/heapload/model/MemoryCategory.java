package dev.heapload.model;

/**
 * A memory category as the VM reports it: Luau's {@code lua_setmemcat} categories 0..255 with the
 * name the embedder's dump callback gave ({@code null} when the dump has none) and the VM's own byte
 * count ({@code g->memcatbytes[i]}, which counts every allocation, not only GC objects).
 *
 * @param id    category number
 * @param name  name from the dump, or {@code null}
 * @param bytes bytes the VM charged to this category (already corrected for 32-bit wrap-around)
 */
public record MemoryCategory(int id, String name, long bytes) {
}
