package io.github.loombulkhead;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;


/**
 * The waiters of one bulkhead, in arrival order. Not thread-safe: every method is called with the
 * bulkhead's lock held.
 *
 * <p>Waiters the queue times out itself ({@linkplain Waiter#expires() expiring} ones) and waiters
 * that never expire here (parked threads time themselves out; foreign tasks are never timed out)
 * sit in two deques, so the oldest expiring waiter is always at the head of its deque. Arrival
 * times are made strictly increasing, so they also keep one arrival order across both: the next
 * permit goes to the oldest waiter when fair, to the newest otherwise. Withdrawn waiters are
 * dropped lazily.
 *
 * <p>A waiter's life: {@code NEW -> WAITING -> GRANTED | REJECTED | WITHDRAWN}; it enters the
 * queue at most once.
 */
final class WaitQueue {

    static final int NEW = 0;

    static final int WAITING = 1;

    static final int GRANTED = 2;

    static final int REJECTED = 3;

    static final int WITHDRAWN = 4;

    private final ArrayDeque<Waiter> expiring = new ArrayDeque<>();

    private final ArrayDeque<Waiter> lasting = new ArrayDeque<>();

    private long lastArrival = Long.MIN_VALUE;

    /** Waiters in state WAITING. */
    private int size;

    void add(Waiter waiter, long now) {
        // Strictly increasing (a few ns ahead at most in a burst), so it orders arrivals too.
        long arrival = (this.lastArrival == Long.MIN_VALUE || now - this.lastArrival > 0) ? now : this.lastArrival + 1;
        this.lastArrival = arrival;
        waiter.enqueuedAt = arrival;
        waiter.status = WAITING;
        (waiter.expires() ? this.expiring : this.lasting).addLast(waiter);
        this.size++;
    }

    int size() {
        return this.size;
    }

    /** Takes the next waiter (oldest if fair, newest otherwise) and marks it granted; null if none. */
    Waiter grantNext(boolean fair) {
        Waiter next = fair ? oldest() : newest();
        if (next != null) {
            // live() left it at that end of its deque.
            ArrayDeque<Waiter> deque = next.expires() ? this.expiring : this.lasting;
            if (fair) {
                deque.pollFirst();
            }
            else {
                deque.pollLast();
            }
            settle(next, GRANTED);
        }
        return next;
    }

    private Waiter oldest() {
        Waiter a = live(this.expiring, true);
        Waiter b = live(this.lasting, true);
        return (a == null) ? b : (b == null || a.enqueuedAt - b.enqueuedAt < 0) ? a : b;
    }

    private Waiter newest() {
        Waiter a = live(this.expiring, false);
        Waiter b = live(this.lasting, false);
        return (a == null) ? b : (b == null || a.enqueuedAt - b.enqueuedAt > 0) ? a : b;
    }

    /** The live waiter at one end of {@code deque}, after dropping settled ones there. */
    private static Waiter live(ArrayDeque<Waiter> deque, boolean head) {
        Waiter waiter;
        while ((waiter = head ? deque.peekFirst() : deque.peekLast()) != null && waiter.status != WAITING) {
            if (head) {
                deque.pollFirst();
            }
            else {
                deque.pollLast();
            }
        }
        return waiter;
    }

    /**
     * Marks the expiring waiters that arrived at or before {@code deadline} rejected and returns
     * them, oldest first.
     */
    List<Waiter> expire(long deadline) {
        List<Waiter> expired = null;
        Waiter oldest;
        while ((oldest = live(this.expiring, true)) != null && oldest.enqueuedAt - deadline <= 0) {
            this.expiring.pollFirst();
            settle(oldest, REJECTED);
            if (expired == null) {
                expired = new ArrayList<>();
            }
            expired.add(oldest);
        }
        return (expired != null) ? expired : List.of();
    }

    /** Arrival time of the oldest expiring waiter, or {@code null} if none waits. */
    Long oldestExpiringArrival() {
        Waiter oldest = live(this.expiring, true);
        return (oldest != null) ? oldest.enqueuedAt : null;
    }

    /** Takes {@code waiter} out if it is still waiting here. */
    boolean withdraw(Waiter waiter) {
        if (waiter.status != WAITING) {
            return false;
        }
        settle(waiter, WITHDRAWN);
        if (this.expiring.size() + this.lasting.size() > 2 * this.size + 64) {
            this.expiring.removeIf((w) -> w.status != WAITING);
            this.lasting.removeIf((w) -> w.status != WAITING);
        }
        return true;
    }

    /** Withdraws every waiting waiter that matches, in arrival order. */
    List<Waiter> withdrawAll(Predicate<? super Waiter> filter) {
        List<Waiter> matching = new ArrayList<>();
        for (ArrayDeque<Waiter> deque : List.of(this.expiring, this.lasting)) {
            for (Waiter waiter : deque) {
                if (waiter.status == WAITING && filter.test(waiter)) {
                    matching.add(waiter);
                }
            }
        }
        matching.sort((a, b) -> Long.signum(a.enqueuedAt - b.enqueuedAt));
        matching.forEach(this::withdraw);
        return matching;
    }

    /** Calls {@code action} for every waiting waiter that does not expire here. */
    void forEachLasting(Consumer<Waiter> action) {
        for (Waiter waiter : this.lasting) {
            if (waiter.status == WAITING) {
                action.accept(waiter);
            }
        }
    }

    private void settle(Waiter waiter, int status) {
        waiter.status = status;
        this.size--;
    }
}
