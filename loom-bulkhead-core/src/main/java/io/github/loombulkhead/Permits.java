package io.github.loombulkhead;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;
import java.util.function.Predicate;

/**
 * The permits of one bulkhead and the waiters for them: lock-free {@link PermitCounts} while nobody
 * waits; a {@code ReentrantLock} guards the {@link WaitQueue} and every change that involves a waiter.
 *
 * <p>A released permit goes straight to the next waiter (no barging), in a loop: a waiter that
 * cannot use it hands it back and the next one is served. Expiring waiters are timed out by the
 * shared {@link ExpiryScheduler}, which only changes state here; they are told on a virtual thread.
 */
final class Permits extends PermitCounts {

    private static final System.Logger logger = System.getLogger(Bulkhead.class.getName());

    private final Bulkhead owner;

    private final BulkheadStatistics statistics;

    private volatile int limit;

    private final ReentrantLock lock = new ReentrantLock();

    /** Guarded by lock. */
    private final WaitQueue queue = new WaitQueue();

    /** Guarded by lock: the pending expiry check, for the oldest expiring waiter. */
    private ScheduledFuture<?> expiryCheck;

    Permits(Bulkhead owner, BulkheadStatistics statistics, int limit) {
        this.owner = owner;
        this.statistics = statistics;
        this.limit = limit;
    }

    int limit() {
        return this.limit;
    }

    /** Takes and counts a free permit if one is free and nobody waits. */
    boolean tryAcquire() {
        int active = tryAcquireCount(this.limit);
        if (active == 0) {
            return false;
        }
        if (active <= this.limit) {
            this.statistics.permitted(this.owner, 0);
            return true;
        }
        // The limit shrank since it was read: whoever shrank it reads the active count after writing the limit, so
        // one of the two sees the other (a leased limit, ExternalLimit, relies on that). The count this permit made
        // is enough: a permit kept with it within the limit leaves no more active than that limit once the permits
        // taken over it went back.
        release();
        return false;
    }

    /**
     * Takes and counts a free permit ({@code true}), or queues {@code waiter} if the queue and {@code config} allow it.
     * @throws BulkheadRejectedException with reason {@code QUEUE_FULL} when it cannot wait
     */
    boolean acquireOrEnqueue(Waiter waiter, BulkheadConfig config) {
        PermitCounts.Entry entry;
        this.lock.lock();
        try {
            entry = acquireOrWait(this.limit, config.getQueueCapacity(), config.maxWaitNanos() != 0);
            if (entry == PermitCounts.Entry.QUEUED) {
                this.queue.add(waiter, System.nanoTime());
                if (waiter.expires()) {
                    scheduleExpiryCheck();
                }
            }
        }
        finally {
            this.lock.unlock();
        }
        switch (entry) {
            case ACQUIRED -> this.statistics.permitted(this.owner, 0);
            case QUEUED -> {
                return false;
            }
            case REFUSED -> throw this.statistics.countRejection(this.owner, RejectionReason.QUEUE_FULL, 0, "capacity "
                    + config.getQueueCapacity() + ", max wait " + config.getMaxWaitDuration() + ", " + active()
                    + " calls active");
        }
        return true;
    }

    boolean withdraw(Waiter waiter) {
        this.lock.lock();
        try {
            if (!this.queue.withdraw(waiter)) {
                return false;
            }
            waitersLeft(1);
            return true;
        }
        finally {
            this.lock.unlock();
        }
    }

