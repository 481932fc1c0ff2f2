package io.github.loombulkhead.benchmarks.memory;

/**
 * One measurement: heap used after GC with every permit held ({@code baselineBytes}) and again with
 * {@code waitingTasks} more tasks waiting ({@code loadedBytes}); {@code submitMillis} is the time until
 * all of them were waiting. {@code completedTasks} proves they all ran once released.
 */
public record MemoryResult(String mode, int waitingTasks, long baselineBytes, long loadedBytes,
        double bytesPerTask, double submitMillis, long completedTasks) {
}
