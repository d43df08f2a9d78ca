/**
 * Reader for MicroPython (v1.18 .. current) RAM dumps: memory images ({@link dev.heapload.micropython.MemoryImage}),
 * firmware symbols from {@code nm -S} text or a GNU ld map ({@link dev.heapload.micropython.FirmwareSymbols}), the
 * GC heap areas found without struct offsets ({@link dev.heapload.micropython.GcHeapLocator}), the per-block heap
 * map with the {@code mem_info(1)} text and fragmentation figures ({@link dev.heapload.micropython.HeapMap},
 * {@link dev.heapload.micropython.GcFigures}) and the object graph
 * ({@link dev.heapload.micropython.MicroPythonReader}). Facts: shared/docs/formats/micropython-gc-heap.md.
 */
package dev.heapload.micropython;