    List<Waiter> withdrawAll(Predicate<? super Waiter> filter) {
        this.lock.lock();
        try {
            List<Waiter> withdrawn = this.queue.withdrawAll(filter);
            waitersLeft(withdrawn.size());
            return withdrawn;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Gives a permit back: frees it, or hands it to the next waiter that can use it. */
    void release() {
        Release release = releaseIfNobodyWaits();
        if (release == Release.SOMEBODY_WAITS) {
            handOff();
        }
        else if (release == Release.NONE_HELD) {
            throw new IllegalStateException("Bulkhead '" + this.owner.getName() + "': more permits released than acquired");
        }
    }

    /** Passes a permit the caller holds on. A loop, not a recursion: a waiter that cannot use it hands it back. */
    private void handOff() {
        for (;;) {
            Waiter next;
            this.lock.lock();
            try {
                next = (active() <= this.limit) ? this.queue.grantNext(this.owner.getConfig().isFair()) : null;
                handedOnOrReleased(next != null);
            }
            finally {
                this.lock.unlock();
            }
            if (next == null || deliver(next)) {
                return;
            }
        }
    }

    /** Sets the limit; a larger one hands the new permits to waiters at once. */
    void setLimit(int newLimit) {
        List<Waiter> granted = new ArrayList<>();
        this.lock.lock();
        try {
            this.limit = newLimit;
            boolean fair = this.owner.getConfig().isFair();
            Waiter next;
            while (active() < newLimit && (next = this.queue.grantNext(fair)) != null) {
                waiterAcquired();
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

    /** Runs {@code change} under the lock, then re-arms expiry and wakes waiters that time themselves out. */
    void changeMaxWait(Runnable change) {
        this.lock.lock();
        try {
            change.run();
            if (this.expiryCheck != null) {
                this.expiryCheck.cancel(false);
                this.expiryCheck = null;
            }
            scheduleExpiryCheck();
            this.queue.forEachLasting(Waiter::maxWaitChanged);
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Guarded by lock. All expiring waiters share one max wait, so the oldest expires first. */
    private void scheduleExpiryCheck() {
        long maxWait = this.owner.getConfig().maxWaitNanos();
        if (this.expiryCheck != null || maxWait == Long.MAX_VALUE) {
            return;
        }
        Long oldest = this.queue.oldestExpiringArrival();
        if (oldest != null) {
            this.expiryCheck = ExpiryScheduler.schedule(this::expireWaiters, oldest + maxWait - System.nanoTime());
        }
    }

    /** Runs on the timer thread: only changes state, then has the expired waiters told on a virtual thread. */
    private void expireWaiters() {
        List<Waiter> expired;
        long maxWait;
        this.lock.lock();
        try {
            this.expiryCheck = null;
            maxWait = this.owner.getConfig().maxWaitNanos();
            expired = (maxWait != Long.MAX_VALUE) ? this.queue.expire(System.nanoTime() - maxWait) : List.of();
            waitersLeft(expired.size());
            scheduleExpiryCheck();
        }
        finally {
            this.lock.unlock();
        }
        if (!expired.isEmpty()) {
            ExpiryScheduler.tell(() -> rejectExpired(expired, maxWait));
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
            logger.log(Level.ERROR, "Bulkhead '" + this.owner.getName() + "': waiter " + waiter + " failed to take its permit", ex);
            used = false;
        }
        if (used) {
            this.statistics.permitted(this.owner, waited);
        }
        return used;
    }

    /** Tells waiters the queue timed out, off the timer thread. */
    private void rejectExpired(List<Waiter> expired, long maxWait) {
        reject(expired, RejectionReason.WAIT_TIMED_OUT,
                (waited) -> "waited " + waited / 1_000_000 + " ms, max wait " + Duration.ofNanos(maxWait));
    }

    /**
     * Counts the rejection of each of {@code rejected} (out of the queue already) in queue order, then tells each one
     * on a virtual thread of its own. A rejection completes a future, and the caller's dependent stages (a fallback)
     * run where it completes: one slow stage must hold up neither the other waiters' news nor the thread rejecting.
     */
    void reject(List<Waiter> rejected, RejectionReason reason, LongFunction<String> detail) {
        for (Waiter waiter : rejected) {
            long waited = System.nanoTime() - waiter.enqueuedAt;
            BulkheadRejectedException rejection = this.statistics.countRejection(this.owner, reason, waited,
                    detail.apply(waited));
            ExpiryScheduler.tell(() -> tellRejected(waiter, rejection));
        }
    }

    private void tellRejected(Waiter waiter, BulkheadRejectedException rejection) {
        try {
            waiter.onReject(rejection);
        }
        catch (Throwable ex) {
            logger.log(Level.ERROR, "Bulkhead '" + this.owner.getName() + "': waiter " + waiter + " failed on rejection", ex);
        }
    }
}
