package io.github.loombulkhead;

import java.util.List;
import java.util.Objects;

/**
 * Hands a static bulkhead's limit to an owner outside it, such as a cluster-wide limit that leases
 * permits: the limit is then the number of permits the owner holds for this process (0 included), while
 * {@code maxConcurrentCalls} stays the bound the owner enforces across processes. Waiting, the queue and
 * the statistics stay the bulkhead's own.
 *
 * <p>The owner lowers the limit with {@link #shrinkTo(int)}, which returns how many permits may still be
 * in use, so it never gives back a permit a call still holds; it raises it with {@link #grow(int)}, which
 * hands the new permits to waiters at once. {@link Bulkhead#changeLimit(int)} changes only the bound and
 * tells the owner.
 */
public final class ExternalLimit {

    /** What the owner of a leased limit hears from the bulkhead; called on the caller's thread, must be fast. */
    public interface Owner {

        /**
         * A call or task started waiting: demand now exceeds the permits held. Called on the waiting caller's thread;
         * an exception is logged, the call waits on.
         */
        void onQueued(Bulkhead bulkhead);

        /** {@link Bulkhead#changeLimit(int)} set a new bound, to be enforced by the owner. */
        void onMaxConcurrentCallsChanged(Bulkhead bulkhead, int maxConcurrentCalls);

        /**
         * A permit came back through {@link Bulkhead#releasePermit()} (its call never ran), where a completed call
         * tells the bulkhead's listeners. Called on the releasing thread; an exception is logged.
         */
        default void onReleased(Bulkhead bulkhead) {
        }
    }

    private final Bulkhead bulkhead;

    private final Owner owner;

    private ExternalLimit(Bulkhead bulkhead, Owner owner) {
        this.bulkhead = bulkhead;
        this.owner = owner;
    }

    /**
     * Takes over {@code bulkhead}'s limit, starting at 0 permits: calls wait until the owner grows it.
     * @throws IllegalStateException if the bulkhead is adaptive or its limit is already leased
     */
    public static ExternalLimit attach(Bulkhead bulkhead, Owner owner) {
        Objects.requireNonNull(bulkhead, "bulkhead must not be null");
        ExternalLimit external = new ExternalLimit(bulkhead, Objects.requireNonNull(owner, "owner must not be null"));
        bulkhead.externalLimit(external, 0);
        return external;
    }

    /** Gives the limit back to the bulkhead's config ({@code maxConcurrentCalls}). */
    public void detach() {
        this.bulkhead.externalLimit(null, this.bulkhead.getConfig().getMaxConcurrentCalls());
    }

    public Bulkhead bulkhead() {
        return this.bulkhead;
    }

    /** The permits the owner holds for this bulkhead now. */
    public int limit() {
        return this.bulkhead.permits().limit();
    }

    /** Calls or tasks holding a permit now. */
    public int active() {
        return this.bulkhead.permits().active();
    }

    /** Calls or tasks waiting for a permit now. */
    public int waiting() {
        return this.bulkhead.permits().waiting();
    }

    /** Raises the limit to {@code permits}, handing the new ones to waiters at once; a lower value is ignored. */
    public void grow(int permits) {
        if (permits > this.bulkhead.permits().limit()) {
            this.bulkhead.leasedLimit(permits);
        }
    }

    /**
     * Lowers the limit to {@code permits} (never blocks) and returns how many permits may be in use from
     * now on: at least {@code permits}, more while calls that took a permit earlier still run. Permits above
     * that number are no longer used by anyone and may be given back.
     */
    public int shrinkTo(int permits) {
        if (permits < 0) {
            throw new IllegalArgumentException("permits must be 0 or more but was " + permits);
        }
        Permits current = this.bulkhead.permits();
        if (permits < current.limit()) {
            this.bulkhead.leasedLimit(permits);
        }
        // Read after the limit was written: a call that took a permit under the old limit is counted
        // here, or it sees the new limit and gives its permit back (Permits.tryAcquire).
        return Math.max(permits, current.active());
    }

    /**
     * Rejects every waiting call or task with {@code reason}, in queue order; returns how many. The rejections are
     * counted before it returns; each waiter is told on a virtual thread of its own, so a future may complete just
     * after (its caller's fallback runs there, not on the thread calling this). Tasks that an
     * executor cannot tell of a rejection ({@code execute} of a task whose future it did not create, such as
     * {@code CompletableFuture.runAsync(task, executor)}) are left waiting: they run once permits are leased again,
     * or {@code shutdownNow} hands them back.
     */
    public int rejectWaiting(RejectionReason reason, String detail) {
        List<Waiter> withdrawn = this.bulkhead.permits().withdrawAll(Waiter::canBeRejected);
        this.bulkhead.permits().reject(withdrawn, reason, (waited) -> detail);
        return withdrawn.size();
    }

    /**
     * Tells the owner; never throws. The waiter is queued already: a failure reaching its caller would leave it to a
     * permit nobody releases (or a task that runs after its submit failed). It waits for the owner's next grant.
     */
    void queued() {
        tell(() -> this.owner.onQueued(this.bulkhead), "a waiting call");
    }

    /** Tells the owner a permit came back without a completed call; never throws (the permit is back already). */
    void released() {
        tell(() -> this.owner.onReleased(this.bulkhead), "a permit given back");
    }

    private void tell(Runnable call, String news) {
        try {
            call.run();
        }
        catch (RuntimeException ex) {
            System.getLogger(Bulkhead.class.getName()).log(System.Logger.Level.ERROR, "Bulkhead '"
                    + this.bulkhead.getName() + "': the owner of its limit failed to hear of " + news, ex);
        }
    }

    void maxConcurrentCallsChanged(int maxConcurrentCalls) {
        this.owner.onMaxConcurrentCallsChanged(this.bulkhead, maxConcurrentCalls);
    }
}
