package io.github.loombulkhead.limit;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * A deterministic closed loop in virtual time for algorithm tests: callers always have work, so as many calls are in
 * flight as the limit allows; a call that starts with {@code i} calls in flight takes
 * {@code service × max(1, i / capacity)} (a callee with {@code capacity} workers and a fair queue), optionally with a
 * seeded jitter, and is dropped at {@code timeout} if it would take longer. Capacity, service time and timeout can
 * change while it runs, and every n-th call, or a seeded random share of the calls, can fail at
 * once. Every call is reported to the algorithm when it starts
 * and when it ends, as the bulkhead reports it. No clock, no threads, no sleeps.
 */
final class ClosedLoop {

    private final LimitAlgorithm algorithm;

    // Ordered by the difference of their ends, as System.nanoTime() values must be, so a run may cross a wrap.
    private final PriorityQueue<long[]> calls = new PriorityQueue<>((a, b) -> Long.signum(a[0] - b[0]));

    private final List<long[]> limits = new ArrayList<>();

    private SplittableRandom random;

    private double jitter;

    private long now;

    private int inflight;

    private int capacity;

    private long serviceNanos;

    private long timeoutNanos = Long.MAX_VALUE;

    private int dropEvery;

    private SplittableRandom failures;

    private boolean rejecting;

    private double dropShare;

    private long started;

    private long successes;

    private long drops;

    ClosedLoop(LimitAlgorithm algorithm, int capacity, long serviceNanos) {
        this.algorithm = algorithm;
        this.capacity = capacity;
        this.serviceNanos = serviceNanos;
    }

    /**
     * Starts the clock at {@code nanos} instead of 0: the algorithm must behave the same from any origin, also one
     * that makes the clock wrap past {@link Long#MAX_VALUE} while it runs.
     */
    ClosedLoop startingAt(long nanos) {
        this.now = nanos;
        return this;
    }

    /** Each RTT is multiplied by {@code exp(jitter × gaussian)}, seeded, so runs repeat exactly. */
    ClosedLoop jitter(double jitter, long seed) {
        this.jitter = jitter;
        this.random = new SplittableRandom(seed);
        return this;
    }

    ClosedLoop capacity(int capacity) {
        this.capacity = capacity;
        return this;
    }

    ClosedLoop serviceNanos(long serviceNanos) {
        this.serviceNanos = serviceNanos;
        return this;
    }

    ClosedLoop timeoutNanos(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
        return this;
    }

    /** Fails every {@code n}-th call at once (a fast error such as a 503), whatever the load; 0 for none. */
    ClosedLoop dropEvery(int n) {
        this.dropEvery = n;
        return this;
    }

    /**
     * A callee that refuses a call starting with more than its capacity in flight at once (in a hundredth of the
     * service time, as a server-side limiter answers {@code 429}) instead of queueing it.
     */
    ClosedLoop rejectingAboveCapacity() {
        this.rejecting = true;
        return this;
    }

    /** Fails {@code share} of the calls at once, drawn at random (seeded), whatever the load. */
    ClosedLoop dropShare(double share, long seed) {
        this.dropShare = share;
        this.failures = new SplittableRandom(seed);
        return this;
    }

    /** Feeds one call, outside the loop, as if it started now and took {@code rttNanos}. */
    ClosedLoop inject(long rttNanos, Outcome outcome) {
        this.algorithm.onSample(this.now, rttNanos, this.inflight + 1, outcome);
        return this;
    }

    /** Runs for {@code rtts} service times of virtual time. */
    ClosedLoop runRtts(int rtts) {
        long end = this.now + rtts * this.serviceNanos;
        fill();
        while (!this.calls.isEmpty() && this.calls.peek()[0] - end <= 0) {
            long[] call = this.calls.poll();
            this.now = call[0];
            this.inflight--;
            boolean dropped = call[3] == 1;
            if (dropped) {
                this.drops++;
            }
            else {
                this.successes++;
            }
            this.algorithm.onSample(call[1], call[0] - call[1], (int) call[2],
                    dropped ? Outcome.DROPPED : Outcome.SUCCESS);
            this.limits.add(new long[] { this.now, this.algorithm.getLimit() });
            fill();
        }
        this.now = end;
        return this;
    }

    private void fill() {
        while (this.inflight < this.algorithm.getLimit()) {
            this.inflight++;
            double rtt = this.serviceNanos * Math.max(1.0, (double) this.inflight / this.capacity);
            if (this.random != null) {
                rtt *= Math.exp(this.jitter * this.random.nextGaussian());
            }
            boolean dropped = rtt > this.timeoutNanos;
            long end = this.now + (dropped ? this.timeoutNanos : Math.max(1, (long) rtt));
            boolean nth = this.dropEvery > 0 && ++this.started % this.dropEvery == 0;
            boolean drawn = this.failures != null && this.failures.nextDouble() < this.dropShare;
            if (nth || drawn || (this.rejecting && this.inflight > this.capacity)) {
                dropped = true;
                end = this.now + this.serviceNanos / 100;
            }
            this.algorithm.onStart(this.now, this.inflight);
            this.calls.add(new long[] { end, this.now, this.inflight, dropped ? 1 : 0 });
        }
    }

    /** Every limit proposed, one per finished call, in order. */
    int[] limits() {
        return this.limits.stream().mapToInt((l) -> (int) l[1]).toArray();
    }

    long now() {
        return this.now;
    }

    int limit() {
        return this.algorithm.getLimit();
    }

    /** One of the algorithm's estimates, as a double. */
    double getEstimate(String name) {
        return this.algorithm.getEstimates().get(name).doubleValue();
    }

    long successes() {
        return this.successes;
    }

    long drops() {
        return this.drops;
    }

    /** The lowest limit proposed after {@code fromNanos}. */
    int minLimitSince(long fromNanos) {
        return this.limits.stream().filter((l) -> l[0] >= fromNanos).mapToInt((l) -> (int) l[1]).min().orElseThrow();
    }

    /** The highest limit proposed after {@code fromNanos}. */
    int maxLimitSince(long fromNanos) {
        return this.limits.stream().filter((l) -> l[0] >= fromNanos).mapToInt((l) -> (int) l[1]).max().orElseThrow();
    }

    /** The mean of the limits proposed after {@code fromNanos}, one per finished call. */
    double meanLimitSince(long fromNanos) {
        return this.limits.stream().filter((l) -> l[0] >= fromNanos).mapToLong((l) -> l[1]).average().orElseThrow();
    }

    /** The mean of the limits proposed from {@code fromNanos} until {@code toNanos}, one per finished call. */
    double meanLimitBetween(long fromNanos, long toNanos) {
        return this.limits.stream().filter((l) -> l[0] >= fromNanos && l[0] < toNanos).mapToLong((l) -> l[1])
            .average().orElseThrow();
    }

    /** When the limit first came to {@code limit} or below after {@code fromNanos}; -1 if it never did. */
    long firstTimeAtOrBelow(long fromNanos, int limit) {
        return this.limits.stream().filter((l) -> l[0] >= fromNanos && l[1] <= limit).mapToLong((l) -> l[0])
            .findFirst().orElse(-1);
    }

    /** When the limit first came to {@code limit} or above after {@code fromNanos}; -1 if it never did. */
    long firstTimeAtOrAbove(long fromNanos, int limit) {
        return this.limits.stream().filter((l) -> l[0] >= fromNanos && l[1] >= limit).mapToLong((l) -> l[0])
            .findFirst().orElse(-1);
    }
}
