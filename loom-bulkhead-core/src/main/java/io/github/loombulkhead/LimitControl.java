package io.github.loombulkhead;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;

import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.CallerPauses;
import io.github.loombulkhead.limit.LimitAlgorithm;
import io.github.loombulkhead.limit.LimitRamp;
import io.github.loombulkhead.limit.Outcome;

/**
 * How the limit of one bulkhead changes. The <em>ceiling</em> is the configured
 * {@code maxConcurrentCalls}; the <em>limit</em> is how many permits may be held now: the ceiling
 * itself for a static bulkhead, what a {@link LimitAlgorithm} finds at or below it for an adaptive one.
 * Changes are serialized, so listeners hear of them in order; a larger limit is announced before
 * anyone can use it, a smaller one after it applies. A static limit may be leased to an {@link ExternalLimit}
 * instead, which then owns it; listeners are not told of leased limits. An algorithm's rises are spread over time
 * by a {@link LimitRamp}, stepped by the shared {@link ExpiryScheduler} thread.
 */
final class LimitControl {

    private final Bulkhead owner;

    private final Permits permits;

    private final BulkheadStatistics statistics;

    /** Serializes limit changes. */
    private final ReentrantLock lock = new ReentrantLock();

    /** Finds the limit of an adaptive bulkhead; null for a static one. */
    private volatile LimitAlgorithm algorithm;

    /** Owns the limit when it is leased from outside (a cluster-wide limit); null otherwise. */
    private volatile ExternalLimit external;

    /** Guarded by lock: spreads the algorithm's rises over time. */
    private LimitRamp ramp;

    /** Where the ramp goes; a sample proposing it again needs no lock. */
    private volatile int target;

    /** The RTT of the latest sample: how far a rise proposed after a step or a ceiling change is spread. */
    private volatile long lastRttNanos;

    /** Guarded by lock: the timer of the ramp's next step, null when none is pending. */
    private ScheduledFuture<?> step;

    /** Guarded by lock: when that step is due. */
    private long stepNanos;

    /** The pauses of this process, once an adaptive bulkhead took a sample ({@link PauseDetector}). */
    private volatile CallerPauses pauses;

    LimitControl(Bulkhead owner, Permits permits, BulkheadStatistics statistics, LimitAlgorithm algorithm) {
        this.owner = owner;
        this.permits = permits;
        this.statistics = statistics;
        this.algorithm = algorithm;
        this.ramp = new LimitRamp(permits.limit());
        this.target = permits.limit();
    }

    /** The algorithm {@code config} asks for, or {@code null} for a static limit. */
    static LimitAlgorithm algorithmFor(BulkheadConfig config) {
        return config.isAdaptive() ? LimitAlgorithm.of(config.getAdaptive()) : null;
    }

    /** The limit to start from: the algorithm's, or the ceiling of a static bulkhead. */
    static int initialLimit(LimitAlgorithm algorithm, BulkheadConfig config) {
        return (algorithm != null) ? algorithm.getLimit() : config.getMaxConcurrentCalls();
    }

    /** Whether an owner such as a cluster leases the limit (see {@link ExternalLimit}). */
    boolean isLeased() {
        return this.external != null;
    }

    LimitAlgorithm algorithm() {
        return this.algorithm;
    }

    /**
     * A call holding a permit starts: an adaptive bulkhead's algorithm hears of it.
     * @return the calls holding a permit now, or {@code -1} for a static bulkhead
     */
    int started() {
        LimitAlgorithm current = this.algorithm;
        if (current == null) {
            return -1;
        }
        int inflight = this.permits.active();
        current.onStart(System.nanoTime(), inflight);
        return inflight;
    }

    /**
     * Gives the permit of a call that ran back and counts it; an adaptive bulkhead's algorithm takes the call as a
     * sample, with the calls in flight when it got its permit ({@code -1} if unknown: the count now).
     */
    void completed(long executionNanos, long rttNanos, int inflightAtStart, Outcome outcome) {
        LimitAlgorithm current = this.algorithm;
        // The call got its permit executionNanos before now; read before giving the permit back, which may run a
        // waiter. A static bulkhead needs no clock here.
        long startNanos = (current != null) ? System.nanoTime() - executionNanos : 0;
        this.statistics.countCompleted();
        int inflight = (current == null || inflightAtStart > 0) ? inflightAtStart : this.permits.active();
        this.permits.release();
        this.statistics.completed(this.owner, executionNanos);
        if (current == null) {
            return;
        }
        // A success that this process paused during tells its RTT only within the pause; a drop counts as it is.
        long heldUp = (outcome == Outcome.SUCCESS && rttNanos > 0) ? callerPauses().heldUpNanos(startNanos, rttNanos)
                : 0;
        if (inflightAtStart <= 0 && (heldUp > 0 || (outcome != Outcome.IGNORED && rttNanos > 0))) {
            // Not reported by callStarted(): its start is reported now, so that the sample completes a start of its
            // own and not one of the calls still in flight that started with it.
            current.onStart(startNanos, inflight);
        }
        if (heldUp > 0) {
            current.onPausedSample(startNanos, rttNanos, heldUp, inflight);
            this.statistics.pausedSample(this.owner, rttNanos, heldUp);
            apply(current, rttNanos - heldUp);
        }
        else if (outcome != Outcome.IGNORED && rttNanos > 0) {
            sample(current, startNanos, rttNanos, inflight, outcome);
        }
        else if (inflightAtStart > 0) {
            // No sample (ignored, or a round trip of 0: not measured), but a call reported by started() has ended.
            current.onSample(startNanos, Math.max(0, rttNanos), inflight, Outcome.IGNORED);
        }
    }

