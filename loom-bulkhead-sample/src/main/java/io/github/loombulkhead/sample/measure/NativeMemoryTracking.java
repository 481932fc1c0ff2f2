package io.github.loombulkhead.sample.measure;

import java.lang.management.ManagementFactory;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import com.sun.management.HotSpotDiagnosticMXBean;
import org.jspecify.annotations.Nullable;

/**
 * Reads the "Thread" section of native memory tracking through the DiagnosticCommand MBean, like
 * {@code jcmd <pid> VM.native_memory baseline} then {@code summary.diff}. Needs the JVM to run with
 * {@code -XX:NativeMemoryTracking=summary} (or {@code detail}).
 */
public final class NativeMemoryTracking {

    private static final String[] SIGNATURE = { String[].class.getName() };

    private static final Pattern SECTION = Pattern.compile("(?m)^-\\s+Thread \\(.*?(?=^-\\s+\\S|\\z)",
            Pattern.DOTALL);

    private static final Pattern THREADS = Pattern.compile("\\(threads? #(\\d+)(?:\\s+([+-]\\d+))?\\)");

    private static final Pattern STACK = Pattern
        .compile("\\(stack: reserved=(\\d+)KB(?:\\s+([+-]\\d+)KB)?, committed=(\\d+)KB(?:\\s+([+-]\\d+)KB)?\\)");

    private final MBeanServer server;

    private final ObjectName diagnosticCommand;

    private final boolean enabled;

    private NativeMemoryTracking(MBeanServer server, ObjectName diagnosticCommand, boolean enabled) {
        this.server = server;
        this.diagnosticCommand = diagnosticCommand;
        this.enabled = enabled;
    }

    /** Native memory tracking of this JVM. */
    public static NativeMemoryTracking ofThisJvm() {
        try {
            return new NativeMemoryTracking(ManagementFactory.getPlatformMBeanServer(),
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), isEnabledInThisJvm());
        }
        catch (JMException ex) {
            throw new IllegalStateException("DiagnosticCommand MBean is not available", ex);
        }
    }

    /** Whether this JVM was started with {@code -XX:NativeMemoryTracking=summary} or {@code detail}. */
    public static boolean isEnabledInThisJvm() {
        HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        if (hotspot == null) {
            return false;
        }
        try {
            String value = hotspot.getVMOption("NativeMemoryTracking").getValue();
            return "summary".equals(value) || "detail".equals(value);
        }
        catch (IllegalArgumentException ex) {
            return false;
        }
    }

    public boolean isEnabled() {
        return this.enabled;
    }

    /** Takes the baseline later diffs compare with (one per JVM; a new one replaces the old). */
    public void baseline() {
        if (this.enabled) {
            run("baseline");
        }
    }

    /** Thread memory now and its change since the baseline, or {@code null} when tracking is off. */
    public @Nullable ThreadMemory threadDiff() {
        return this.enabled ? parse(run("summary.diff", "scale=KB")) : null;
    }

    private String run(String... arguments) {
        try {
            Object output = this.server.invoke(this.diagnosticCommand, "vmNativeMemory", new Object[] { arguments },
                    SIGNATURE);
            return String.valueOf(output);
        }
        catch (JMException ex) {
            throw new IllegalStateException("VM.native_memory " + String.join(" ", arguments) + " failed", ex);
        }
    }

    /** Parses the "Thread" section of a {@code summary.diff} output in KB. */
    static ThreadMemory parse(String summaryDiff) {
        Matcher section = SECTION.matcher(summaryDiff);
        if (!section.find()) {
            throw new IllegalStateException("No Thread section in native memory summary:\n" + summaryDiff);
        }
        String text = section.group();
        Matcher threads = THREADS.matcher(text);
        Matcher stack = STACK.matcher(text);
        if (!threads.find() || !stack.find()) {
            throw new IllegalStateException("Unexpected Thread section in native memory summary:\n" + text);
        }
        return new ThreadMemory(Long.parseLong(threads.group(1)), delta(threads.group(2)),
                kb(stack.group(1)), kb(stack.group(2)), kb(stack.group(3)), kb(stack.group(4)));
    }

    private static long delta(@Nullable String value) {
        return (value != null) ? Long.parseLong(value) : 0;
    }

    private static long kb(@Nullable String value) {
        return delta(value) * 1024;
    }

    /**
     * Thread memory as native memory tracking reports it.
     *
     * @param threads live threads
     * @param threadsDelta change since the baseline
     * @param stackReservedBytes reserved stack memory
     * @param stackReservedDeltaBytes change since the baseline
     * @param stackCommittedBytes committed stack memory
     * @param stackCommittedDeltaBytes change since the baseline
     */
    public record ThreadMemory(long threads, long threadsDelta, long stackReservedBytes, long stackReservedDeltaBytes,
            long stackCommittedBytes, long stackCommittedDeltaBytes) {
    }
}
