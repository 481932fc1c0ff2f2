package io.github.loombulkhead;

import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.LimitAlgorithm;
import io.github.loombulkhead.limit.Outcome;

/**
 * A named limit on concurrent calls with a bounded, thread-less wait queue.
 *
 * <p>A <em>permit</em> is the right to run one call; at most {@link #getLimit() limit} permits are
 * held at once. A call that finds no free permit waits in a FIFO queue (newest first when not
 * fair) of at most {@code queueCapacity} entries for at most {@code maxWaitDuration}. A released
 * permit goes straight to the next waiter, so a newcomer never <em>barges</em> ahead of a waiter.
 * With no waiters, acquire and release are one CAS each.
 *
 * <p>Permits are handed out in three ways, all sharing one limit and one queue:
 * <ul>
 * <li>{@link #tryAcquirePermission()}: take a free permit or fail at once;</li>
 * <li>{@link #acquirePermission()}: park the calling thread until a permit is handed to it, at
 * most {@code maxWaitDuration}; a timeout is thrown on the caller's own thread;</li>
 * <li>{@link #acquireOrEnqueue(Waiter)}: take a free permit, or leave a {@link Waiter} in the queue
 * that is called back when a permit is handed to it or when it is rejected. The waiter owns no
 * thread, which is how {@link BoundedVirtualExecutor} queues tasks.</li>
 * </ul>
 * Shrinking the limit never blocks: it takes effect as running calls finish. Callbacks of waiters
 * and listeners never run on the shared timer thread: expired waiters are told on a virtual thread.
 */
public final class Bulkhead {

    private static final System.Logger logger = System.getLogger(Bulkhead.class.getName());

    private static final long ONE_WAITING = 1L << 32;

    private final String name;

    private volatile BulkheadConfig config;

    private volatile int limit;

    /** Waiting count in the high 32 bits, active count in the low 32 bits. */
    private final AtomicLong counts = new AtomicLong();

    private final ReentrantLock lock = new ReentrantLock();

    /** Serializes limit changes, so listeners see them in order. */
    private final ReentrantLock limitChange = new ReentrantLock();

    /** Guarded by lock. */
    private final WaitQueue queue = new WaitQueue();

    /** Guarded by lock: the pending expiry check, for the oldest expiring waiter. */
    private ScheduledFuture<?> expiryCheck;

    private final LongAdder permitted = new LongAdder();

    private final LongAdder completed = new LongAdder();

    private final Map<RejectionReason, LongAdder> rejected = new EnumMap<>(RejectionReason.class);

    private final BulkheadListeners listeners = new BulkheadListeners();

    /** Finds the limit of an adaptive bulkhead; null for a static one. */
    private volatile LimitAlgorithm algorithm;

    public Bulkhead(String name, BulkheadConfig config) {
        this.name = requireName(name);
        this.config = Objects.requireNonNull(config, "config must not be null");
        this.algorithm = config.isAdaptive() ? LimitAlgorithm.of(config.getAdaptive()) : null;
        this.limit = (this.algorithm != null) ? this.algorithm.getLimit() : config.getMaxConcurrentCalls();
        for (RejectionReason reason : RejectionReason.values()) {
            this.rejected.put(reason, new LongAdder());
        }
    }

