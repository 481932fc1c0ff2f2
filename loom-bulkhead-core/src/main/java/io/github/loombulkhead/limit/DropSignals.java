package io.github.loombulkhead.limit;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntToDoubleFunction;

/**
 * What the gradient algorithm learns from failed calls, gathered without locks: whether the drops of a round exceed
 * the tolerance (then a decrease is due, with the knee the drop's RTT suggests; the tolerance is {@code dropTolerance}
 * of the round, and three standard deviations more for drops slower than the no-load RTT while the callee shows no
 * queue, or what fails at once whatever the load if that is more), whether the callee refused calls at its capacity,
 * and whether it collapsed ({@link CollapseSignal}).
 * <p>
 * A callee that shows no queue still fails calls at random: a noisy one whose slowest calls pass the timeout, say 3 %
 * of them at any load. A round of n calls then drops about n × 3 %, and a tolerance of n × 5 % is exceeded the more
 * often the smaller the round: every fifth taken off made the next one likelier, down to a limit of 1. The three
 * standard deviations make that rare at any limit; a queue (a slow window, a late group) makes the tolerance plain
 * again, so an overload is not waited out.
 * <p>
 * A drop that came back within a quarter of the no-load RTT was refused at once: the callee rejects what is above its
 * capacity (a {@code 429} or {@code 503} from a server-side limiter, a refused connection) and queues nothing. Such a
 * refusal at the edge (the call started with about as many calls in flight as the most any quiet call sent since the
 * last decrease started with, or more; while none came back, the limit stands in for it), once a call sent since that
 * decrease succeeded, makes a decrease due on its own, to the calls the callee held when it refused, unless the round's
 * refusals are within what fails at once whatever the load ({@link BackgroundDrops}, counted among calls sent at no
 * more than the limit the last refusal took it to) and its drops within the tolerance. Before such a success, the
 * callee refuses far below the limit (its capacity fell, or other clients took it), and the tolerance decides as for
 * any drop.
 */
final class DropSignals {

    private static final long NO_KNEE = Double.doubleToLongBits(Double.MAX_VALUE);

    private static final int NO_REFUSAL = Integer.MAX_VALUE;

    /** How far below the most calls a quiet call started with a refusal still counts as at the edge, in percent. */
    private static final int EDGE_SLACK_PERCENT = 5;

    /** How many standard deviations above the tolerance a round of a quiet callee may drop. */
    private static final double DEVIATIONS = 3;

    private final DropCounter round;

    /** The round's tolerance for slow drops of a callee that shows no queue: three standard deviations more. */
    private final IntToDoubleFunction quietTolerance;

    private final BackgroundDrops background = new BackgroundDrops();

    private final DropCounter refusals = new DropCounter(this.background::tolerated);

    /** The fewest calls in flight besides itself that a refusal at the edge started with since the last decrease. */
    private final AtomicInteger edge = new AtomicInteger(NO_REFUSAL);

    /** The latest refusal that made a decrease due; null when none did since it was taken. */
    private final AtomicReference<Refusal> refusal = new AtomicReference<>();

    /** Whether a call sent since the last decrease succeeded. */
    private volatile boolean servedSince;

    private final int minSamples;

    private final double backoff;

    private final CollapseSignal collapse;

    private final DueDecrease due = new DueDecrease();

    private final AtomicLong dueKnee = new AtomicLong(NO_KNEE);

    DropSignals(AdaptiveLimitConfig config) {
        // The background's failures are among the round's drops: with a share near its cap, small rounds tolerate more
        // of them than dropTolerance does, and every third refusal took a fifth off.
        double tolerance = config.getDropTolerance();
        this.round = new DropCounter((calls) -> Math.max(tolerance * calls, this.background.tolerated(calls)));
        this.quietTolerance = (calls) -> Math.max(
                tolerance * calls + DEVIATIONS * Math.sqrt(tolerance * (1 - tolerance) * calls),
                this.background.tolerated(calls));
        this.minSamples = config.getWindowSamples();
        this.backoff = config.getDropBackoff();
        this.collapse = new CollapseSignal(this.minSamples);
    }

