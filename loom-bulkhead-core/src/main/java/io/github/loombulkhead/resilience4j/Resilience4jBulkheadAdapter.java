package io.github.loombulkhead.resilience4j;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.locks.ReentrantLock;

import io.github.loombulkhead.BulkheadListener;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import io.github.loombulkhead.limit.Outcome;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadFullException;
import io.github.resilience4j.bulkhead.event.BulkheadEvent;
import io.github.resilience4j.bulkhead.event.BulkheadOnCallFinishedEvent;
import io.github.resilience4j.bulkhead.event.BulkheadOnCallPermittedEvent;
import io.github.resilience4j.bulkhead.event.BulkheadOnCallRejectedEvent;
import io.github.resilience4j.core.EventConsumer;
import io.github.resilience4j.core.EventProcessor;

/**
 * A resilience4j {@link Bulkhead} backed by a loom-bulkhead {@link io.github.loombulkhead.Bulkhead}, so
 * {@code Decorators.ofSupplier(..).withBulkhead(..)}, {@code executeCompletionStage} and resilience4j
 * event consumers share one limit and one queue with loom's executors, annotations and HTTP clients.
 *
 * <p>Rejections surface as resilience4j's {@link BulkheadFullException}, as resilience4j callers expect;
 * an interrupted wait restores the interrupt flag and throws the loom {@link BulkheadRejectedException}.
 * {@link #changeConfig} applies the limit and the max wait and never blocks; the fairness flag of the
 * given config is ignored (it is fixed when the loom bulkhead is created).
 *
 * <p>All adapters of one loom bulkhead share one event publisher, fed by one listener on that bulkhead however
 * many adapters are made, so {@code of} may be called per use.
 *
 * <p>A call made through the adapter does not take part in {@link io.github.loombulkhead.CallChain}: resilience4j's
 * API may give a permit back on another thread than the one that took it, so the thread is not marked as holding
 * it, and a {@code @Bulkhead} method or client of the same bulkhead called inside needs a second permit.
 */
public final class Resilience4jBulkheadAdapter implements Bulkhead {

    /** The event bridge of each loom bulkhead that has adapters; weak, so a dropped bulkhead can go. */
    private static final Map<io.github.loombulkhead.Bulkhead, EventBridge> bridges = new WeakHashMap<>();

    private static final ReentrantLock bridgesLock = new ReentrantLock();

    private static final Duration LONGEST_WAIT = Duration.ofMillis(Long.MAX_VALUE);

    private final io.github.loombulkhead.Bulkhead delegate;

    private final Map<String, String> tags;

    private final EventPublisherImpl eventPublisher;

    private final Metrics metrics = new Metrics() {

        @Override
        public int getAvailableConcurrentCalls() {
            return Resilience4jBulkheadAdapter.this.delegate.getAvailablePermits();
        }

        @Override
        public int getMaxAllowedConcurrentCalls() {
            return Resilience4jBulkheadAdapter.this.delegate.getLimit();
        }
    };

    private Resilience4jBulkheadAdapter(io.github.loombulkhead.Bulkhead delegate, Map<String, String> tags) {
        this.delegate = delegate;
        this.tags = Map.copyOf(tags);
        this.eventPublisher = bridgeOf(delegate).publisher;
    }

    /** The bulkhead's one bridge, added as its listener when the first adapter is made. */
    private static EventBridge bridgeOf(io.github.loombulkhead.Bulkhead bulkhead) {
        bridgesLock.lock();
        try {
            EventBridge bridge = bridges.get(bulkhead);
            if (bridge == null) {
                bridge = new EventBridge();
                bulkhead.addListener(bridge);
                bridges.put(bulkhead, bridge);
            }
            return bridge;
        }
        finally {
            bridgesLock.unlock();
        }
    }

    /** Adapts {@code bulkhead}; resilience4j events are published for all of its calls, to every adapter of it. */
    public static Resilience4jBulkheadAdapter of(io.github.loombulkhead.Bulkhead bulkhead) {
        return of(bulkhead, Map.of());
    }

    /** Adapts {@code bulkhead} with resilience4j tags (used by resilience4j-micrometer). */
    public static Resilience4jBulkheadAdapter of(io.github.loombulkhead.Bulkhead bulkhead, Map<String, String> tags) {
        Objects.requireNonNull(bulkhead, "bulkhead must not be null");
        Objects.requireNonNull(tags, "tags must not be null");
        return new Resilience4jBulkheadAdapter(bulkhead, tags);
    }

    /** The loom bulkhead behind this adapter. */
    public io.github.loombulkhead.Bulkhead getDelegate() {
        return this.delegate;
    }

