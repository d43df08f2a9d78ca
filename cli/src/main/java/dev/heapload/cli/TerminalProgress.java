package dev.heapload.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.heapload.model.Progress;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Draws a progress bar on stderr for any phase that runs longer than one second (nothing for quick
 * phases), and records each phase's wall time for the summary. A phase counted in {@code %} (the importer's
 * own progress) shows its percentage alone, not {@code 50/100 %}.
 */
final class TerminalProgress implements Progress {

    private static final long SHOW_AFTER_NANOS = 1_000_000_000L;

    private final boolean enabled;
    private final PrintStream err;
    private final Map<String, Long> phaseNanos = new LinkedHashMap<>();
    private String phase;
    private long total;
    private String unit;
    private long startNanos;
    private ProgressBar bar;

    /** The phase most recently started by any instance, for the out-of-memory message; null before the first. */
    private static volatile String lastPhase;

    /**
     * @param enabled draw bars (false: only time the phases)
     */
    TerminalProgress(boolean enabled) {
        this(enabled, System.err);
    }

    /**
     * @param enabled draw bars (false: only time the phases)
     * @param err     where the bars go (the command line's standard error)
     */
    TerminalProgress(boolean enabled, PrintStream err) {
        this.enabled = enabled;
        this.err = err;
    }

    /**
     * A progress that draws bars on {@code err} when {@link #wanted} says so for {@code option} and this process's
     * stderr.
     */
    static TerminalProgress forOption(Boolean option, PrintStream err) {
        return new TerminalProgress(wanted(option, stderrIsTerminal()), err);
    }

    /**
     * Whether to draw bars: {@code --progress} forces them, {@code --no-progress} turns them off, and without
     * either they follow stderr (bars go to stderr, so a redirected stdout does not matter).
     *
     * @param option         {@code true} for {@code --progress}, {@code false} for {@code --no-progress}, else {@code null}
     * @param stderrTerminal whether stderr is a terminal
     */
    static boolean wanted(Boolean option, boolean stderrTerminal) {
        return option != null ? option : stderrTerminal;
    }

    /**
     * Whether stderr is a terminal: the launcher tells ({@code -Dheapload.stderr.tty=true|false}, from the shell's
     * {@code [ -t 2 ]}, which Java 17 cannot test by itself); without it, whether the JVM has a console
     * ({@link System#console()}: stdin and stdout both terminals).
     */
    static boolean stderrIsTerminal() {
        String told = System.getProperty("heapload.stderr.tty");
        return told != null ? Boolean.parseBoolean(told) : System.console() != null;
    }

    /** The phase most recently started (by any instance), or {@code null}. */
    static String lastPhase() {
        return lastPhase;
    }

    @Override
    public void start(String phase, long total, String unit) {
        end();
        lastPhase = phase;
        this.phase = phase;
        this.total = total;
        this.unit = unit;
        this.startNanos = System.nanoTime();
    }

    @Override
    public void step(long done) {
        if (phase == null) {
            return;
        }
        if (bar == null && enabled && System.nanoTime() - startNanos > SHOW_AFTER_NANOS) {
            ProgressBarBuilder builder = new ProgressBarBuilder()
                .setTaskName(phase)
                .setInitialMax(total)
                .setStyle(ProgressBarStyle.ASCII)
                .setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(err))
                .setUpdateIntervalMillis(200)
                .setMaxRenderedLength(100)
                .startsFrom(0, Duration.ofNanos(System.nanoTime() - startNanos));
            if ("B".equals(unit)) {
                builder.setUnit(" MiB", 1 << 20);
            } else if ("%".equals(unit)) {
                builder.setRenderer(new PercentRenderer());
            } else {
                builder.setUnit(" " + unit, 1);
            }
            bar = builder.build();
        }
        if (bar != null) {
            bar.stepTo(done);
        }
    }

    @Override
    public void end() {
        if (phase == null) {
            return;
        }
        if (bar != null) {
            bar.stepTo(total > 0 ? total : bar.getCurrent());
            bar.close();
            bar = null;
        }
        phaseNanos.merge(phase, System.nanoTime() - startNanos, Long::sum);
        phase = null;
    }

    /** Wall time per finished phase, in nanoseconds, in the order the phases first ran. */
    Map<String, Long> phaseNanos() {
        return phaseNanos;
    }

    /** Forgets recorded phase times (between two files). */
    void reset() {
        phaseNanos.clear();
    }

    static void printTimes(PrintStream out, Map<String, Long> times) {
        StringBuilder sb = new StringBuilder("time:");
        times.forEach((p, ns) -> sb.append(String.format(java.util.Locale.ROOT, " %s %.2f s,", p, ns / 1e9)));
        sb.setLength(sb.length() - 1);
        out.println(sb);
    }

    /** The library's bar without its {@code current/max unit} ratio, for phases that count in percent already. */
    private static final class PercentRenderer extends me.tongfei.progressbar.DefaultProgressBarRenderer {
        PercentRenderer() {
            super(ProgressBarStyle.ASCII, "%", 1, false, null, java.time.temporal.ChronoUnit.SECONDS, false,
                state -> java.util.Optional.empty());
        }

        @Override
        protected String ratio(me.tongfei.progressbar.ProgressState progress) {
            return "";
        }
    }
}
