package io.github.loombulkhead.limit;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Latency gradient ({@code gradient}): compares the mean RTT of each window of calls with the no-load RTT and, when
 * the callee queues, falls to the limit Little's law gives for no queue. See {@code docs/adaptive-limits.md}.
 *
 * <ul>
 * <li><b>Window</b>: at least {@code windowSamples} calls finishing over at least one no-load RTT; each RTT counts
 * with at most four no-load RTTs. Calls that started before the last decrease describe the old limit and are left out.
 * <li><b>No-load RTT</b>: while starting, the lowest window mean; afterwards the median of the last five drain windows
 * (the second window after each latency decrease, measured while the callee's queue is empty), so neither a lucky fast
 * call nor a long overload moves it; a window mean below 0.8 of it (a faster callee) replaces it at once; two drain
 * windows in a row as slow as the overload with far fewer calls in flight (a slower callee) replace it too, with their
 * calls' RTTs uncapped; after the first of them the limit holds until the second one tells.
 * <li><b>Queueing</b> (window mean above {@code rttTolerance} × no-load RTT): knee = mean in-flight × no-load RTT /
 * window RTT; the limit falls to 97 % of the knee (99 % when the previous overload's knee was within 5 % of it: the
 * capacity holds and its knee is known well) and holds there until the drain window was measured.
 * <li><b>Late calls</b>: calls are grouped by when they started ({@link InFlightCohorts}); when a group of at least
 * {@code windowSamples} calls is {@value #LATE_SHARE_PERCENT} % still in flight {@code rttTolerance} × the no-load RTT
 * after it started (while starting, halfway between the no-load RTT and that), the callee queues them. Growth stops, and the knee is at most the group's mean in-flight ×
 * no-load RTT / its age so far: the limit falls to 97 % (or 99 %, as above; calls sent before the decrease that lower
 * it further keep its margin) of that at once, a round trip before the group's calls
 * complete and a window could show the queue. Calls sent after that decrease take a quarter off at most until some of
 * them come back in time (a slower callee makes them all late), and are not what the drain windows compare with;
 * calls sent before keep lowering it as they age.
 * <li><b>Drops</b> beyond {@code dropTolerance} of a round (one limit's worth of calls; three standard deviations more
 * for drops slower than the no-load RTT while the callee shows no queue), or beyond what fails at once whatever the
 * load if that is more: the limit × {@code dropBackoff}; the first drop decrease of an overload may fall further, to
 * in-flight × no-load RTT / drop RTT, never below half; while starting, half.
 * <li><b>Refused at once</b> (a drop back within a quarter of the no-load RTT), sent with at least 95 % as many calls
 * in flight as the most any quiet call sent since the last decrease started with (while none came back: the limit),
 * after a call sent since then succeeded: the callee held in-flight − 1 and refused one more, its capacity with no
 * queue behind; the knee is that, and the limit falls below it as after a window's decrease. No tolerance, except for
 * what fails at once whatever the load ({@link DropSignals}); a refusal at the edge that takes the round's drops beyond
 * their tolerance decides so too. While starting, the drops must exceed the tolerance too, and the lowest refusal sets
 * the knee.
 * <li><b>Collapse</b>: when at least half a limit's worth of calls finished since the last decrease and more than three
 * of them failed per success, the callee's queue holds calls whose callers gave up and every new call waits behind
 * them: the limit falls to a quarter at once. Calls that started before the last decrease count here, but not those
 * that started before the last collapse.
 * <li><b>Growth</b>, paced per call that started with at least half the limit in use and did not queue: doubling per
 * RTT while starting; 50 % per RTT back up to the knee; {@code increaseRatio} per RTT above it; once past the limit of
 * the last overload (or 1.3 × the knee, if lower) without queueing, a probe doubling its step per quiet window while
 * below 50 % per RTT, then {@code increaseRatio} again; see {@link Growth}.
 * </ul>
 * A success that a pause of the caller's own process held up ({@link #onPausedSample}) enters no window and adds no
 * growth; it only raises the growth cap, if the least it can have taken shows no queue.
 * Estimates: {@code noLoadRttNanos}, {@code rttNanos} (the latest window mean), {@code knee} (0 before the first
 * overload), {@code backgroundRefusalShare}. Needs {@link #onStart} for every call to see late calls; without it the
 * windows alone decide.
 */
final class GradientLimit implements LimitAlgorithm {

    // STARTING -> (first queueing or drop) -> STEADY; in STEADY a latency decrease holds growth for two windows.

    /** How far below the knee of a new overload the limit falls after a latency decrease. */
    private static final double DRAIN_MARGIN = 0.03;

    /**
     * How far below the knee the limit falls when the previous overload's knee was nearly the same (within
     * {@value #SAME_KNEE_PERCENT} %): the callee's capacity holds, its knee is known well, and the drain windows need
     * less room below it.
     */
    private static final double SETTLED_DRAIN_MARGIN = 0.01;

    private static final int SAME_KNEE_PERCENT = 5;

    private static final double SAME_KNEE = SAME_KNEE_PERCENT / 100.0;

    /** How much of a group of calls must still be in flight for the group to count as late, in percent. */
    static final int LATE_SHARE_PERCENT = 85;

    private static final double LATE_SHARE = LATE_SHARE_PERCENT / 100.0;

    /** While not armed, late calls sent since the last decrease take a quarter off at most. */
    private static final double LATE_FLOOR = 0.75;

    /** How far past the knee the limit may grow without queueing before the knee counts as outgrown. */
    private static final double OUTGROWN_KNEE = 1.3;

    private final AdaptiveLimitConfig config;

    private final double tolerance;

    private final double quietRatio;

    private final ReentrantLock lock = new ReentrantLock();

    private final Growth growth;

    private final DropSignals drops;

    private final NoLoadRtt noLoadRtt;

    private final InFlightCohorts cohorts = new InFlightCohorts();

    /** A decrease the latest late group asks for, not applied yet; null when none is due. */
    private final AtomicReference<LateBound> lateBound = new AtomicReference<>();

    /**
     * The knee of the latest overload a latency decrease began, lowered as the calls sent before it tell more; 0 before
     * the first, and after a slower callee made it obsolete.
     */
    private volatile double overloadKnee;

    /** How far below its knee the latest overload's latency decreases take the limit. */
    private volatile double overloadMargin = DRAIN_MARGIN;

    /** Whether the latest scan found a late group: growth waits. */
    private volatile boolean late;

    /**
     * Whether a late group of calls sent since the last decrease starts a new decrease. Not until a group of them
     * came back in time (most of it within the late age) or a window showed no queue: a callee that turned slower
     * makes every call late, also those sent at the lower limit, and the drain windows tell that apart from a queue.
     * Until then such a group lowers the limit by a quarter at most ({@link #lateFloor}) and the drain windows go on;
     * calls sent before the decrease keep aging meanwhile and lower it as far as their age tells.
     */
    private volatile boolean lateArmed = true;

    /** While not armed: the lowest a late group of calls sent since the last decrease may take the limit. */
    private volatile double lateFloor;

    private volatile SampleWindow window;

    private volatile long lastDecreaseNanos = NanoTimes.NONE;

    private volatile int published;

    private volatile long windowRtt;

    private volatile boolean startup = true;

    // Guarded by lock.
    private double limit;

    private double knee = Double.MAX_VALUE;

    private double peak = Double.MAX_VALUE;

    private int overloadWindows;

    private boolean droppedInOverload;

    private int drainCountdown;

    GradientLimit(AdaptiveLimitConfig config) {
        this.config = config;
        this.tolerance = config.getRttTolerance();
        this.quietRatio = 1 + (this.tolerance - 1) / 2;
        this.limit = config.getInitialLimit();
        this.published = config.getInitialLimit();
        this.drops = new DropSignals(config);
        this.noLoadRtt = new NoLoadRtt(this.tolerance);
        this.growth = new Growth(config);
        this.window = SampleWindow.after(this.noLoadRtt.get());
    }

    @Override
    public String getName() {
        return AdaptiveLimitConfig.Algorithm.GRADIENT.getName();
    }

    @Override
    public int getLimit() {
        return this.published;
    }

    @Override
    public void onStart(long startNanos, int inflight) {
        this.cohorts.started(startNanos, inflight);
    }

    @Override
    public int onSample(long startNanos, long rttNanos, int inflight, Outcome outcome) {
        long noLoad = this.noLoadRtt.get();
        this.cohorts.completed(startNanos, inflight, noLoad > 0 && rttNanos <= lateAge(noLoad));
        if (outcome == Outcome.IGNORED) {
            return this.published;
        }
        scanLateCalls(startNanos + rttNanos);
        return take(startNanos, rttNanos, inflight, outcome, true);
    }

    /**
     * A success that the caller's own pause held up: it counts toward the drops' rounds and, if the least it can have
     * taken shows no queue, toward the growth cap (the callee served that many calls at once). It adds no growth: the
     * calls a pause held up all come back at once as it ends. Its RTT is too uncertain for a window, and the time it
     * ended too late to age the calls still in flight.
     */
    @Override
    public int onPausedSample(long startNanos, long rttNanos, long pausedNanos, int inflight) {
        this.cohorts.completed(startNanos, inflight, false);
        return take(startNanos, Math.max(1, rttNanos - pausedNanos), inflight, Outcome.SUCCESS, false);
    }

    /**
     * Whether the callee shows no queue: the latest window's mean RTT is within the tolerance of the no-load RTT and no
     * group of calls in flight is late. Its slow drops then are calls its noise took past the timeout, at any load: a
     * round may have three standard deviations more of them before the limit falls ({@link DropSignals}).
     */
    private boolean isQuiet(long noLoad) {
        long windowRtt = this.windowRtt;
        return noLoad > 0 && windowRtt > 0 && windowRtt <= noLoad * this.tolerance && !this.late;
    }

    /** Takes a call that was not ignored; {@code timed}: its RTT is measured well enough for a window. */
    private int take(long startNanos, long rttNanos, int inflight, Outcome outcome, boolean timed) {
        this.drops.finished(outcome == Outcome.DROPPED, startNanos, rttNanos, inflight, this.noLoadRtt.get());
        if (NanoTimes.isBefore(startNanos, this.lastDecreaseNanos)) {
            if (this.drops.collapseDue(startNanos + rttNanos, this.published)) {
                // Calls sent before the decrease fail far more often than they succeed: the callee collapsed.
                drain();
            }
            return this.published;
        }
        long rtt = Math.max(1, rttNanos);
        long noLoad = this.noLoadRtt.get();
        int current = this.published;
        int round = Math.max(this.config.getWindowSamples(), current);
        if (outcome == Outcome.DROPPED) {
            if (noLoad > 0 && rtt > noLoad) {
                // A call that failed after waiting longer than the no-load RTT queued too.
                this.window.add(startNanos, rtt, inflight);
            }
            // The edge: what quiet calls sent since the last decrease proved, or the limit while none came back (calls
            // sent right after a decrease may meet what was queued before it, and prove nothing about the edge).
            int proven = this.growth.proven();
            this.drops.dropped(startNanos, rtt, inflight, noLoad, round, (proven > 0) ? proven : current,
                    this.startup, isQuiet(noLoad));
        }
        else {
            this.drops.succeeded(round);
            if (timed) {
                this.window.add(startNanos, rtt, inflight);
            }
            if (noLoad == 0 || rtt <= noLoad * this.quietRatio) {
                this.growth.quiet(inflight);
            }
            double perCall = this.growth.perCall();
            double slow = this.startup ? this.quietRatio : this.tolerance;
            if (timed && perCall > 0 && inflight * 2 >= current && (noLoad == 0 || rtt <= noLoad * slow)) {
                this.growth.add(perCall);
            }
        }
        drain();
        return this.published;
    }

    @Override
    public Map<String, Number> getEstimates() {
        double knee = this.knee;
        return Map.of("noLoadRttNanos", this.noLoadRtt.get(), "rttNanos", this.windowRtt, "knee",
                (knee == Double.MAX_VALUE) ? 0 : (int) knee, "backgroundRefusalShare",
                this.drops.backgroundRefusalShare());
    }

    /**
     * Looks for a late group of calls at {@code now}, at most once per cohort: growth waits while there is one, and a
     * bound below the limit is handed to the lock holder.
     */
    private void scanLateCalls(long now) {
        long noLoad = this.noLoadRtt.get();
        if (noLoad == 0) {
            return;
        }
        this.cohorts.scaleTo(noLoad, now);
        if (!this.cohorts.claimScan(now)) {
            return;
        }
        long minAge = lateAge(noLoad);
        int minCalls = this.config.getWindowSamples();
        long decreased = this.lastDecreaseNanos;
        InFlightCohorts.Scan sentSince = this.cohorts.scan(now, minAge, minCalls, LATE_SHARE, decreased,
                NanoTimes.NONE);
        if (sentSince.onTime() && this.lastDecreaseNanos == decreased) {
            // Calls sent at the lower limit came back in time: no queue, and no slower callee. (Unless the limit fell
            // again meanwhile: the calls sent after that decrease have to show it.)
            this.lateArmed = true;
        }
        InFlightCohorts.LateGroup fresh = sentSince.lowest();
        InFlightCohorts.LateGroup stale = (decreased != NanoTimes.NONE)
                ? this.cohorts.scan(now, minAge, minCalls, LATE_SHARE, NanoTimes.NONE, decreased).lowest() : null;
        this.late = fresh != null || stale != null;
        boolean armed = this.lateArmed;
        LateBound sent = (fresh != null) ? new LateBound(fresh, noLoad, armed ? 0 : this.lateFloor, now, armed) : null;
        LateBound before = (stale != null) ? new LateBound(stale, noLoad, 0, now, false) : null;
        LateBound found = LateBound.lower(sent, before);
        if (found != null && target(found) < this.published) {
            this.lateBound.accumulateAndGet(found, LateBound::lower);
            drain();
        }
    }

    /**
     * The age at which a call still in flight counts as late. While starting, as soon as it would stop the growth:
     * the start is where overshoot costs most.
     */
    private long lateAge(long noLoad) {
        return (long) ((this.startup ? this.quietRatio : this.tolerance) * noLoad);
    }

    /** Lets one thread at a time turn what the samples left behind into a new limit; the others go on. */
    private void drain() {
        while (hasWork() && this.lock.tryLock()) {
            try {
                work();
            }
            finally {
                this.lock.unlock();
            }
        }
    }

    private boolean isComplete(SampleWindow candidate) {
        return candidate.totals().isComplete(this.config.getWindowSamples(), this.noLoadRtt.get());
    }

    private boolean hasWork() {
        return this.lateBound.get() != null || this.drops.isDue(this.lastDecreaseNanos) || this.growth.isPending()
                || isComplete(this.window);
    }

    /** Guarded by lock. */
    private void work() {
        if (this.drops.isDue(this.lastDecreaseNanos)) {
            long dropEnd = this.drops.dueEnd();
            int refusedAt = this.drops.takeRefusedAt(this.lastDecreaseNanos);
            if (refusedAt > 0 && !this.drops.isCollapse(this.published)) {
                int held = Math.max(this.config.getMinLimit(), refusedAt);
                if (Math.max(this.config.getMinLimit(), held * (1 - marginFor(held))) >= this.limit) {
                    // Late calls took the limit below it meanwhile, or it is at the minimum: the refusal asks for
                    // nothing more. Only the rounds start afresh.
                    this.lastDecreaseNanos = NanoTimes.later(this.lastDecreaseNanos, dropEnd);
                    this.drops.startRounds();
                    return;
                }
                // The callee refused a call at once while it held refusedAt of them: that is its capacity, and it
                // queues nothing, so there is no queue to drain and no factor to guess.
                this.knee = held;
                decrease(beginOverload(this.knee), dropEnd, false);
                this.drops.refusedAbove(this.limit);
                this.droppedInOverload = true;
                return;
            }
            double target = this.drops.takeTarget(this.limit, this.startup, !this.droppedInOverload);
            this.knee = Math.min(this.knee, Math.max(this.config.getMinLimit(), Math.min(this.limit, target)));
            boolean collapse = this.drops.isCollapse(this.published);
            if (collapse) {
                // More calls failed than succeeded: the callee's queue holds calls whose callers gave up, and every
                // new call waits behind them. Send few until it drained, then return to the knee.
                target = Math.min(target, this.limit * CollapseSignal.BACKOFF);
            }
            decrease(target, dropEnd, collapse);
            this.droppedInOverload = true;
            return;
        }
        LateBound due = this.lateBound.getAndSet(null);
        if (due != null) {
            // Calls still in flight long past the no-load RTT: the knee is at most what their age allows.
            this.knee = Math.min(this.knee, Math.max(this.config.getMinLimit(), due.knee()));
            double target = target(due);
            if (due.showsOverload()) {
                // As after a window that showed the queue: the drain windows then tell a queue from a slower callee.
                this.noLoadRtt.congested(due.group().ageNanos(), due.group().meanInflight());
                if (!due.startsDecrease()) {
                    // Calls sent before the last decrease: the same overload, its knee seen better.
                    this.overloadKnee = Math.min(this.overloadKnee, due.knee());
                }
            }
            if (target >= this.limit) {
                // Found before a decrease that went further was applied: nothing left to do but the knee.
                return;
            }
            if (due.startsDecrease()) {
                decrease(beginOverload(due.knee()), due.at(), false);
                this.drainCountdown = 2;
                this.growth.hold();
            }
            else {
                // Calls sent before the last decrease, the same overload seen better as they age; or calls sent since,
                // before any came back in time: at most down to the floor, and the drain windows go on.
                this.limit = Math.max(this.config.getMinLimit(), target);
                this.growth.restart(this.limit, returnTarget());
                this.growth.hold();
                publish();
            }
            return;
        }
        double added = this.growth.take();
        if (added > 0 && this.late) {
            // A late group says the callee queues already: what the calls before it earned is not applied.
            added = 0;
        }
        if (added > 0) {
            this.limit = this.growth.grow(this.limit, added, returnTarget());
            publish();
        }
        SampleWindow closed = this.window;
        if (isComplete(closed)) {
            this.window = SampleWindow.after(this.noLoadRtt.get());
            evaluate(closed.totals());
        }
    }

    /** Guarded by lock. */
    private void evaluate(SampleWindow.Totals closed) {
        long mean = closed.meanRtt();
        // The first window after a latency decrease mixes calls that met the old queue: it decides nothing.
        boolean settling = this.drainCountdown == 2;
        boolean drainWindow = this.drainCountdown == 1;
        if (this.noLoadRtt.update(mean, closed.meanUncappedRtt(), closed.meanInflight(), this.startup, drainWindow)) {
            // A slower callee, not a queue: the limit may return to where the overload began. The window already
            // open caps its calls at four old no-load RTTs; more than four times slower, its capped mean would read
            // as a faster callee and bring the old estimate back.
            this.knee = this.peak;
            this.overloadKnee = 0;
            this.window = SampleWindow.after(this.noLoadRtt.get());
        }
        this.drainCountdown = Math.max(0, this.drainCountdown - 1);
        long noLoad = this.noLoadRtt.get();
        this.windowRtt = mean;
        if (settling) {
            return;
        }
        double ratio = (double) mean / noLoad;
        if (ratio > this.tolerance && drainWindow && this.noLoadRtt.awaitsSecondFlatDrain()) {
            // The drain window stayed as slow as the overload with far fewer calls in flight: a slower callee, unless
            // the next drain window says otherwise. Cutting now would take the slowdown for a queue once more and cut
            // by it again (3 x slower: 194 -> 65 -> 16 before the second drain window told). Hold the limit until then.
            this.drainCountdown = 1;
            this.growth.hold();
            return;
        }
        if (ratio > this.tolerance) {
            this.noLoadRtt.congested(mean, closed.meanInflight());
            this.knee = closed.meanInflight() * noLoad / mean;
            decrease(beginOverload(this.knee), closed.latestEnd(), false);
            this.drainCountdown = 2;
            this.growth.hold();
            return;
        }
        this.overloadWindows = 0;
        this.droppedInOverload = false;
        this.lateArmed = true;
        if (this.startup && ratio > this.quietRatio) {
            this.startup = false;
            this.peak = this.limit;
        }
        this.growth.windowQuiet(this.startup, this.limit, returnTarget(),
                this.limit >= probeFrom() && ratio <= this.quietRatio);
    }

    /**
     * How far below its knee a new overload takes the limit: {@link #SETTLED_DRAIN_MARGIN} when the previous overload's
     * knee was within {@link #SAME_KNEE} of it (the capacity holds and its knee is known well), otherwise
     * {@link #DRAIN_MARGIN}: a knee that moved (the first overload, a capacity that changed) gets the wider margin.
     */
    private double marginFor(double knee) {
        double previous = this.overloadKnee;
        boolean same = previous > 0 && Math.abs(knee / previous - 1) <= SAME_KNEE;
        return same ? SETTLED_DRAIN_MARGIN : DRAIN_MARGIN;
    }

    /**
     * Where a late group's bound takes the limit: below its knee by the margin of a new overload if it starts one, by
     * its overload's margin if it tells more about the current one.
     */
    private double target(LateBound bound) {
        double margin = bound.startsDecrease() ? marginFor(bound.knee()) : this.overloadMargin;
        return bound.knee() * (1 - margin);
    }

    /** Guarded by lock. A latency decrease begins an overload at {@code knee}: returns where the limit falls to. */
    private double beginOverload(double knee) {
        this.overloadMargin = marginFor(knee);
        this.overloadKnee = knee;
        return knee * (1 - this.overloadMargin);
    }

    /**
     * Guarded by lock. Where probing speeds up: past the limit the last overload began at, or 30 % past the knee if
     * that comes first. An overload that began far above the knee (the capacity fell while the limit was still
     * climbing, and the callee collapsed) says nothing about a callee that then takes 1.3 × the knee without a queue.
     */
    private double probeFrom() {
        return (this.knee == Double.MAX_VALUE) ? this.peak : Math.min(this.peak, this.knee * OUTGROWN_KNEE);
    }

    /** Guarded by lock. Where growth slows down: the knee, or half the limit the last overload began at. */
    private double returnTarget() {
        return (this.peak == Double.MAX_VALUE) ? this.knee : Math.max(this.knee, this.peak / 2);
    }

    /** Guarded by lock. */
    private void decrease(double target, long now, boolean collapse) {
        if (this.overloadWindows++ == 0) {
            this.peak = this.limit;
        }
        this.limit = Math.max(this.config.getMinLimit(), Math.min(this.limit, target));
        // Never back in time: a late group found before a decrease applied meanwhile may be applied after it.
        this.lastDecreaseNanos = NanoTimes.later(this.lastDecreaseNanos, now);
        if (this.lateArmed) {
            // Until calls come back in time again, late ones sent from now on may take a quarter off at most.
            this.lateFloor = this.limit * LATE_FLOOR;
        }
        this.lateArmed = false;
        this.startup = false;
        this.growth.restart(this.limit, returnTarget());
        this.drops.decreased(collapse, this.lastDecreaseNanos);
        publish();
        this.window = SampleWindow.after(this.noLoadRtt.get());
    }

    /**
     * A late group's bound on the knee (never below {@code floor}), found at {@code at}; {@code startsDecrease} if it
     * counts as a new overload: its calls were sent after the last decrease and calls came back in time since. Of
     * two, the lower one counts.
     */
    private record LateBound(InFlightCohorts.LateGroup group, long noLoadRttNanos, double floor, long at,
            boolean startsDecrease) {

        double knee() {
            return Math.max(this.floor, this.group.capacity(this.noLoadRttNanos));
        }

        /**
         * Whether the drain windows are to be compared with this group: a new overload, or calls sent before the last
         * decrease. Not calls sent since it before any came back in time (the floor applies to them): the limit they
         * were sent at is barely above the one the drain window is measured at (it fell by a quarter at most), so
         * whether that window has far fewer calls in flight than they had would depend on rounding; where it does not,
         * a callee that turned slower is taken for a queue once more and the limit cut by the slowdown again.
         */
        boolean showsOverload() {
            return this.startsDecrease || this.floor == 0;
        }

        /** The lower of two (either may be null); a new overload if either one is. */
        static LateBound lower(LateBound current, LateBound found) {
            if (current == null || found == null) {
                return (current == null) ? found : current;
            }
            LateBound lower = (found.knee() < current.knee()) ? found : current;
            boolean starts = current.startsDecrease || found.startsDecrease;
            return (lower.startsDecrease == starts) ? lower
                    : new LateBound(lower.group, lower.noLoadRttNanos, lower.floor, lower.at, starts);
        }
    }

    private void publish() {
        this.published = (int) Math.max(this.config.getMinLimit(), Math.min(this.config.getMaxLimit(), this.limit));
    }

    @Override
    public String toString() {
        return "GradientLimit[limit=" + this.published + ", noLoadRtt=" + this.noLoadRtt.get() + "ns]";
    }
}
