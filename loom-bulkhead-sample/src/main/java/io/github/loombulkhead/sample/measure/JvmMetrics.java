package io.github.loombulkhead.sample.measure;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;
import java.util.List;

/** Reads this JVM's threads, heap, GC and CPU through the platform MXBeans. */
public final class JvmMetrics {

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

    private final List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();

    private final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();

    /** Live platform threads (virtual threads are not counted by the MXBean). */
    public int platformThreads() {
        return this.threads.getThreadCount();
    }

    /** Starts a new peak: from now on {@link #peakPlatformThreads()} is the highest count since this call. */
    public void resetPeakPlatformThreads() {
        this.threads.resetPeakThreadCount();
    }

    public int peakPlatformThreads() {
        return this.threads.getPeakThreadCount();
    }

    public long heapUsed() {
        return this.memory.getHeapMemoryUsage().getUsed();
    }

    public long maxHeap() {
        return this.memory.getHeapMemoryUsage().getMax();
    }

    /** Runs a full collection and returns the heap still in use: the live data. */
    public long heapUsedAfterFullGc() {
        this.memory.gc();
        return heapUsed();
    }

    /** Collections and their accumulated time so far, over all collectors. */
    public GcTotals gcTotals() {
        long count = 0;
        long time = 0;
        for (GarbageCollectorMXBean collector : this.collectors) {
            count += Math.max(collector.getCollectionCount(), 0);
            time += Math.max(collector.getCollectionTime(), 0);
        }
        return new GcTotals(count, time);
    }

    /** CPU time used by this process so far, or -1 when the JVM does not tell. */
    public long processCpuNanos() {
        return (this.os instanceof com.sun.management.OperatingSystemMXBean sun) ? sun.getProcessCpuTime() : -1;
    }

    /**
     * Totals of garbage collections.
     *
     * @param count collections
     * @param timeMs accumulated collection time in milliseconds
     */
    public record GcTotals(long count, long timeMs) {

        public GcTotals minus(GcTotals other) {
            return new GcTotals(this.count - other.count, this.timeMs - other.timeMs);
        }
    }
}
