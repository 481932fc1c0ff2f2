package io.github.loombulkhead.sample.mode;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * How one mode runs its calls: every request becomes {@code CompletableFuture.runAsync(decorate(call),
 * executor())}. Closing it releases the executor.
 */
public interface ConcurrencyStrategy extends AutoCloseable {

    /** The executor the tasks are submitted to. */
    Executor executor();

    /**
     * How many calls the mode lets run at once right now (the time series samples it); empty for a mode without a
     * limit.
     */
    OptionalInt limit();

    /** What the task runs around the call, e.g. acquiring a permit first. */
    default Runnable decorate(Runnable call) {
        return call;
    }

    /** Shuts the executor down, waiting a little for running tasks and then interrupting them. */
    @Override
    void close();

    /** Shuts {@code executor} down, gives its tasks {@code grace} to end, then interrupts the rest. */
    static void shutdown(ExecutorService executor, Duration grace) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
            }
        }
        catch (InterruptedException ex) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
