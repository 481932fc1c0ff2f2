package io.github.loombulkhead.sample.report;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import io.github.loombulkhead.sample.CapacityChange;

import org.jspecify.annotations.Nullable;

/** How numbers read in the console, Markdown and HTML tables (1 MB = 1,048,576 bytes). */
public final class Formats {

    private static final double MB = 1024 * 1024;

    private Formats() {
    }

    public static String count(long value) {
        return String.format(Locale.US, "%,d", value);
    }

    public static String seconds(long millis) {
        return String.format(Locale.US, "%.2f s", millis / 1000.0);
    }

    public static String millis(long millis) {
        return String.format(Locale.US, "%,d ms", millis);
    }

    public static String percent(double rate) {
        return String.format(Locale.US, "%.1f %%", rate * 100);
    }

    public static String megabytes(long bytes) {
        return String.format(Locale.US, "%.1f MB", bytes / MB);
    }

    /** A change in megabytes with its sign, or {@code n/a} when not measured. */
    public static String megabytesDelta(@Nullable Long bytes) {
        return (bytes != null) ? String.format(Locale.US, "%+.1f MB", bytes / MB) : "n/a";
    }

    /** Megabytes, or {@code n/a} when not measured. */
    public static String megabytesOrNa(@Nullable Long bytes) {
        return (bytes != null) ? megabytes(bytes) : "n/a";
    }

    /** A peak with its change from the baseline, e.g. {@code 131 (+100)}. */
    public static String peak(long peak, long baseline) {
        return String.format(Locale.US, "%,d (%+,d)", peak, peak - baseline);
    }

    /** The capacity changes as a clause, e.g. {@code , then 60 from 2.00 s, 200 from 6.00 s}; empty without changes. */
    public static String capacityChanges(List<CapacityChange> changes) {
        return changes.stream()
            .map((change) -> count(change.capacity()) + " from " + seconds(change.atMs()))
            .collect(Collectors.joining(", ", changes.isEmpty() ? "" : ", then ", ""));
    }

    /** Collections and their time, e.g. {@code 2 (15 ms)}. */
    public static String gc(long count, long timeMs) {
        return String.format(Locale.US, "%,d (%,d ms)", count, timeMs);
    }
}
