package dev.heapload.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Tests that need heapload in a process of its own (signals, a halting JVM, a child filling a disk). */
final class ChildHeapLoad {

    private ChildHeapLoad() {
    }

    /**
     * The JIT flag of every child JVM the tests start: the client compiler only. A child lives for one command (a JVM
     * and Neo4j start, one small store), where C2 compiling Neo4j's start-up code costs more than it saves: a child
     * {@code heapload query summary} on the event-listeners store took 12 s of user CPU instead of 23 s (two runs
     * each, alternated, load average 21). What the children are checked for (exit codes, one-line errors, signals,
     * the store unchanged) does not depend on the compiler.
     */
    static final String FAST_START = "-XX:TieredStopAtLevel=1";

    /**
     * The command line that runs {@code heapload ARGS...} in a child JVM on the test's class path, with a 512 MiB heap
     * and the module openings Neo4j needs (as the launcher {@code ./heapload} passes them), and {@link #FAST_START}.
     */
    static List<String> command(String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx512m", FAST_START,
            "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "-Dio.netty.tryReflectionSetAccessible=true",
            "-cp", System.getProperty("java.class.path"), HeapLoad.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    /**
     * Waits until the store {@code db} has a {@code graph.building-*} folder (the child's rebuild has begun), polling
     * every 5 ms, while {@code child} runs and for at most {@code seconds}.
     *
     * @return whether the folder appeared
     */
    static boolean awaitGraphBuild(Process child, Path db, long seconds) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (child.isAlive() && System.nanoTime() < deadline) {
            try (Stream<Path> files = Files.list(db)) {
                if (files.anyMatch(f -> f.getFileName().toString().startsWith("graph.building-"))) {
                    return true;
                }
            }
            Thread.sleep(5);
        }
        return false;
    }
}