    /**
     * Counts a call that started at {@code startNanos} with {@code inflight} in flight and took {@code rttNanos}:
     * toward a collapse ({@link CollapseSignal}), and toward what fails at once whatever the load ({@link
     * BackgroundDrops}), whether it started before the last decrease or not: a refusal comes back within milliseconds,
     * a success a round trip later, so leaving out the calls sent before the last decrease would leave out most
     * successes and few refusals. Which calls count is the in-flight bound's to say.
     */
    void finished(boolean dropped, long startNanos, long rttNanos, int inflight, long noLoadRtt) {
        this.collapse.finished(dropped, startNanos);
        this.background.finished(dropped && Outcome.isRefusedAtOnce(rttNanos, noLoadRtt), inflight);
    }

    /**
     * Whether a call that started with {@code inflight} in flight was sent at the edge of {@code proven}: above it, or
     * within {@value #EDGE_SLACK_PERCENT} % below it. A server releases a request's permit only after the answer left,
     * so the caller may send its next call while the server still counts the last one, and be refused with one call
     * fewer in flight than the server just took.
     */
    private static boolean isAtEdge(int inflight, int proven) {
        return inflight * 100L >= proven * (100L - EDGE_SLACK_PERCENT);
    }

    boolean isCollapse(int limit) {
        return this.collapse.isCollapse(limit);
    }

    /**
     * Takes a call that started before the last decrease and ended at {@code end}: a collapse (told by calls that
     * started after the last one) makes a decrease due. Returns whether it did.
     */
    boolean collapseDue(long end, int limit) {
        if (this.collapse.isCollapse(limit)) {
            this.due.dueNow(end);
            return true;
        }
        return false;
    }

    /** Counts a successful call of the current round. */
    void succeeded(int roundSize) {
        this.servedSince = true;
        this.round.count(false, roundSize);
        this.refusals.count(false, roundSize);
    }

    /**
     * Counts a dropped call of the current round. Once the drops exceed the tolerance a decrease is due, to no more
     * than in-flight × no-load RTT / the drop's RTT if the call waited longer than the no-load RTT (0: unknown). A call
     * refused at once at the edge of {@code proven} (the most calls a quiet call sent since the last decrease started
     * with, or the limit while none came back) makes one due by itself unless the round's refusals are within the
     * background's and its drops within the tolerance; while {@code starting}, only once the round's drops exceed the
     * tolerance too (the start sends every call above what was proven, so one call that fails whatever the load would
     * end it). {@code quiet}: the callee shows no queue, and a drop that took longer than the no-load RTT (noise past
     * the timeout) may take the round three standard deviations past the tolerance.
     */
    void dropped(long startNanos, long rttNanos, int inflight, long noLoadRtt, int roundSize, int proven,
            boolean starting, boolean quiet) {
        boolean atEdge = Outcome.isRefusedAtOnce(rttNanos, noLoadRtt) && isAtEdge(inflight, proven);
        if (atEdge) {
            // The callee held inflight - 1 of these calls and refused one more: its capacity, with no queue behind.
            this.edge.accumulateAndGet(Math.max(1, inflight - 1), Math::min);
        }
        boolean beyondBackground = this.refusals.count(atEdge, roundSize);
        // Noise passes the timeout: only a drop that took longer than a call without load goes by the quiet slack. A
        // refusal (at once, or back as fast as an answer over a slow network) goes by the plain tolerance.
        boolean noise = quiet && noLoadRtt > 0 && rttNanos > noLoadRtt;
        boolean beyondTolerance = noise ? this.round.count(true, roundSize, this.quietTolerance)
                : this.round.count(true, roundSize);
        // A refusal at the edge that takes the round's drops (timeouts, refusals below the edge) beyond the tolerance
        // tells where the callee refuses, though the refusals alone are within the background: falling just below it
        // is enough, a fifth off is not needed.
        boolean refusalDecides = beyondBackground || (atEdge && beyondTolerance);
        if (refusalDecides && this.servedSince && (!starting || beyondTolerance)) {
            // While starting, the lowest refusal of the overshoot, but no lower than a quiet call proved; afterwards
            // this one: a refusal that fell within the background earlier may have met a callee that a stalled call or
            // another client kept busier for a moment.
            int held = starting ? Math.max(this.edge.get(), proven) : Math.max(1, inflight - 1);
            this.refusal.accumulateAndGet(new Refusal(held, startNanos), Refusal::later);
            this.due.due(startNanos, startNanos + rttNanos);
        }
        if (beyondTolerance) {
            if (noLoadRtt > 0 && rttNanos > noLoadRtt) {
                this.dueKnee.accumulateAndGet(Double.doubleToLongBits((double) inflight * noLoadRtt / rttNanos),
                        DropSignals::lower);
            }
            this.due.due(startNanos, startNanos + rttNanos);
        }
    }

