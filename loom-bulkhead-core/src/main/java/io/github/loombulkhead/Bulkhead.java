package io.github.loombulkhead;

import java.time.Duration;
import java.util.ArrayDeque;
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

/**
 * A named limit on concurrent calls with a bounded, thread-less wait queue.
 *
 * <p>Permits are handed out in three ways, all sharing one limit and one queue:
 * <ul>
 * <li>{@link #tryAcquirePermission()}: take a free permit or fail at once;</li>
 * <li>{@link #acquirePermission()}: park the calling thread until a permit is handed to it, at
 * most {@code maxWaitDuration};</li>
 * <li>{@link #acquireOrEnqueue(Waiter)}: take a free permit, or leave a {@link Waiter} in the queue
 * that is called back when a permit is handed to it or when it is rejected. The waiter owns no
 * thread, which is how {@link BoundedVirtualExecutor} queues tasks for about 100 bytes each.</li>
 * </ul>
 * A released permit goes straight to the next waiter (FIFO when fair, newest first otherwise), so
 * a newcomer never overtakes a waiter. With no waiters, acquire and release are one CAS each.
 * Shrinking the limit never blocks: it takes effect as running calls finish.
 */
public final class Bulkhead {

    /** A waiter that was never queued, e.g. because it took a free permit at once. */
    private static final int NOT_QUEUED = -1;

    private static final int WAITING = 0;

    private static final int GRANTED = 1;

    private static final int REJECTED = 2;

    private static final int WITHDRAWN = 3;

    private static final long ONE_WAITING = 1L << 32;

    private final String name;

    private volatile BulkheadConfig config;

    private volatile int limit;

    /** Waiting count in the high 32 bits, active count in the low 32 bits. */
    private final AtomicLong state = new AtomicLong();

    private final ReentrantLock lock = new ReentrantLock();

    /** Serializes limit changes, so listeners see them in order. */
    private final ReentrantLock limitChange = new ReentrantLock();

    /** Guarded by lock; may hold withdrawn entries, dropped lazily. */
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>();

    /** Guarded by lock. */
    private ScheduledFuture<?> expiryCheck;

    private final LongAdder permitted = new LongAdder();

    private final LongAdder completed = new LongAdder();

    private final Map<RejectionReason, LongAdder> rejected = new EnumMap<>(RejectionReason.class);

    private final BulkheadListeners listeners = new BulkheadListeners();

