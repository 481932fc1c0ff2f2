package io.github.loombulkhead.sample;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationStyle;

/**
 * The callee's capacity becomes {@code capacity} worker threads {@code atMs} milliseconds after a mode started.
 *
 * @param capacity worker threads from then on, at least 1
 * @param atMs time since the mode started, positive
 */
public record CapacityChange(int capacity, long atMs) {

    private static final String EXAMPLE = "60@2s,200@6s";

    public CapacityChange {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, but was " + capacity);
        }
        if (atMs <= 0) {
            throw new IllegalArgumentException("atMs must be positive, but was " + atMs);
        }
    }

    /**
     * Parses {@code capacity@time,capacity@time...} (times such as {@code 2s} or {@code 1500ms}, since the mode
     * started, strictly increasing); {@code null} or blank is no change.
     * @param property the setting's name, for the error message
     * @throws SampleArgumentException naming the entry that is wrong and the expected form
     */
    public static List<CapacityChange> parseAll(String property, @Nullable String text) {
        if (text == null || text.isBlank()) {
            return List.of();
        }
        List<CapacityChange> changes = new ArrayList<>();
        for (String entry : text.split(",", -1)) {
            CapacityChange change = parse(property, entry.trim(), text);
            if (!changes.isEmpty() && change.atMs() <= changes.getLast().atMs()) {
                throw new SampleArgumentException(property + " must list its changes in increasing time, but '"
                        + entry.trim() + "' comes after " + changes.getLast().atMs() + "ms in '" + text
                        + "'; write them in order, e.g. " + EXAMPLE);
            }
            changes.add(change);
        }
        return List.copyOf(changes);
    }

    private static CapacityChange parse(String property, String entry, String text) {
        int at = entry.indexOf('@');
        if (at <= 0 || at == entry.length() - 1 || entry.indexOf('@', at + 1) >= 0) {
            throw new SampleArgumentException(property + " must be a comma-separated list of capacity@time such as "
                    + EXAMPLE + ", but '" + entry + "' in '" + text + "' is not");
        }
        String capacityText = entry.substring(0, at).trim();
        String timeText = entry.substring(at + 1).trim();
        int capacity;
        try {
            capacity = Integer.parseInt(capacityText);
        }
        catch (NumberFormatException ex) {
            throw new SampleArgumentException(property + ": the capacity in '" + entry + "' must be a whole number "
                    + "of worker threads, e.g. " + EXAMPLE);
        }
        if (capacity < 1) {
            throw new SampleArgumentException(property + ": the capacity in '" + entry + "' must be at least 1");
        }
        long millis;
        try {
            millis = DurationStyle.detectAndParse(timeText).toMillis();
        }
        catch (IllegalArgumentException | ArithmeticException ex) {
            // Not a duration, or one too long to count in milliseconds.
            throw new SampleArgumentException(property + ": the time in '" + entry + "' must be a duration since the "
                    + "mode started such as 2s or 1500ms, e.g. " + EXAMPLE);
        }
        if (millis <= 0) {
            throw new SampleArgumentException(property + ": the time in '" + entry + "' must be at least 1ms after "
                    + "the mode started (its capacity at the start is loom.sample.callee.capacity)");
        }
        return new CapacityChange(capacity, millis);
    }
}
