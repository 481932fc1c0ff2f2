package io.github.loombulkhead.autoconfigure.metrics;

import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.RejectionReason;
import io.github.loombulkhead.limit.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/**
 * The meters of one bulkhead in one {@link MeterRegistry}, registered up front so every series exists from the start.
 * {@code loom.bulkhead.calls} reads the bulkhead's own totals, so it also counts the calls made before the meters were
 * bound (Spring Boot binds them once every singleton exists); the timers, {@code adaptive.drops} and
 * {@code adaptive.paused} record from then.
 */
final class PerBulkheadMeters {

    static final String LIMIT = "loom.bulkhead.limit";

    static final String ACTIVE = "loom.bulkhead.active";

    static final String WAITING = "loom.bulkhead.waiting";

    static final String CALLS = "loom.bulkhead.calls";

    static final String WAIT = "loom.bulkhead.wait";

    static final String EXECUTION = "loom.bulkhead.execution";

    static final String ADAPTIVE_RTT = "loom.bulkhead.adaptive.rtt";

    static final String ADAPTIVE_DROPS = "loom.bulkhead.adaptive.drops";

    static final String ADAPTIVE_PAUSED = "loom.bulkhead.adaptive.paused";

    static final String ADAPTIVE_CEILING = "loom.bulkhead.adaptive.ceiling";

    static final String PERMITTED = "permitted";

    static final String REJECTED = "rejected";

    /** Value of the {@code reason} tag on permitted calls, so every series of a meter has the same tag keys. */
    static final String NO_REASON = "none";

    private static final String CALLS_UNIT = "calls";

    private final Timer permittedWait;

    private final Timer rejectedWait;

    private final Timer execution;

    /** Of an adaptive bulkhead only; null for a static one. */
    private final Timer rtt;

    /** Of an adaptive bulkhead only; null for a static one. */
    private final Counter drops;

    /** Of an adaptive bulkhead only; null for a static one. */
    private final Counter paused;

    PerBulkheadMeters(Bulkhead bulkhead, MeterRegistry registry) {
        Tags name = Tags.of("name", bulkhead.getName());
        gauge(registry, LIMIT, bulkhead, name, "Maximum number of calls or tasks that may hold a permit at once",
                Bulkhead::getLimit);
        gauge(registry, ACTIVE, bulkhead, name, "Calls or tasks holding a permit now", Bulkhead::getActiveCount);
        gauge(registry, WAITING, bulkhead, name, "Calls or tasks waiting for a permit now",
                Bulkhead::getWaitingCount);
        calls(registry, bulkhead, name, PERMITTED, NO_REASON, Bulkhead::getPermittedCount);
        for (RejectionReason reason : RejectionReason.values()) {
            calls(registry, bulkhead, name, REJECTED, reason.tag(), (counted) -> counted.getRejectedCount(reason));
        }
        this.permittedWait = waitTimer(registry, name, PERMITTED);
        this.rejectedWait = waitTimer(registry, name, REJECTED);
        this.execution = Timer.builder(EXECUTION)
            .description("Time a call or task held its permit")
            .tags(name)
            .register(registry);
        if (bulkhead.isAdaptive()) {
            gauge(registry, ADAPTIVE_CEILING, bulkhead, name,
                    "Highest limit the adaptive algorithm may set: max-concurrent-calls",
                    Bulkhead::getCeiling);
            this.rtt = Timer.builder(ADAPTIVE_RTT)
                .description("Round trip time of each finished call the adaptive limit algorithm took as a sample")
                .tags(name)
                .register(registry);
            this.drops = Counter.builder(ADAPTIVE_DROPS)
                .description("Finished calls the adaptive limit algorithm took as overload signals (drops)")
                .tags(name)
                .register(registry);
            this.paused = Counter.builder(ADAPTIVE_PAUSED)
                .description("Successful calls a pause of this process held up (a stop-the-world collection): "
                        + "the adaptive limit algorithm took no RTT sample from them")
                .tags(name)
                .register(registry);
        }
        else {
            this.rtt = null;
            this.drops = null;
            this.paused = null;
        }
    }

    void permitted(long waitNanos) {
        this.permittedWait.record(waitNanos, TimeUnit.NANOSECONDS);
    }

    void rejected(long waitNanos) {
        this.rejectedWait.record(waitNanos, TimeUnit.NANOSECONDS);
    }

    void completed(long executionNanos) {
        this.execution.record(executionNanos, TimeUnit.NANOSECONDS);
    }

    void sampled(long rttNanos, Outcome outcome) {
        if (this.rtt == null) {
            return;
        }
        this.rtt.record(rttNanos, TimeUnit.NANOSECONDS);
        if (outcome == Outcome.DROPPED) {
            this.drops.increment();
        }
    }

    void pausedSample() {
        if (this.paused != null) {
            this.paused.increment();
        }
    }

    private static void gauge(MeterRegistry registry, String meter, Bulkhead bulkhead, Tags tags, String description,
            ToDoubleFunction<Bulkhead> value) {
        Gauge.builder(meter, bulkhead, value)
            .description(description)
            .baseUnit(CALLS_UNIT)
            .tags(tags)
            .strongReference(true)
            .register(registry);
    }

    /** The bulkhead's registry holds it, so the weak reference a function counter keeps lasts as long as needed. */
    private static void calls(MeterRegistry registry, Bulkhead bulkhead, Tags name, String outcome, String reason,
            ToDoubleFunction<Bulkhead> total) {
        FunctionCounter.builder(CALLS, bulkhead, total)
            .description("Calls or tasks admitted (outcome=permitted) or refused (outcome=rejected, with the reason)")
            .baseUnit(CALLS_UNIT)
            .tags(name)
            .tag("outcome", outcome)
            .tag("reason", reason)
            .register(registry);
    }

    private static Timer waitTimer(MeterRegistry registry, Tags name, String outcome) {
        return Timer.builder(WAIT)
            .description("Time spent waiting for a permit, until it was granted (outcome=permitted) or refused")
            .tags(name)
            .tag("outcome", outcome)
            .register(registry);
    }
}
