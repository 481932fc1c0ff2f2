package io.github.loombulkhead;

import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import io.github.loombulkhead.limit.LimitAlgorithm;
import io.github.loombulkhead.limit.Outcome;

/**
 * A named limit on concurrent calls with a bounded, thread-less wait queue.
 *
 * <p>A <em>permit</em> is the right to run one call; at most {@link #getLimit() limit} permits are
 * held at once. The {@link #getCeiling() ceiling} is the configured {@code maxConcurrentCalls}: the
 * limit of a static bulkhead; an adaptive one's {@link LimitAlgorithm} finds its limit at or below it.
 * A call that finds no free permit waits in a FIFO queue (newest first when not fair) of at most
 * {@code queueCapacity} entries for at most {@code maxWaitDuration}. A released permit goes straight
 * to the next waiter, so a newcomer never <em>barges</em> ahead of a waiter.
 *
 * <p>Permits are handed out in three ways, all sharing one limit and one queue:
 * <ul>
 * <li>{@link #tryAcquirePermit()}: take a free permit or fail at once;</li>
 * <li>{@link #acquirePermit()}: park the calling thread until a permit is handed to it, at
 * most {@code maxWaitDuration}; a timeout is thrown on the caller's own thread;</li>
 * <li>{@link #acquireOrEnqueue(Waiter)}: take a free permit, or leave a {@link Waiter} in the queue
 * that is called back when a permit is handed to it or when it is rejected. The waiter owns no
 * thread, which is how {@link BoundedVirtualExecutor} queues tasks.</li>
 * </ul>
 * Every permit goes back exactly once, through {@link #onComplete} (a call that ran) or
 * {@link #releasePermit()} (one that never did). A {@link BoundedVirtualExecutor} is the exception: it completes
 * the permit of every task it granted one, also of a task that never ran (cancelled first, or its thread could not
 * start), without a sample, so that its completed count equals its permitted count. Shrinking the limit never
 * blocks: it takes effect as running calls finish.
 */
public final class Bulkhead {

    private final String name;

    private final AtomicReference<BulkheadConfig> config;

    /** The configuration it was created with, before any runtime change. */
    private final BulkheadConfig createdWith;

    private final Permits permits;

    private final BulkheadStatistics statistics = new BulkheadStatistics();

    private final LimitControl limits;

    /** This bulkhead's mark on a thread whose call chain holds no other permit ({@link CallChain}). */
    private final CallChain.Scope chainMark = CallChain.markOf(this);

    public Bulkhead(String name, BulkheadConfig config) {
        this.name = requireName(name);
        this.config = new AtomicReference<>(Objects.requireNonNull(config, "config must not be null"));
        this.createdWith = config;
        LimitAlgorithm algorithm = LimitControl.algorithmFor(config);
        this.permits = new Permits(this, this.statistics, LimitControl.initialLimit(algorithm, config));
        this.limits = new LimitControl(this, this.permits, this.statistics, algorithm);
    }