    /**
     * Changes the maximum wait and the limit ({@code maxConcurrentCalls}); a change the bulkhead refuses (a limit
     * below an adaptive bulkhead's {@code minLimit}) throws and changes neither. An unchanged
     * {@code maxConcurrentCalls} leaves the limit alone: an adaptive bulkhead's algorithm keeps what it learned
     * ({@link io.github.loombulkhead.Bulkhead#changeLimit(int)} would restart it).
     */
    @Override
    public void changeConfig(BulkheadConfig newConfig) {
        Objects.requireNonNull(newConfig, "newConfig must not be null");
        Duration previousWait = this.delegate.getConfig().getMaxWaitDuration();
        this.delegate.changeMaxWaitDuration(newConfig.getMaxWaitDuration());
        if (newConfig.getMaxConcurrentCalls() == this.delegate.getCeiling()) {
            // Only the wait changed (resilience4j hands the whole config): an adaptive limit must not restart.
            return;
        }
        try {
            this.delegate.changeLimit(newConfig.getMaxConcurrentCalls());
        }
        catch (RuntimeException ex) {
            this.delegate.changeMaxWaitDuration(previousWait);
            throw ex;
        }
    }

    /**
     * As resilience4j's {@code SemaphoreBulkhead}: waits in the loom queue up to the maximum wait and returns
     * {@code false} when refused (counted by the loom bulkhead, published as a rejection). resilience4j calls it for
     * {@code executeCompletionStage}, {@code decorateCompletionStage} and {@code decorateFuture}, and its Reactor and
     * RxJava operators on subscription, on the calling thread: give a bulkhead used from an event loop a maximum wait
     * of 0 (resilience4j's own default; loom's is 60 s). Interrupted while waiting: {@code false}, with the interrupt
     * flag set.
     */
    @Override
    public boolean tryAcquirePermission() {
        try {
            this.delegate.acquirePermit();
            return true;
        }
        catch (BulkheadRejectedException ex) {
            return false;
        }
    }

    @Override
    public void acquirePermission() {
        try {
            this.delegate.acquirePermit();
        }
        catch (BulkheadRejectedException ex) {
            if (ex.getReason() == RejectionReason.INTERRUPTED) {
                throw ex;
            }
            throw BulkheadFullException.createBulkheadFullException(this);
        }
    }

    @Override
    public void releasePermission() {
        this.delegate.releasePermit();
    }

    /**
     * Releases the permit; the call's duration is not known through this interface, so it is recorded as 0 and gives
     * an adaptive bulkhead no sample (a round trip of 0 would teach its algorithm a callee that answers at once).
     */
    @Override
    public void onComplete() {
        this.delegate.onComplete(0, 0, -1, Outcome.IGNORED);
    }

    @Override
    public String getName() {
        return this.delegate.getName();
    }

    @Override
    public BulkheadConfig getBulkheadConfig() {
        io.github.loombulkhead.BulkheadConfig config = this.delegate.getConfig();
        return BulkheadConfig.custom()
            .maxConcurrentCalls(config.getMaxConcurrentCalls())
            .maxWaitDuration(millisecondsAtMost(config.getMaxWaitDuration()))
            .fairCallHandlingStrategyEnabled(config.isFair())
            .build();
    }

    /** resilience4j reads a wait in milliseconds; a longer one than a {@code long} of them is the longest it takes. */
    private static Duration millisecondsAtMost(Duration wait) {
        return (wait.compareTo(LONGEST_WAIT) > 0) ? LONGEST_WAIT : wait;
    }

    @Override
    public Metrics getMetrics() {
        return this.metrics;
    }

    @Override
    public Map<String, String> getTags() {
        return this.tags;
    }

    @Override
    public EventPublisher getEventPublisher() {
        return this.eventPublisher;
    }

    @Override
    public String toString() {
        return "Resilience4jBulkheadAdapter[" + this.delegate + "]";
    }

    /**
     * Turns loom events into resilience4j events, only when somebody consumes them. Holds neither the bulkhead
     * nor an adapter, so neither is kept reachable by the other through it.
     */
    private static final class EventBridge implements BulkheadListener {

        private final EventPublisherImpl publisher = new EventPublisherImpl();

        @Override
        public void onPermitted(io.github.loombulkhead.Bulkhead bulkhead, long waitNanos) {
            publish(new BulkheadOnCallPermittedEvent(bulkhead.getName()));
        }

        @Override
        public void onRejected(io.github.loombulkhead.Bulkhead bulkhead, RejectionReason reason, long waitNanos) {
            publish(new BulkheadOnCallRejectedEvent(bulkhead.getName()));
        }

        @Override
        public void onCompleted(io.github.loombulkhead.Bulkhead bulkhead, long executionNanos) {
            publish(new BulkheadOnCallFinishedEvent(bulkhead.getName()));
        }

        private void publish(BulkheadEvent event) {
            if (this.publisher.hasConsumers()) {
                this.publisher.processEvent(event);
            }
        }
    }

    private static final class EventPublisherImpl extends EventProcessor<BulkheadEvent> implements EventPublisher {

        @Override
        public EventPublisher onCallPermitted(EventConsumer<BulkheadOnCallPermittedEvent> consumer) {
            registerConsumer(BulkheadOnCallPermittedEvent.class.getName(), consumer);
            return this;
        }

        @Override
        public EventPublisher onCallRejected(EventConsumer<BulkheadOnCallRejectedEvent> consumer) {
            registerConsumer(BulkheadOnCallRejectedEvent.class.getName(), consumer);
            return this;
        }

        @Override
        public EventPublisher onCallFinished(EventConsumer<BulkheadOnCallFinishedEvent> consumer) {
            registerConsumer(BulkheadOnCallFinishedEvent.class.getName(), consumer);
            return this;
        }
    }
}