    private CallerPauses callerPauses() {
        CallerPauses known = this.pauses;
        if (known == null) {
            known = PauseDetector.pauses();
            this.pauses = known;
        }
        return known;
    }

    /**
     * Gives {@code algorithm} one sample and applies the limit it proposes, capped by the ceiling: a decrease at once,
     * a rise through the ramp. A thread that finds a change under way skips its own; that thread checks the proposal
     * again once it is done, so the last proposal always applies.
     */
    private void sample(LimitAlgorithm algorithm, long startNanos, long rttNanos, int inflight, Outcome outcome) {
        algorithm.onSample(startNanos, rttNanos, inflight, outcome);
        this.statistics.sampled(this.owner, rttNanos, outcome);
        this.lastRttNanos = rttNanos;
        apply(algorithm, rttNanos);
    }

    /**
     * Applies what {@code algorithm} proposes unless another thread holds the lock; every holder of the lock calls
     * this after unlocking, so a proposal skipped meanwhile applies then. Rises spread over half of {@code rttNanos}.
     */
    private void apply(LimitAlgorithm algorithm, long rttNanos) {
        int proposed = proposal(algorithm);
        while (proposed != this.target && this.lock.tryLock()) {
            boolean replaced;
            try {
                replaced = this.algorithm != algorithm;
                // Read again: a change applied while this thread waited for the lock may be newer than what it read.
                proposed = proposal(algorithm);
                if (!replaced && proposed != this.target) {
                    long now = System.nanoTime();
                    setLimit(this.ramp.propose(proposed, now, rttNanos));
                    this.target = this.ramp.getTarget();
                    scheduleStep(now);
                }
            }
            finally {
                this.lock.unlock();
            }
            if (replaced) {
                // A ceiling change restarted the algorithm: this proposal is void, but one of the new algorithm's
                // that skipped its change while this thread held the lock is not.
                applySkipped();
                return;
            }
            int again = proposal(algorithm);
            if (again == proposed) {
                return;
            }
            // A sample that came in meanwhile skipped its change: apply the newer proposal.
            proposed = again;
        }
    }

    /** After a step or a ceiling change released the lock: applies a proposal a sample skipped meanwhile. */
    private void applySkipped() {
        LimitAlgorithm current = this.algorithm;
        if (current != null) {
            apply(current, this.lastRttNanos);
        }
    }

    /** What {@code algorithm} proposes, capped by the ceiling. */
    private int proposal(LimitAlgorithm algorithm) {
        return Math.min(algorithm.getLimit(), this.owner.getCeiling());
    }

    /** Guarded by lock. Makes sure a timer runs the ramp's next step when it is due. */
    private void scheduleStep(long now) {
        long next = this.ramp.nextStepNanos();
        if (next == Long.MAX_VALUE || (this.step != null && this.stepNanos - next <= 0)) {
            return;
        }
        if (this.step != null) {
            this.step.cancel(false);
        }
        LimitRamp scheduledFor = this.ramp;
        this.stepNanos = next;
        // The timer thread only hands over: the step runs on a virtual thread, as it may start waiting calls.
        this.step = ExpiryScheduler.schedule(() -> ExpiryScheduler.step(() -> step(scheduledFor)), next - now);
    }

    /** Applies the steps of {@code scheduledFor} that are due, unless the ramp was replaced meanwhile. */
    private void step(LimitRamp scheduledFor) {
        this.lock.lock();
        try {
            this.step = null;
            long now = System.nanoTime();
            if (this.ramp == scheduledFor) {
                setLimit(this.ramp.advance(now));
            }
            // A replaced ramp's timer still hands over to the current ramp, whose step it may have kept waiting.
            scheduleStep(now);
        }
        finally {
            this.lock.unlock();
        }
        applySkipped();
    }