    /** Whether the drops made a decrease due since the last one, made at {@code lastDecreaseNanos}. */
    boolean isDue(long lastDecreaseNanos) {
        return this.due.isPending(lastDecreaseNanos);
    }

    /** When the latest call that made a decrease due ended: the time of that decrease. */
    long dueEnd() {
        return this.due.end();
    }

    /**
     * The calls the callee held when it refused one more, if a refusal sent after the last decrease (made at
     * {@code lastDecreaseNanos}) made the pending decrease due; 0 if not. Taken once: a refusal counted just before a
     * decrease and recorded just after it describes the limit before it, and is left out here.
     */
    int takeRefusedAt(long lastDecreaseNanos) {
        Refusal taken = this.refusal.getAndSet(null);
        return (taken == null || NanoTimes.isBefore(taken.startNanos(), lastDecreaseNanos)) ? 0 : taken.held();
    }

    /**
     * The limit fell to {@code limit} because the callee refused calls at its capacity: calls sent with no more than
     * that many in flight show what fails at once whatever the load.
     */
    void refusedAbove(double limit) {
        this.background.refusedAbove(limit);
    }

    /** The share of calls that fail at once whatever the load, as far as it counts ({@link BackgroundDrops#rate}). */
    double backgroundRefusalShare() {
        return this.background.rate();
    }

    /**
     * Where the pending decrease takes {@code limit}: × {@code dropBackoff}; the first decrease of an overload may fall
     * further, to the lowest knee the drops suggested, never below half; while starting, half. The next decrease's
     * knee starts afresh.
     */
    double takeTarget(double limit, boolean startup, boolean firstOfOverload) {
        double knee = Double.longBitsToDouble(this.dueKnee.getAndSet(NO_KNEE));
        double target = limit * this.backoff;
        if (startup) {
            // Dropping before the first sign of queueing: the start was far above the callee's capacity.
            return limit * 0.5;
        }
        return firstOfOverload ? Math.max(limit * 0.5, Math.min(target, knee)) : target;
    }

    /**
     * Starts counting afresh after a decrease made at {@code decreasedAt}, remembering it if it was for a collapse. A
     * knee the drops suggested is forgotten too: a latency decrease may come first and leave the drops that suggested
     * it before the decrease, so the next drop decrease, maybe much later, must not fall to it.
     */
    void decreased(boolean collapse, long decreasedAt) {
        // Until a refusal says where the callee is clear of overload (refusedAbove), no call counts as background.
        this.background.overloadUnknown();
        startRounds();
        this.servedSince = false;
        this.collapse.decreased(collapse, decreasedAt);
    }

    /**
     * Starts the rounds afresh without a decrease: a refusal made one due that the limit already went below, so what
     * the drops counted so far is taken, and what the background and the collapse count goes on.
     */
    void startRounds() {
        this.dueKnee.set(NO_KNEE);
        this.edge.set(NO_REFUSAL);
        this.round.reset();
        this.refusals.reset();
    }

    private static long lower(long a, long b) {
        return (Double.longBitsToDouble(a) <= Double.longBitsToDouble(b)) ? a : b;
    }

    /** A refusal that made a decrease due: the calls the callee held, and when the refused call started. */
    private record Refusal(int held, long startNanos) {

        /** The one sent later; of two sent at once, the lower. */
        static Refusal later(Refusal current, Refusal found) {
            if (current == null) {
                return found;
            }
            if (current.startNanos == found.startNanos) {
                return (found.held < current.held) ? found : current;
            }
            return NanoTimes.isBefore(current.startNanos, found.startNanos) ? found : current;
        }
    }
}