    static String requireName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("bulkhead name must not be blank but was '" + name + "'");
        }
        return name;
    }

    /** Takes a free permit if one is free and nobody waits; never blocks. */
    public boolean tryAcquirePermission() {
        for (;;) {
            long c = this.counts.get();
            if (waiting(c) != 0 || active(c) >= this.limit) {
                return false;
            }
            if (this.counts.compareAndSet(c, c + 1)) {
                permitted(0);
                return true;
            }
        }
    }

    /**
     * Takes a permit, parking the calling thread (never pinning it) until one is handed over.
     * @throws BulkheadRejectedException when the queue is full, the wait timed out or the thread was
     * interrupted (the interrupt flag is then set again)
     */
    public void acquirePermission() {
        if (tryAcquirePermission()) {
            return;
        }
        ParkedWaiter waiter = new ParkedWaiter(this, Thread.currentThread());
        if (acquireOrEnqueue(waiter)) {
            return;
        }
        waiter.await();
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
        if (tryAcquirePermission()) {
            return true;
        }
        BulkheadConfig current = this.config;
        this.lock.lock();
        try {
            for (;;) {
                long c = this.counts.get();
                if (waiting(c) == 0 && active(c) < this.limit) {
                    if (this.counts.compareAndSet(c, c + 1)) {
                        break;
                    }
                    continue;
                }
                if (waiting(c) >= current.getQueueCapacity() || current.maxWaitNanos() == 0) {
                    throw countRejection(RejectionReason.QUEUE_FULL, 0, "capacity " + current.getQueueCapacity()
                            + ", max wait " + current.getMaxWaitDuration() + ", " + active(c) + " calls active");
                }
                if (this.counts.compareAndSet(c, c + ONE_WAITING)) {
                    this.queue.add(waiter, System.nanoTime());
                    if (waiter.expires()) {
                        scheduleExpiryCheck();
                    }
                    return false;
                }
            }
        }
        finally {
            this.lock.unlock();
        }
        permitted(0);
        return true;
    }

    /**
     * Removes a waiter of this bulkhead that no longer wants a permit (cancelled, its owner shut down).
     * @return {@code true} if it was still waiting here and will not be called back
     */
    public boolean withdraw(Waiter waiter) {
        if (waiter == null || waiter.bulkhead != this) {
            return false;
        }
        this.lock.lock();
        try {
            return withdrawLocked(waiter);
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Withdraws every queued waiter that matches, in queue order, and returns them. */
    List<Waiter> withdrawAll(Predicate<? super Waiter> filter) {
        this.lock.lock();
        try {
            List<Waiter> withdrawn = this.queue.withdrawAll(filter);
            this.counts.addAndGet(-ONE_WAITING * withdrawn.size());
            return withdrawn;
        }
        finally {
            this.lock.unlock();
        }
    }

    private boolean withdrawLocked(Waiter waiter) {
        if (!this.queue.withdraw(waiter)) {
            return false;
        }
        this.counts.addAndGet(-ONE_WAITING);
        return true;
    }

    /** Gives a permit back without recording a completed call (the call never ran). */
    public void releasePermission() {
        for (;;) {
            long c = this.counts.get();
            if (active(c) <= 0) {
                throw new IllegalStateException("Bulkhead '" + this.name + "': more permits released than acquired");
            }
            if (waiting(c) != 0) {
                break;
            }
            if (this.counts.compareAndSet(c, c - 1)) {
                return;
            }
        }
        handOff();
    }

    /**
     * Gives a permit back and records a completed call that held it for {@code executionNanos}; an
     * adaptive bulkhead takes it as a successful sample.
     */
    public void onComplete(long executionNanos) {
        onComplete(executionNanos, executionNanos, -1, Outcome.SUCCESS);
    }

    /**
     * Gives a permit back and records a completed call that held it for {@code executionNanos}. An adaptive
     * bulkhead also takes one sample for its limit algorithm: the call's round trip {@code rttNanos} (for an
     * HTTP exchange, until the response headers), the calls in flight when it got its permit ({@code -1} if
     * unknown: the count now is used), and what its outcome tells about the callee.
     */
    public void onComplete(long executionNanos, long rttNanos, int inflightAtStart, Outcome outcome) {
        this.completed.increment();
        LimitAlgorithm current = this.algorithm;
        int inflight = (current == null || inflightAtStart > 0) ? inflightAtStart : getActiveCount();
        releasePermission();
        this.listeners.completed(this, executionNanos);
        if (current != null && outcome != Outcome.IGNORED) {
            sample(current, rttNanos, inflight, outcome);
        }
    }

    private void sample(LimitAlgorithm current, long rttNanos, int inflight, Outcome outcome) {
        long now = System.nanoTime();
        int proposed = current.onSample(now - rttNanos, rttNanos, inflight, outcome);
        this.listeners.sampled(this, rttNanos, outcome);
        if (proposed != this.limit && this.limitChange.tryLock()) {
            // Another thread applying a change will apply the newest proposal soon enough.
            try {
                if (this.algorithm == current) {
                    setLimit(Math.min(current.getLimit(), this.config.getMaxConcurrentCalls()));
                }
            }
            finally {
                this.limitChange.unlock();
            }
        }
    }

    /**
     * Passes a permit the caller holds to the next waiter that can use it, or frees it. A loop, not a
     * recursion: a waiter that cannot use its permit hands it straight back here.
     */
    private void handOff() {
        for (;;) {
            Waiter next;
            this.lock.lock();
            try {
                next = (active(this.counts.get()) <= this.limit) ? this.queue.grantNext(this.config.isFair()) : null;
                this.counts.addAndGet((next != null) ? -ONE_WAITING : -1);
            }
            finally {
                this.lock.unlock();
            }
            if (next == null || deliver(next)) {
                return;
            }
        }
    }

    /** Tells a granted waiter; {@code false} if it could not use the permit, which the caller still holds. */
    private boolean deliver(Waiter waiter) {
        long waited = System.nanoTime() - waiter.enqueuedAt;
        boolean used;
        try {
            used = waiter.onPermit(waited);
        }
        catch (Throwable ex) {
            logger.log(Level.ERROR, "Bulkhead '" + this.name + "': waiter " + waiter + " failed to take its permit", ex);
            used = false;
        }
        if (used) {
            permitted(waited);
        }
        return used;
    }

    /** Guarded by lock. Waiters expire oldest first: all share one max wait, so the head expires first. */
    private void scheduleExpiryCheck() {
        long maxWait = this.config.maxWaitNanos();
        if (this.expiryCheck != null || maxWait == Long.MAX_VALUE) {
            return;
        }
        Long oldest = this.queue.oldestExpiringArrival();
        if (oldest != null) {
            this.expiryCheck = ExpiryScheduler.schedule(this::expireWaiters, oldest + maxWait - System.nanoTime());
        }
    }

    /** Runs on the timer thread: only changes state, then tells the expired waiters on a virtual thread. */
    private void expireWaiters() {
        List<Waiter> expired;
        long maxWait;
        this.lock.lock();
        try {
            this.expiryCheck = null;
            maxWait = this.config.maxWaitNanos();
            expired = (maxWait != Long.MAX_VALUE) ? this.queue.expire(System.nanoTime() - maxWait) : List.of();
            this.counts.addAndGet(-ONE_WAITING * expired.size());
            scheduleExpiryCheck();
        }
        finally {
            this.lock.unlock();
        }
        if (!expired.isEmpty()) {
            ExpiryScheduler.tell(() -> rejectExpired(expired, maxWait));
        }
    }

    private void rejectExpired(List<Waiter> expired, long maxWait) {
        for (Waiter waiter : expired) {
            long waited = System.nanoTime() - waiter.enqueuedAt;
            BulkheadRejectedException rejection = countRejection(RejectionReason.WAIT_TIMED_OUT, waited, "waited "
                    + waited / 1_000_000 + " ms, max wait " + Duration.ofNanos(maxWait));
            try {
                waiter.onReject(rejection);
            }
            catch (Throwable ex) {
                logger.log(Level.ERROR, "Bulkhead '" + this.name + "': waiter " + waiter + " failed on rejection", ex);
            }
        }
    }

    /** Guarded by lock: re-arms the expiry check after the max wait changed. */
    private void rescheduleExpiryCheck() {
        if (this.expiryCheck != null) {
            this.expiryCheck.cancel(false);
            this.expiryCheck = null;
        }
        scheduleExpiryCheck();
    }

    /**
     * Changes {@code maxConcurrentCalls}. For a static bulkhead that is the limit; for an adaptive one
     * it is the ceiling: the algorithm restarts below it from the current limit (lowered to the new
     * ceiling if above it). Growing hands permits to waiters at once; shrinking never blocks and takes
     * effect as running calls finish. Listeners hear of a larger limit before anyone can use the new
     * permits, so what is sized from the limit (a connection pool) grows first.
     * @throws IllegalArgumentException if {@code newLimit} is below 1, or below an adaptive bulkhead's
     * minimum limit
     */
    public void changeLimit(int newLimit) {
        if (newLimit < 1) {
            throw new IllegalArgumentException("Bulkhead '" + this.name
                    + "': maxConcurrentCalls must be at least 1 but was " + newLimit);
        }
        this.limitChange.lock();
        try {
            BulkheadConfig.Builder builder = BulkheadConfig.from(this.config).maxConcurrentCalls(newLimit);
            AdaptiveLimitConfig adaptive = this.config.getAdaptive();
            if (adaptive != null) {
                builder.adaptive(restartAt(adaptive, Math.min(this.limit, newLimit), newLimit));
            }
            BulkheadConfig changed = builder.build();
            int target = newLimit;
            if (changed.isAdaptive()) {
                this.algorithm = LimitAlgorithm.of(changed.getAdaptive());
                target = this.algorithm.getLimit();
            }
            this.lock.lock();
            try {
                this.config = changed;
            }
            finally {
                this.lock.unlock();
            }
            setLimit(target);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("Bulkhead '" + this.name + "': " + ex.getMessage(), ex);
        }
        finally {
            this.limitChange.unlock();
        }
    }

    /** The algorithm's config, restarted at {@code limit} under a new ceiling. */
    private static AdaptiveLimitConfig restartAt(AdaptiveLimitConfig adaptive, int limit, int ceiling) {
        return AdaptiveLimitConfig.from(adaptive)
            .maxLimit(ceiling)
            .initialLimit(Math.max(adaptive.getMinLimit(), limit))
            .build();
    }

    /** Guarded by limitChange. */
    private void setLimit(int newLimit) {
        int oldLimit = this.limit;
        if (newLimit > oldLimit) {
            this.listeners.limitChanged(this, oldLimit, newLimit);
        }
        applyLimit(newLimit);
        if (newLimit < oldLimit) {
            this.listeners.limitChanged(this, oldLimit, newLimit);
        }
    }

    private void applyLimit(int newLimit) {
        List<Waiter> granted = new ArrayList<>();
        this.lock.lock();
        try {
            this.limit = newLimit;
            boolean fair = this.config.isFair();
            Waiter next;
            while (active(this.counts.get()) < newLimit && (next = this.queue.grantNext(fair)) != null) {
                this.counts.addAndGet(1 - ONE_WAITING);
                granted.add(next);
            }
        }
        finally {
            this.lock.unlock();
        }
        for (Waiter waiter : granted) {
            if (!deliver(waiter)) {
                handOff();
            }
        }
    }

    /**
     * Changes how long calls may wait; applies to calls already waiting, measured from their arrival.
     * @throws IllegalArgumentException if the duration is null or negative
     */
    public void changeMaxWaitDuration(Duration maxWaitDuration) {
        this.lock.lock();
        try {
            this.config = BulkheadConfig.from(this.config).maxWaitDuration(maxWaitDuration).build();
            rescheduleExpiryCheck();
            this.queue.forEachLasting(Waiter::maxWaitChanged);
        }
        finally {
            this.lock.unlock();
        }
    }

    public String getName() {
        return this.name;
    }

    /** The current configuration, including runtime changes. */
    public BulkheadConfig getConfig() {
        return this.config;
    }

    /**
     * Current maximum number of concurrent calls: {@code maxConcurrentCalls} of a static bulkhead, what
     * the algorithm found for an adaptive one.
     */
    public int getLimit() {
        return this.limit;
    }

    /** Whether an algorithm finds this bulkhead's limit (it then wants the calls in flight at each start). */
    public boolean isAdaptive() {
        return this.algorithm != null;
    }

    /** What a call that ended with {@code failure} tells the limit algorithm ({@code null}: it succeeded). */
    public Outcome outcomeOf(Throwable failure) {
        return (failure == null) ? Outcome.SUCCESS : this.config.getDropClassifier().classify(failure);
    }

    /** The algorithm that finds the limit of an adaptive bulkhead, for diagnostics; {@code null} when static. */
    public LimitAlgorithm getLimitAlgorithm() {
        return this.algorithm;
    }

    /** Calls or tasks holding a permit now. */
    public int getActiveCount() {
        return active(this.counts.get());
    }

    /** Calls or tasks waiting for a permit now. */
    public int getWaitingCount() {
        return waiting(this.counts.get());
    }

    /** Permits free now (0 when the limit was lowered below the active count). */
    public int getAvailablePermits() {
        return Math.max(0, this.limit - getActiveCount());
    }

    /** Total permits handed out. */
    public long getPermittedCount() {
        return this.permitted.sum();
    }

    /**
     * Total calls that completed and gave their permit back through {@link #onComplete(long)}; a call
     * is counted before its caller can see its result.
     */
    public long getCompletedCount() {
        return this.completed.sum();
    }

    /** Total rejections for {@code reason}. */
    public long getRejectedCount(RejectionReason reason) {
        return this.rejected.get(reason).sum();
    }

    /** Total rejections for every reason. */
    public long getRejectedCount() {
        long total = 0;
        for (LongAdder adder : this.rejected.values()) {
            total += adder.sum();
        }
        return total;
    }

    public void addListener(BulkheadListener listener) {
        this.listeners.add(listener);
    }

    public void removeListener(BulkheadListener listener) {
        this.listeners.remove(listener);
    }

    @Override
    public String toString() {
        return "Bulkhead[" + this.name + ", limit=" + this.limit + ", active=" + getActiveCount() + ", waiting="
                + getWaitingCount() + "]";
    }

    private void permitted(long waitNanos) {
        this.permitted.increment();
        this.listeners.permitted(this, waitNanos);
    }

    /** Counts a rejection, tells listeners, and returns the exception to throw or hand over. */
    BulkheadRejectedException countRejection(RejectionReason reason, long waitNanos, String detail) {
        this.rejected.get(reason).increment();
        this.listeners.rejected(this, reason, waitNanos);
        return new BulkheadRejectedException(this.name, reason, detail);
    }

    private static int waiting(long counts) {
        return (int) (counts >>> 32);
    }

    private static int active(long counts) {
        return (int) counts;
    }

    /**
     * A queued request for a permit that owns no thread. A waiter is offered to one bulkhead, once.
     * Exactly one callback runs, on the thread that released the permit or on a virtual thread that
     * tells expired waiters, so it must be quick: start a thread, complete a future.
     */
    public abstract static class Waiter {

        private static final VarHandle CLAIM;

        static {
            try {
                CLAIM = MethodHandles.lookup().findVarHandle(Waiter.class, "bulkhead", Bulkhead.class);
            }
            catch (ReflectiveOperationException ex) {
                throw new ExceptionInInitializerError(ex);
            }
        }

        private final boolean expires;

        /** The bulkhead it was offered to; set once. */
        volatile Bulkhead bulkhead;

        /** Guarded by the bulkhead's lock, as are the fields below. */
        int status = WaitQueue.NEW;

        /** Arrival time, strictly increasing within a queue. */
        long enqueuedAt;

        /** A waiter the bulkhead rejects once it waited {@code maxWaitDuration}. */
        protected Waiter() {
            this(true);
        }

        /** {@code expires == false}: the queue never times it out (it times itself out, or never). */
        Waiter(boolean expires) {
            this.expires = expires;
        }

        final boolean expires() {
            return this.expires;
        }

        /** Binds it to {@code owner}, once. */
        final void claim(Bulkhead owner) {
            if (!CLAIM.compareAndSet(this, (Bulkhead) null, owner)) {
                throw new IllegalStateException("Waiter " + this + " was already offered to bulkhead '"
                        + this.bulkhead.getName() + "'; create a new waiter for each call");
            }
        }

        /**
         * The permit is now held on behalf of this waiter, which must release it eventually.
         * @return {@code false} if the waiter cannot use it (its task was cancelled or could not start
         * and has been failed): the permit then passes to the next waiter. Never release it from here.
         */
        protected abstract boolean onPermit(long waitNanos);

        /** The waiter will never get a permit; the rejection is already counted. */
        protected abstract void onReject(BulkheadRejectedException rejection);

        /** The max wait changed: a waiter that times itself out re-reads it. */
        void maxWaitChanged() {
        }

    }
}