    static String requireName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("bulkhead name must not be blank but was '" + name + "'");
        }
        return name;
    }

    /** Takes a free permit if one is free and nobody waits; never blocks. */
    public boolean tryAcquirePermit() {
        return this.permits.tryAcquire();
    }

    /**
     * Takes a permit, parking the calling thread (never pinning it) until one is handed over. A permit handed over
     * at the moment the thread is interrupted is kept: the method returns, with the interrupt flag still set, and the
     * caller owns the permit.
     * @throws BulkheadRejectedException when the queue is full, the wait timed out or the thread was
     * interrupted (the interrupt flag is then set again)
     */
    public void acquirePermit() {
        if (!tryAcquirePermit()) {
            ParkedWaiter.acquire(this);
        }
    }

    /**
     * Takes a free permit, or queues {@code waiter} to be called back later.
     * @return {@code true} if the permit was taken now (the waiter is not called back); {@code false}
     * if the waiter was queued and will get exactly one of {@link Waiter#onPermit(long)} or
     * {@link Waiter#onReject(BulkheadRejectedException)}, unless it is {@linkplain #withdraw withdrawn}
     * @throws BulkheadRejectedException with reason {@code QUEUE_FULL} when it cannot wait
     * @throws IllegalStateException if {@code waiter} was offered to a bulkhead before
     */
    public boolean acquireOrEnqueue(Waiter waiter) {
        Objects.requireNonNull(waiter, "waiter must not be null");
        waiter.claim(this);
        if (tryAcquirePermit() || this.permits.acquireOrEnqueue(waiter, getConfig())) {
            return true;
        }
        this.limits.queued();
        return false;
    }

    /**
     * Removes a waiter of this bulkhead that no longer wants a permit (cancelled, its owner shut down).
     * @return {@code true} if it was still waiting here and will not be called back
     */
    public boolean withdraw(Waiter waiter) {
        return waiter != null && waiter.isOfferedTo(this) && this.permits.withdraw(waiter);
    }

    /** Gives a permit back without recording a completed call (the call never ran). */
    public void releasePermit() {
        this.permits.release();
        this.limits.released();
    }

    /**
     * Gives a permit back and records a completed call that held it for {@code executionNanos}; an
     * adaptive bulkhead takes it as a successful sample, unless it is 0 (a duration not measured).
     */
    public void onComplete(long executionNanos) {
        onComplete(executionNanos, executionNanos, -1, Outcome.SUCCESS);
    }

    /**
     * Gives a permit back and records a completed call that held it for {@code executionNanos}. An adaptive
     * bulkhead also takes one sample for its limit algorithm: the call's round trip {@code rttNanos} (for an
     * HTTP exchange, until the response headers), the calls in flight when it got its permit ({@code -1} if
     * unknown: the count now is used), and what its outcome tells about the callee. A round trip of 0 or less
     * was not measured and gives no sample.
     */
    public void onComplete(long executionNanos, long rttNanos, int inflightAtStart, Outcome outcome) {
        this.limits.completed(executionNanos, rttNanos, inflightAtStart, outcome);
    }

    /** Counts a rejection, tells listeners, and returns the exception to throw or hand over. */
    BulkheadRejectedException countRejection(RejectionReason reason, long waitNanos, String detail) {
        return this.statistics.countRejection(this, reason, waitNanos, detail);
    }

    /**
     * Changes the ceiling, {@code maxConcurrentCalls}. A static bulkhead's limit becomes the new ceiling;
     * an adaptive one's algorithm restarts below it from the current limit (lowered to the new ceiling if
     * above it). Growing hands permits to waiters at once; shrinking never blocks and takes effect as
     * running calls finish. Listeners hear of a larger limit before anyone can use the new permits, so
     * what is sized from the limit (a connection pool) grows first.
     * @throws IllegalArgumentException if {@code newLimit} is below 1, or below an adaptive bulkhead's
     * minimum limit
     */
    public void changeLimit(int newLimit) {
        this.limits.changeCeiling(newLimit);
    }

    /**
     * Applies {@code change} to the current configuration and returns the result. Runtime changes of different
     * fields (the ceiling, the max wait) may race; each applies to the configuration the other left, so neither is
     * lost. {@code change} may run more than once and must have no side effects.
     */
    BulkheadConfig updateConfig(UnaryOperator<BulkheadConfig> change) {
        return this.config.updateAndGet(change);
    }

    /** Hands the limit to {@code external} (starting at {@code limit} permits) or back with {@code null}. */
    void externalLimit(ExternalLimit external, int limit) {
        this.limits.lease(external, limit);
    }

    /** The owner of a leased limit moved it to the {@code permits} it holds. */
    void leasedLimit(int permits) {
        this.limits.leasedLimit(permits);
    }

    Permits permits() {
        return this.permits;
    }

    CallChain.Scope chainMark() {
        return this.chainMark;
    }

    /**
     * Changes how long calls may wait; applies to calls already waiting, measured from their arrival.
     * @throws IllegalArgumentException if the duration is null or negative, or zero while the limit is leased (the
     * calls of a leased bulkhead wait for the permits its owner leases for them; without a wait none would be leased)
     */
    public void changeMaxWaitDuration(Duration maxWaitDuration) {
        // Validates before anything changes.
        BulkheadConfig.from(getConfig()).maxWaitDuration(maxWaitDuration).build();
        if (maxWaitDuration.isZero() && this.limits.isLeased()) {
            throw new IllegalArgumentException("Bulkhead '" + this.name + "': its limit is leased (a cluster "
                    + "bulkhead), and its calls wait for the permits leased for them, so maxWaitDuration must be "
                    + "above 0 but was " + maxWaitDuration);
        }
        this.permits.changeMaxWait(
                () -> updateConfig((current) -> BulkheadConfig.from(current).maxWaitDuration(maxWaitDuration).build()));
    }

    public String getName() {
        return this.name;
    }

    /** The configuration it was created with, before any runtime change (a builder asking for it is checked so). */
    BulkheadConfig createdWith() {
        return this.createdWith;
    }

    /** The current configuration, including runtime changes. */
    public BulkheadConfig getConfig() {
        return this.config.get();
    }

    /**
     * The limit: how many permits may be held now. The ceiling for a static bulkhead, what the algorithm
     * found at or below it for an adaptive one.
     */
    public int getLimit() {
        return this.permits.limit();
    }

    /** The ceiling, {@code maxConcurrentCalls}: the limit of a static bulkhead, the most an adaptive one's reaches. */
    public int getCeiling() {
        return getConfig().getMaxConcurrentCalls();
    }

    /** Whether an algorithm finds this bulkhead's limit (it then wants the calls in flight at each start). */
    public boolean isAdaptive() {
        return this.limits.algorithm() != null;
    }

    /**
     * Whether an owner outside this bulkhead leases its limit (a cluster bulkhead): the limit is then the permits this
     * process holds, and the ceiling the bound of all processes.
     */
    public boolean isLimitLeased() {
        return this.limits.isLeased();
    }

    /** The algorithm that finds the limit of an adaptive bulkhead, for diagnostics; {@code null} when static. */
    public LimitAlgorithm getLimitAlgorithm() {
        return this.limits.algorithm();
    }

    /**
     * What a call that ended with {@code failure} tells the limit algorithm ({@code null}: it succeeded), asked on
     * the thread that ran it. A call cut short by an interrupt (the thread is still interrupted, whether the call
     * failed or returned, or an {@link InterruptedException} or {@link ClosedByInterruptException} is among the
     * failure's causes) says nothing about the callee: {@link Outcome#IGNORED}. A cancelled {@code invokeAny} loser or
     * {@code shutdownNow} is no overload, and its shortened time no round trip. Nor is a call ended by a cancellation
     * (a {@link CancellationException} among the causes: an asynchronous call's stage its caller cancelled).
     */
    public Outcome outcomeOf(Throwable failure) {
        if (Thread.currentThread().isInterrupted()) {
            return Outcome.IGNORED;
        }
        if (failure == null) {
            return Outcome.SUCCESS;
        }
        if (isCutShort(failure)) {
            return Outcome.IGNORED;
        }
        return getConfig().getDropClassifier().classify(failure);
    }

    private static boolean isCutShort(Throwable failure) {
        int depth = 0;
        for (Throwable current = failure; current != null && depth < 16; current = current.getCause(), depth++) {
            if (current instanceof InterruptedException || current instanceof ClosedByInterruptException
                    || current instanceof CancellationException) {
                return true;
            }
        }
        return false;
    }

    /** Calls or tasks holding a permit now. */
    public int getActiveCount() {
        return this.permits.active();
    }

    /**
     * A call that holds a permit of this bulkhead starts now. An adaptive bulkhead tells its algorithm (which watches
     * how long the calls in flight take, before they complete) and returns the calls holding a permit now, this one
     * included, for the call's sample; a static bulkhead returns {@code -1}. A call started this way ends with
     * {@link #onComplete(long, long, int, Outcome)}, passing the count returned here and the time since this call.
     */
    public int callStarted() {
        return this.limits.started();
    }

    /** Calls or tasks waiting for a permit now. */
    public int getWaitingCount() {
        return this.permits.waiting();
    }

    /** Permits free now (0 when the limit was lowered below the active count). */
    public int getAvailablePermits() {
        return Math.max(0, this.permits.limit() - this.permits.active());
    }

    /** Total permits handed out. */
    public long getPermittedCount() {
        return this.statistics.permittedCount();
    }

    /**
     * Total calls that completed and gave their permit back through {@link #onComplete(long)}; a call
     * is counted before its caller can see its result.
     */
    public long getCompletedCount() {
        return this.statistics.completedCount();
    }

    /** Total rejections for {@code reason}. */
    public long getRejectedCount(RejectionReason reason) {
        return this.statistics.rejectedCount(reason);
    }

    /** Total rejections for every reason. */
    public long getRejectedCount() {
        return this.statistics.rejectedCount();
    }

    public void addListener(BulkheadListener listener) {
        this.statistics.listeners().add(listener);
    }

    public void removeListener(BulkheadListener listener) {
        this.statistics.listeners().remove(listener);
    }

    @Override
    public String toString() {
        return "Bulkhead[" + this.name + ", limit=" + getLimit() + ", active=" + getActiveCount() + ", waiting="
                + getWaitingCount() + "]";
    }
}