    public Bulkhead(String name, BulkheadConfig config) {
        this.name = requireName(name);
        this.config = Objects.requireNonNull(config, "config must not be null");
        this.limit = config.getMaxConcurrentCalls();
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

    // ---------------------------------------------------------------- acquiring

    /** Takes a free permit if one is free and nobody waits; never blocks. */
    public boolean tryAcquirePermission() {
        for (;;) {
            long s = this.state.get();
            if (waiting(s) != 0 || active(s) >= this.limit) {
                return false;
            }
            if (this.state.compareAndSet(s, s + 1)) {
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
     */
    public boolean acquireOrEnqueue(Waiter waiter) {
        Objects.requireNonNull(waiter, "waiter must not be null");
        if (tryAcquirePermission()) {
            return true;
        }
        BulkheadConfig current = this.config;
        boolean queueFull = false;
        this.lock.lock();
        try {
            for (;;) {
                long s = this.state.get();
                if (waiting(s) == 0 && active(s) < this.limit) {
                    if (this.state.compareAndSet(s, s + 1)) {
                        break;
                    }
                    continue;
                }
                if (waiting(s) >= current.getQueueCapacity() || current.maxWaitNanos() == 0) {
                    queueFull = true;
                    break;
                }
                if (this.state.compareAndSet(s, s + ONE_WAITING)) {
                    waiter.enqueuedAt = System.nanoTime();
                    waiter.state = WAITING;
                    this.queue.addLast(waiter);
                    scheduleExpiryCheck();
                    return false;
                }
            }
        }
        finally {
            this.lock.unlock();
        }
        if (queueFull) {
            throw rejection(RejectionReason.QUEUE_FULL, 0, "capacity " + current.getQueueCapacity() + ", max wait "
                    + current.getMaxWaitDuration() + ", " + current.getMaxConcurrentCalls() + " calls active");
        }
        permitted(0);
        return true;
    }

    /**
     * Removes a queued waiter that no longer wants a permit (cancelled, its owner shut down).
     * @return {@code true} if it was still waiting and will not be called back
     */
    public boolean withdraw(Waiter waiter) {
        this.lock.lock();
        try {
            return withdrawLocked(waiter);
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Withdraws every queued waiter that matches, in queue order, and returns them. */
    public List<Waiter> withdrawAll(Predicate<? super Waiter> filter) {
        List<Waiter> withdrawn = new ArrayList<>();
        this.lock.lock();
        try {
            for (Waiter waiter : this.queue) {
                if (waiter.state == WAITING && filter.test(waiter)) {
                    withdrawn.add(waiter);
                }
            }
            for (Waiter waiter : withdrawn) {
                withdrawLocked(waiter);
            }
        }
        finally {
            this.lock.unlock();
        }
        return withdrawn;
    }

    private boolean withdrawLocked(Waiter waiter) {
        if (waiter.state != WAITING) {
            return false;
        }
        waiter.state = WITHDRAWN;
        this.state.addAndGet(-ONE_WAITING);
        long live = waiting(this.state.get());
        if (this.queue.size() > 2 * live + 64) {
            this.queue.removeIf((w) -> w.state != WAITING);
        }
        return true;
    }

    // ---------------------------------------------------------------- releasing

    /** Gives a permit back without recording a completed call (the call never ran). */
    public void releasePermission() {
        for (;;) {
            long s = this.state.get();
            if (active(s) <= 0) {
                throw new IllegalStateException("Bulkhead '" + this.name + "': more permits released than acquired");
            }
            if (waiting(s) != 0) {
                break;
            }
            if (this.state.compareAndSet(s, s - 1)) {
                return;
            }
        }
        releaseToWaiter();
    }

    /** Gives a permit back and records a completed call that held it for {@code executionNanos}. */
    public void onComplete(long executionNanos) {
        releasePermission();
        this.completed.increment();
        this.listeners.completed(this, executionNanos);
    }

    private void releaseToWaiter() {
        Waiter next = null;
        this.lock.lock();
        try {
            long s = this.state.get();
            if (active(s) <= this.limit) {
                next = pollNext();
            }
            if (next != null) {
                next.state = GRANTED;
                this.state.addAndGet(-ONE_WAITING);
            }
            else {
                this.state.decrementAndGet();
            }
        }
        finally {
            this.lock.unlock();
        }
        if (next != null) {
            grant(next);
        }
    }

    /** Guarded by lock: the next live waiter, skipping withdrawn ones. */
    private Waiter pollNext() {
        boolean fair = this.config.isFair();
        Waiter next;
        while ((next = fair ? this.queue.pollFirst() : this.queue.pollLast()) != null) {
            if (next.state == WAITING) {
                return next;
            }
        }
        return null;
    }

    private void grant(Waiter waiter) {
        long waited = System.nanoTime() - waiter.enqueuedAt;
        permitted(waited);
        waiter.onPermit(waited);
    }

    // ---------------------------------------------------------------- expiry

    /** Guarded by lock. Waiters expire oldest first: all share one max wait, so the head expires first. */
    private void scheduleExpiryCheck() {
        if (this.expiryCheck != null) {
            return;
        }
        Waiter oldest = this.queue.peekFirst();
        long maxWait = this.config.maxWaitNanos();
        if (oldest == null || maxWait == Long.MAX_VALUE) {
            return;
        }
        long delay = oldest.enqueuedAt + maxWait - System.nanoTime();
        this.expiryCheck = ExpiryScheduler.schedule(this::expireWaiters, delay);
    }

    private void expireWaiters() {
        List<Waiter> expired = null;
        this.lock.lock();
        try {
            this.expiryCheck = null;
            long maxWait = this.config.maxWaitNanos();
            long now = System.nanoTime();
            Waiter oldest;
            while ((oldest = this.queue.peekFirst()) != null) {
                if (oldest.state != WAITING) {
                    this.queue.pollFirst();
                    continue;
                }
                if (now - oldest.enqueuedAt < maxWait) {
                    break;
                }
                this.queue.pollFirst();
                oldest.state = REJECTED;
                this.state.addAndGet(-ONE_WAITING);
                if (expired == null) {
                    expired = new ArrayList<>();
                }
                expired.add(oldest);
            }
            scheduleExpiryCheck();
        }
        finally {
            this.lock.unlock();
        }
        if (expired != null) {
            for (Waiter waiter : expired) {
                long waited = System.nanoTime() - waiter.enqueuedAt;
                waiter.onReject(rejection(RejectionReason.WAIT_TIMED_OUT, waited, "waited " + Duration.ofNanos(waited)
                        .toMillis() + " ms, max wait " + this.config.getMaxWaitDuration()));
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

    // ---------------------------------------------------------------- runtime changes

    /**
     * Changes the limit. Growing hands permits to waiters at once; shrinking never blocks and takes
     * effect as running calls finish. Listeners hear of a larger limit before anyone can use the new
     * permits, so what is sized from the limit (a connection pool) grows first.
     * @throws IllegalArgumentException if {@code newLimit} is below 1
     */
    public void changeLimit(int newLimit) {
        if (newLimit < 1) {
            throw new IllegalArgumentException("Bulkhead '" + this.name
                    + "': maxConcurrentCalls must be at least 1 but was " + newLimit);
        }
        this.limitChange.lock();
        try {
            int oldLimit = this.limit;
            if (newLimit > oldLimit) {
                this.listeners.limitChanged(this, oldLimit, newLimit);
            }
            applyLimit(newLimit);
            if (newLimit < oldLimit) {
                this.listeners.limitChanged(this, oldLimit, newLimit);
            }
        }
        finally {
            this.limitChange.unlock();
        }
    }

    private void applyLimit(int newLimit) {
        List<Waiter> granted = new ArrayList<>();
        this.lock.lock();
        try {
            this.limit = newLimit;
            this.config = BulkheadConfig.from(this.config).maxConcurrentCalls(newLimit).build();
            for (;;) {
                long s = this.state.get();
                if (waiting(s) == 0 || active(s) >= newLimit) {
                    break;
                }
                Waiter next = pollNext();
                if (next == null) {
                    break;
                }
                next.state = GRANTED;
                this.state.addAndGet(1 - ONE_WAITING);
                granted.add(next);
            }
        }
        finally {
            this.lock.unlock();
        }
        for (Waiter waiter : granted) {
            grant(waiter);
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
        }
        finally {
            this.lock.unlock();
        }
    }

    // ---------------------------------------------------------------- state

    public String getName() {
        return this.name;
    }

    /** The current configuration, including runtime changes. */
    public BulkheadConfig getConfig() {
        return this.config;
    }

    /** Current maximum number of concurrent calls. */
    public int getLimit() {
        return this.limit;
    }

    /** Calls or tasks holding a permit now. */
    public int getActiveCount() {
        return active(this.state.get());
    }

    /** Calls or tasks waiting for a permit now. */
    public int getWaitingCount() {
        return waiting(this.state.get());
    }

    /** Permits free now (0 when the limit was lowered below the active count). */
    public int getAvailablePermits() {
        return Math.max(0, this.limit - getActiveCount());
    }

    /** Total permits handed out. */
    public long getPermittedCount() {
        return this.permitted.sum();
    }

    /** Total calls that completed and gave their permit back through {@link #onComplete(long)}. */
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

    // ---------------------------------------------------------------- internals

    private void permitted(long waitNanos) {
        this.permitted.increment();
        this.listeners.permitted(this, waitNanos);
    }

    /** Counts a rejection, tells listeners, and returns the exception to throw or hand over. */
    BulkheadRejectedException rejection(RejectionReason reason, long waitNanos, String detail) {
        this.rejected.get(reason).increment();
        this.listeners.rejected(this, reason, waitNanos);
        return new BulkheadRejectedException(this.name, reason, detail);
    }

    private static int waiting(long state) {
        return (int) (state >>> 32);
    }

    private static int active(long state) {
        return (int) state;
    }

    /**
     * A queued request for a permit that owns no thread. Exactly one callback runs, on the thread that
     * released the permit or on the expiry thread, so it must be quick: start a thread, complete a future.
     */
    public abstract static class Waiter {

        long enqueuedAt;

        /** Guarded by the bulkhead's lock. */
        int state = NOT_QUEUED;

        /** The permit is now held on behalf of this waiter, which must release it eventually. */
        protected abstract void onPermit(long waitNanos);

        /** The waiter will never get a permit; the rejection is already counted. */
        protected abstract void onReject(BulkheadRejectedException rejection);
    }
}
