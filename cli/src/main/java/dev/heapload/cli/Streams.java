package dev.heapload.cli;

import java.io.PrintStream;

import picocli.CommandLine;

/**
 * The standard output and error of the command line a command runs in: the streams given to {@link HeapLoad#run}
 * (the process's own in {@link HeapLoad#main}, a test's buffers in process), which picocli's writers
 * ({@code spec.commandLine().getOut()} and {@code getErr()}) wrap too. Commands print through these, never through
 * {@link System#out} or a process-wide {@link System#setOut}, so two command lines in one process do not mix.
 */
final class Streams {

    private Streams() {
    }

    /** Standard output of the command line that runs {@code spec}'s command. */
    static PrintStream out(CommandLine.Model.CommandSpec spec) {
        return root(spec).out;
    }

    /** Standard error of the command line that runs {@code spec}'s command. */
    static PrintStream err(CommandLine.Model.CommandSpec spec) {
        return root(spec).err;
    }

    private static HeapLoad root(CommandLine.Model.CommandSpec spec) {
        Object root = spec.root().userObject();
        if (root instanceof HeapLoad h) {
            return h;
        }
        throw new IllegalStateException("command " + spec.qualifiedName() + " runs outside heapload's command line");
    }
}
