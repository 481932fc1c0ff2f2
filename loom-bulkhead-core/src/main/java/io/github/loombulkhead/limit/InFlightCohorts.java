package io.github.loombulkhead.limit;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The calls in flight, grouped by when they started: the gradient's earliest overload signal. A call is a sample only
 * once it completes, one round trip after it started; but a call still in flight well past the no-load RTT already
 * says that the callee queues it. One slow call says little (service times vary), so the signal is a <em>group</em>:
 * at least {@code minCalls} calls that started together, nearly all of them ({@code share}) still in flight after
 * {@code minAge}. Such a group also bounds the callee's capacity before any of its calls completes: a call that
 * started with {@code inflight} calls in flight and has waited {@code age} so far will take at least that long, so
 * Little's law gives at most {@code inflight × noLoadRtt / age} workers (the window's knee with the RTT still
 * growing).
 *
 * <p>Cohorts are 1/{@value #PER_RTT} of the no-load RTT wide (at least {@value #MIN_WIDTH_NANOS} ns), in a ring of
 * {@value #SLOTS}; a call older than that is forgotten. Starts and completions are counted with atomics from any
 * thread; a start is matched to its completion by its start time, which the bulkhead reads again as the time of the
 * completion minus the call's duration. A completion that lands a few microseconds past a cohort's edge counts in the
 * neighbour, or nowhere if that one holds no start: its call then stays in flight in its cohort until the ring forgets
 * it, which matters only if it happens to a large share of a group. Times are compared by their difference to an
 * origin, as {@link System#nanoTime()} requires.
 */
final class InFlightCohorts {

    /** Cohorts per no-load RTT. */
    static final int PER_RTT = 32;

    /** Cohorts kept: four no-load RTTs. */
    static final int SLOTS = 4 * PER_RTT;

    /** The narrowest cohort: a start and its completion read the clock apart, so a cohort must be wider than that. */
    static final long MIN_WIDTH_NANOS = 20_000;

    private final AtomicReferenceArray<Cohort> slots = new AtomicReferenceArray<>(SLOTS);

    /** Where cohort 0 starts and how wide cohorts are; null until the no-load RTT is known. */
    private final AtomicReference<Scale> scale = new AtomicReference<>();

    /** The newest cohort a scan looked from: one scan per cohort is enough. */
    private final AtomicLong scanned = new AtomicLong(Long.MIN_VALUE);

    /**
     * Sizes the cohorts for {@code noLoadRttNanos}, starting afresh at {@code nowNanos} when the width is off by more
     * than half or twice (calls started before are forgotten).
     */
    void scaleTo(long noLoadRttNanos, long nowNanos) {
        long width = Math.max(MIN_WIDTH_NANOS, noLoadRttNanos / PER_RTT);
        Scale current = this.scale.get();
        if (current != null && current.width <= 2 * width && width <= 2 * current.width) {
            return;
        }
        if (this.scale.compareAndSet(current, new Scale(nowNanos, width))) {
            for (int i = 0; i < SLOTS; i++) {
                this.slots.set(i, null);
            }
            this.scanned.set(Long.MIN_VALUE);
        }
    }

    /** A call started at {@code startNanos} with {@code inflight} calls in flight, itself included. */
    void started(long startNanos, int inflight) {
        Cohort cohort = cohort(startNanos, true);
        if (cohort != null) {
            cohort.started.incrementAndGet();
            cohort.startedInflight.addAndGet(inflight);
        }
    }

    /**
     * The call that started at {@code startNanos} with {@code inflight} calls in flight completed; {@code quick}:
     * within the age at which calls count as late.
     */
    void completed(long startNanos, int inflight, boolean quick) {
        Cohort cohort = cohort(startNanos, false);
        if (cohort != null) {
            if (quick) {
                cohort.quick.incrementAndGet();
            }
            cohort.completed.incrementAndGet();
            cohort.completedInflight.addAndGet(inflight);
        }
    }

    /** Whether a scan at {@code nowNanos} is due, claiming it: at most one per cohort width. */
    boolean claimScan(long nowNanos) {
        Scale current = this.scale.get();
        if (current == null) {
            return false;
        }
        long index = current.index(nowNanos);
        long last = this.scanned.get();
        return index > last && this.scanned.compareAndSet(last, index);
    }

    /**
     * The late group that allows the lowest capacity at {@code nowNanos}: walking back from the newest cohort older
     * than {@code minAgeNanos}, cohorts are grouped until a group holds at least {@code minCalls} calls; a group with
     * at least {@code share} of them still in flight is late, and allows {@code mean inflight × noLoadRtt / age} of
     * those calls (age counted from the group's newest start, the least any of them waited).
     * The newest group is on time when most of its calls completed within {@code minAgeNanos} (as
     * {@link #completed} was told).
     * @param startedFrom only calls that started at or after this time count ({@link NanoTimes#NONE}: no such bound)
     * @param startedBefore only calls that started before this time count ({@link NanoTimes#NONE}: no such bound)
     * @return the lowest late group, if any, and whether the newest group was on time
     */
    Scan scan(long nowNanos, long minAgeNanos, int minCalls, double share, long startedFrom, long startedBefore) {
        Scale current = this.scale.get();
        if (current == null) {
            return Scan.NOTHING;
        }
        long newest = current.index(nowNanos - minAgeNanos) - 1;
        if (startedBefore != NanoTimes.NONE) {
            newest = Math.min(newest, current.index(startedBefore) - 1);
        }
        long oldest = Math.max(0, newest - SLOTS + 1);
        if (startedFrom != NanoTimes.NONE) {
            // The first cohort wholly after it.
            oldest = Math.max(oldest, current.index(startedFrom - 1) + 1);
        }
        LateGroup lowest = null;
        boolean onTime = false;
        boolean newestGroup = true;
        long groupEnd = newest + 1;
        int started = 0;
        int inFlight = 0;
        long inflightSum = 0;
        int quick = 0;
        for (long index = newest; index >= oldest; index--) {
            Cohort cohort = this.slots.get(slot(index));
            if (cohort != null && cohort.index == index) {
                int cohortStarted = cohort.started.get();
                if (started == 0 && cohortStarted > 0) {
                    // The group's newest call started in this cohort: its age counts from the cohort's end.
                    groupEnd = index + 1;
                }
                started += cohortStarted;
                inFlight += cohortStarted - cohort.completed.get();
                quick += cohort.quick.get();
                inflightSum += cohort.startedInflight.get() - cohort.completedInflight.get();
            }
            if (started >= minCalls) {
                if (inFlight > 0 && inFlight >= share * started && inflightSum > 0) {
                    LateGroup group = new LateGroup((double) inflightSum / inFlight,
                            nowNanos - current.startOf(groupEnd));
                    if (lowest == null || group.capacity(1) < lowest.capacity(1)) {
                        lowest = group;
                    }
                }
                else if (newestGroup && 2 * quick >= started
                        && nowNanos - current.startOf(index) <= 2 * minAgeNanos) {
                    // The newest group, none of its calls older than twice that age, most of them back within that
                    // age: they came back in time. Back by now is not enough: a callee 1.3 to 2 x slower brings them
                    // back within twice that age, late every one. An older group that is not late says nothing.
                    onTime = true;
                }
                newestGroup = false;
                started = 0;
                inFlight = 0;
                inflightSum = 0;
                quick = 0;
            }
        }
        return new Scan(lowest, onTime);
    }

    /**
     * What a scan found: the late group that allows the lowest capacity ({@code null} if none) and whether the newest
     * group had most of its calls back in time.
     */
    record Scan(LateGroup lowest, boolean onTime) {

        static final Scan NOTHING = new Scan(null, false);
    }

    /**
     * Calls still in flight that started together with {@code meanInflight} calls in flight on average, at least
     * {@code ageNanos} ago.
     */
    record LateGroup(double meanInflight, long ageNanos) {

        /** The most workers a callee can have that still makes these calls wait this long (Little's law). */
        double capacity(long noLoadRttNanos) {
            return this.meanInflight * noLoadRttNanos / this.ageNanos;
        }
    }

    private Cohort cohort(long startNanos, boolean create) {
        Scale current = this.scale.get();
        if (current == null) {
            return null;
        }
        long index = current.index(startNanos);
        if (index < 0) {
            // Started before the cohorts were (re)sized.
            return null;
        }
        int slot = slot(index);
        while (true) {
            Cohort cohort = this.slots.get(slot);
            if (cohort != null && cohort.index == index) {
                return cohort;
            }
            if (!create || (cohort != null && cohort.index > index)) {
                // Forgotten already (older than the ring), or never counted.
                return null;
            }
            Cohort fresh = new Cohort(index);
            if (this.slots.compareAndSet(slot, cohort, fresh)) {
                return fresh;
            }
        }
    }

    private static int slot(long index) {
        return (int) (index % SLOTS);
    }

    /** Cohort {@code n} holds the calls started in {@code [origin + n × width, origin + (n + 1) × width)}. */
    private record Scale(long origin, long width) {

        long index(long nanos) {
            return Math.floorDiv(nanos - this.origin, this.width);
        }

        long startOf(long index) {
            return this.origin + index * this.width;
        }
    }

    private static final class Cohort {

        final long index;

        final AtomicInteger started = new AtomicInteger();

        final AtomicInteger completed = new AtomicInteger();

        /** Completions within the late age: calls that came back in time. */
        final AtomicInteger quick = new AtomicInteger();

        /** Sum of the in-flight counts the started calls saw when they started. */
        final AtomicLong startedInflight = new AtomicLong();

        final AtomicLong completedInflight = new AtomicLong();

        Cohort(long index) {
            this.index = index;
        }
    }
}
