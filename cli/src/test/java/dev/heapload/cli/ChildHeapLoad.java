package dev.heapload.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Tests that need heapload in a process of its own (signals, a halting JVM, a child filling a disk). */
final class ChildHeapLoad {

    private ChildHeapLoad() {
    }

    /**
     * The command line that runs {@code heapload ARGS...} in a child JVM on the test's class path, with a 512 MiB heap
     * and the module openings Neo4j needs (as the launcher {@code ./heapload} passes them).
     */
    static List<String> command(String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx512m",
            "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "-Dio.netty.tryReflectionSetAccessible=true",
            "-cp", System.getProperty("java.class.path"), HeapLoad.class.getName()));
        command.addAll(List.of(args));
        return command;
    }
}
