package dev.heapload.cli;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A {@link PrintStream} that passes every call to the stream routed to the calling thread (and the threads it
 * starts), else to a fallback: the query daemon installs two as {@code System.out} and {@code System.err}, so that
 * commands forwarded by thin clients ({@link DaemonCommand#runForwarded}), which print to {@code System.out} and
 * {@code System.err}, each print to their own client while they run side by side.
 */
final class RoutedPrintStream extends PrintStream {

    private final PrintStream fallback;
    private final InheritableThreadLocal<PrintStream> routed = new InheritableThreadLocal<>();

    RoutedPrintStream(PrintStream fallback) {
        super(fallback, true);
        this.fallback = fallback;
    }

    /** Routes this thread's (and its new threads') output to {@code to}; null: back to the fallback. */
    void route(PrintStream to) {
        if (to == null) {
            routed.remove();
        } else {
            routed.set(to);
        }
    }

    private PrintStream target() {
        PrintStream t = routed.get();
        return t != null ? t : fallback;
    }

    @Override
    public void flush() {
        target().flush();
    }

    @Override
    public void close() {
        target().flush();
    }

    @Override
    public boolean checkError() {
        return target().checkError();
    }

    @Override
    public void write(int b) {
        target().write(b);
    }

    @Override
    public void write(byte[] buf, int off, int len) {
        target().write(buf, off, len);
    }

    @Override
    public void print(boolean b) {
        target().print(b);
    }

    @Override
    public void print(char c) {
        target().print(c);
    }

    @Override
    public void print(int i) {
        target().print(i);
    }

    @Override
    public void print(long l) {
        target().print(l);
    }

    @Override
    public void print(float f) {
        target().print(f);
    }

    @Override
    public void print(double d) {
        target().print(d);
    }

    @Override
    public void print(char[] s) {
        target().print(s);
    }

    @Override
    public void print(String s) {
        target().print(s);
    }

    @Override
    public void print(Object obj) {
        target().print(obj);
    }

    @Override
    public void println() {
        target().println();
    }

    @Override
    public void println(boolean x) {
        target().println(x);
    }

    @Override
    public void println(char x) {
        target().println(x);
    }

    @Override
    public void println(int x) {
        target().println(x);
    }

    @Override
    public void println(long x) {
        target().println(x);
    }

    @Override
    public void println(float x) {
        target().println(x);
    }

    @Override
    public void println(double x) {
        target().println(x);
    }

    @Override
    public void println(char[] x) {
        target().println(x);
    }

    @Override
    public void println(String x) {
        target().println(x);
    }

    @Override
    public void println(Object x) {
        target().println(x);
    }

    @Override
    public PrintStream printf(String format, Object... args) {
        target().printf(format, args);
        return this;
    }

    @Override
    public PrintStream printf(Locale l, String format, Object... args) {
        target().printf(l, format, args);
        return this;
    }

    @Override
    public PrintStream format(String format, Object... args) {
        target().format(format, args);
        return this;
    }

    @Override
    public PrintStream format(Locale l, String format, Object... args) {
        target().format(l, format, args);
        return this;
    }

    @Override
    public PrintStream append(CharSequence csq) {
        target().append(csq);
        return this;
    }

    @Override
    public PrintStream append(CharSequence csq, int start, int end) {
        target().append(csq, start, end);
        return this;
    }

    @Override
    public PrintStream append(char c) {
        target().append(c);
        return this;
    }
}
