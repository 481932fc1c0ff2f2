package io.github.loombulkhead.sample.mode;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.AIMDLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import com.netflix.concurrency.limits.limiter.BlockingLimiter;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import io.github.loombulkhead.sample.Mode;

/**
 * {@code netflix-gradient2}, {@code netflix-vegas}, {@code netflix-aimd}: a virtual thread per task, each call
 * through Netflix concurrency-limits' {@link SimpleLimiter} with that algorithm at its defaults except its
 * maximum, wrapped in a {@link BlockingLimiter} so that a task beyond the limit waits (at most the max wait, or
 * just under an hour when that is longer, the most BlockingLimiter accepts; then it is rejected). Each call's
 * outcome goes to the limiter as {@link CallOutcome} classifies it.
 */
final class NetflixLimiterStrategy implements ConcurrencyStrategy {

    /** The initial limit of all three algorithms, and the minimum of Gradient2 and AIMD (their defaults). */
    static final int DEFAULT_INITIAL_LIMIT = 20;

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    private final SimpleLimiter<Void> limiter;

    private final BlockingLimiter<Void> blocking;

    NetflixLimiterStrategy(Mode mode, int maxLimit, Duration maxWait) {
        this.limiter = SimpleLimiter.newBuilder().named(mode.id()).limit(algorithm(mode, maxLimit)).build();
        this.blocking = BlockingLimiter.wrap(this.limiter, timeout(maxWait));
    }

    /** {@code maxWait}, or just under an hour when longer: BlockingLimiter refuses a timeout of an hour or more. */
    private static Duration timeout(Duration maxWait) {
        Duration longest = BlockingLimiter.MAX_TIMEOUT.minusMillis(1);
        return (maxWait.compareTo(longest) < 0) ? maxWait : longest;
    }

    /**
     * The mode's algorithm at its defaults with its maximum set to {@code maxLimit}; below the defaults' initial
     * limit, the initial (and minimum) limit is lowered to {@code maxLimit} too, so that the limit never exceeds it.
     */
    static Limit algorithm(Mode mode, int maxLimit) {
        boolean lowCeiling = maxLimit < DEFAULT_INITIAL_LIMIT;
        return switch (mode) {
            case NETFLIX_GRADIENT2 -> {
                Gradient2Limit.Builder builder = Gradient2Limit.newBuilder().maxConcurrency(maxLimit);
                yield (lowCeiling ? builder.initialLimit(maxLimit).minLimit(maxLimit) : builder).build();
            }
            case NETFLIX_VEGAS -> {
                VegasLimit.Builder builder = VegasLimit.newBuilder().maxConcurrency(maxLimit);
                yield (lowCeiling ? builder.initialLimit(maxLimit) : builder).build();
            }
            case NETFLIX_AIMD -> {
                AIMDLimit.Builder builder = AIMDLimit.newBuilder().maxLimit(maxLimit);
                yield (lowCeiling ? builder.initialLimit(maxLimit).minLimit(maxLimit) : builder).build();
            }
            default -> throw new IllegalArgumentException("Mode " + mode + " does not use a Netflix limiter");
        };
    }

    /** How long a task waits for a permit before it is rejected. */
    Duration maxWait() {
        return this.blocking.getTimeout();
    }

    @Override
    public OptionalInt limit() {
        return OptionalInt.of(this.limiter.getLimit());
    }

    @Override
    public ExecutorService executor() {
        return this.executor;
    }

    @Override
    public Runnable decorate(Runnable call) {
        return () -> call(acquire(), call);
    }

    /** Runs {@code call} holding the permit of {@code listener} and tells it the outcome; failures are rethrown. */
    static void call(Limiter.Listener listener, Runnable call) {
        try {
            call.run();
        }
        catch (RuntimeException | Error ex) {
            CallOutcome.of(ex).report(listener);
            throw ex;
        }
        listener.onSuccess();
    }

    private Limiter.Listener acquire() {
        Optional<Limiter.Listener> listener = this.blocking.acquire(null);
        if (listener.isPresent()) {
            return listener.get();
        }
        if (Thread.currentThread().isInterrupted()) {
            // BlockingLimiter restored the interrupt flag; it stays set for the caller.
            throw new IllegalStateException("Interrupted while waiting for a permit of " + this.blocking);
        }
        throw new RejectedExecutionException("No permit of " + this.blocking + " within " + this.blocking.getTimeout());
    }

    @Override
    public void close() {
        ConcurrencyStrategy.shutdown(this.executor, Duration.ofSeconds(10));
    }
}