    /**
     * Changes the ceiling. A static limit becomes the ceiling; an adaptive algorithm restarts below it
     * from the current limit (lowered to the new ceiling if above it); the owner of a leased limit is told.
     * @throws IllegalArgumentException naming the bulkhead if the ceiling is below 1 or below an adaptive
     * bulkhead's minimum limit
     */
    void changeCeiling(int newCeiling) {
        if (newCeiling < 1) {
            throw new IllegalArgumentException("Bulkhead '" + this.owner.getName()
                    + "': maxConcurrentCalls must be at least 1 but was " + newCeiling);
        }
        ExternalLimit leased;
        try {
            leased = setCeiling(newCeiling);
        }
        catch (RuntimeException ex) {
            // Refused, nothing changed; but a sample may have skipped its change while the lock was held.
            applySkipped();
            throw ex;
        }
        if (leased != null) {
            // The owner of a leased limit enforces the new ceiling; the limit stays the permits it holds.
            leased.maxConcurrentCallsChanged(newCeiling);
            return;
        }
        applySkipped();
    }

    /**
     * Sets the ceiling under the lock, as {@link #lease} leases, so a limit leased meanwhile is never overwritten.
     * @return the owner of a leased limit, to be told outside the lock; {@code null} when the limit is not leased
     */
    private ExternalLimit setCeiling(int newCeiling) {
        this.lock.lock();
        try {
            ExternalLimit leased = this.external;
            if (leased != null) {
                this.owner.updateConfig((config) -> BulkheadConfig.from(config).maxConcurrentCalls(newCeiling).build());
                return leased;
            }
            // Throws for an impossible ceiling before anything changed.
            BulkheadConfig changed = this.owner.updateConfig((config) -> withCeiling(config, newCeiling));
            LimitAlgorithm restarted = algorithmFor(changed);
            this.algorithm = restarted;
            int limit = initialLimit(restarted, changed);
            if (this.step != null) {
                // The old ramp's timer would keep the new ramp's first step from being scheduled.
                this.step.cancel(false);
                this.step = null;
            }
            this.ramp = new LimitRamp(limit);
            this.target = limit;
            setLimit(limit);
            return null;
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("Bulkhead '" + this.owner.getName() + "': " + ex.getMessage(), ex);
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Guarded by lock: {@code config} with the new ceiling; an adaptive one restarts from the current limit. */
    private BulkheadConfig withCeiling(BulkheadConfig config, int newCeiling) {
        BulkheadConfig.Builder builder = BulkheadConfig.from(config).maxConcurrentCalls(newCeiling);
        AdaptiveLimitConfig adaptive = config.getAdaptive();
        if (adaptive != null && newCeiling < adaptive.getMinLimit()) {
            // Named as the caller knows it (changeLimit sets maxConcurrentCalls), not as the algorithm's maxLimit.
            throw new IllegalArgumentException("maxConcurrentCalls is the ceiling of its adaptive limit and must be at "
                    + "least its minLimit " + adaptive.getMinLimit() + " but was " + newCeiling
                    + "; choose a larger limit or a smaller adaptive minLimit");
        }
        if (adaptive != null) {
            builder.adaptive(AdaptiveLimitConfig.from(adaptive)
                .maxLimit(newCeiling)
                .initialLimit(Math.max(adaptive.getMinLimit(), Math.min(this.permits.limit(), newCeiling)))
                .build());
        }
        return builder.build();
    }

    /**
     * Hands the limit to {@code leased} (starting at {@code limit} permits), or back to the config with
     * {@code null}; see {@link ExternalLimit}.
     */
    void lease(ExternalLimit leased, int limit) {
        this.lock.lock();
        try {
            if (leased != null && (this.external != null || this.algorithm != null)) {
                throw new IllegalStateException("Bulkhead '" + this.owner.getName() + "': its limit is already "
                        + ((this.algorithm != null) ? "adaptive" : "leased") + "; a leased limit needs a static one");
            }
            this.external = leased;
            setLimit(limit);
        }
        finally {
            this.lock.unlock();
            // After a lease an adaptive bulkhead refused, a sample may have skipped its change meanwhile (a static
            // bulkhead has no proposal to apply).
            applySkipped();
        }
    }

    /**
     * Sets the limit of a leased bulkhead to the permits its owner holds; listeners hear of it as of any limit
     * change, so a connection pool sized from the limit grows before the new permits are used.
     */
    void leasedLimit(int permits) {
        setLimit(permits);
    }

    /** A permit came back without a completed call; the owner of a leased limit hears of it. */
    void released() {
        ExternalLimit leased = this.external;
        if (leased != null) {
            leased.released();
        }
    }

    /** A call or task started waiting; the owner of a leased limit hears of it. */
    void queued() {
        ExternalLimit leased = this.external;
        if (leased != null) {
            leased.queued();
        }
    }

    /**
     * Guarded by lock, unless the limit is leased: an owner's changes from two threads may then race, which can only
     * reorder what listeners hear; the pool sizers among them only ever grow a pool.
     */
    private void setLimit(int newLimit) {
        int oldLimit = this.permits.limit();
        if (newLimit > oldLimit) {
            this.statistics.listeners().limitChanged(this.owner, oldLimit, newLimit);
        }
        this.permits.setLimit(newLimit);
        if (newLimit < oldLimit) {
            this.statistics.listeners().limitChanged(this.owner, oldLimit, newLimit);
        }
    }
}
