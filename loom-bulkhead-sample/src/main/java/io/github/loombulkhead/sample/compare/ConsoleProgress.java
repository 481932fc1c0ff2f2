package io.github.loombulkhead.sample.compare;

import java.io.Console;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.util.Locale;

import io.github.loombulkhead.sample.measure.TimelineSampler;
import io.github.loombulkhead.sample.report.Formats;
import io.github.loombulkhead.sample.report.RunReport;
import io.github.loombulkhead.sample.report.TimelinePoint;

/**
 * A progress bar for one mode, redrawn in place on every point of the time series when the output is a
 * terminal; otherwise (a log file, CI) only the mode's final line is printed.
 */
final class ConsoleProgress implements TimelineSampler.Listener {

    private static final int WIDTH = 30;

    private final PrintStream out;

    private final String mode;

    private final int requests;

    private final boolean live;

    ConsoleProgress(PrintStream out, String mode, int requests, boolean live) {
        this.out = out;
        this.mode = mode;
        this.requests = requests;
        this.live = live;
    }

    @Override
    public void onPoint(TimelinePoint point) {
        if (this.live) {
            this.out.print("\r" + line(point.completed(), point.elapsedMs()) + "  in flight "
                    + String.format(Locale.US, "%,5d", point.inFlight())
                    + ((point.limit() != null) ? String.format(Locale.US, "  limit %,5d", point.limit()) : ""));
            this.out.flush();
        }
    }

    /** Whether standard output is an interactive terminal, where redrawing a line in place works. */
    static boolean isTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            // Java 22+: System.console() exists even when the output is redirected; ask it.
            Method isTerminal = Console.class.getMethod("isTerminal");
            return (Boolean) isTerminal.invoke(console);
        }
        catch (ReflectiveOperationException ex) {
            return true;
        }
    }

    /** Replaces the bar with the mode's outcome. */
    void finish(RunReport run) {
        String outcome = "  succeeded " + Formats.count(run.succeeded()) + ", failed " + Formats.count(run.failed());
        // Padded to cover the longest progress suffix ("  in flight 1,000  limit 1,000") it replaces.
        this.out.print((this.live ? "\r" : "") + line(run.succeeded() + run.failed(), run.durationMs())
                + String.format(Locale.US, "%-33s", outcome) + "\n");
        this.out.flush();
    }

    private String line(int completed, long elapsedMs) {
        int filled = (this.requests > 0) ? (int) ((long) completed * WIDTH / this.requests) : WIDTH;
        String bar = "#".repeat(filled) + ".".repeat(WIDTH - filled);
        return String.format(Locale.US, "%-25s [%s] %,7d/%,d %7.1f s", this.mode, bar, completed, this.requests,
                elapsedMs / 1000.0);
    }
}
