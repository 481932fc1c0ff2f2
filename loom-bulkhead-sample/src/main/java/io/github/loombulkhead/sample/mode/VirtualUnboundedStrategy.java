package io.github.loombulkhead.sample.mode;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntSupplier;

import org.jspecify.annotations.Nullable;

/**
 * {@code virtual-unbounded}: a new virtual thread per task and no limit
 * ({@code newVirtualThreadPerTaskExecutor()}). Also the executor of {@code loom-bulkhead-http} and
 * {@code loom-bulkhead-adaptive}, whose limit sits on the HTTP client instead.
 */
final class VirtualUnboundedStrategy implements ConcurrencyStrategy {

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    private final @Nullable IntSupplier limit;

    /** No limit at all. */
    VirtualUnboundedStrategy() {
        this(null);
    }

    /** A limit enforced elsewhere (on the HTTP client), read from {@code limit}. */
    VirtualUnboundedStrategy(@Nullable IntSupplier limit) {
        this.limit = limit;
    }

    @Override
    public OptionalInt limit() {
        return (this.limit != null) ? OptionalInt.of(this.limit.getAsInt()) : OptionalInt.empty();
    }

    @Override
    public ExecutorService executor() {
        return this.executor;
    }

    @Override
    public void close() {
        ConcurrencyStrategy.shutdown(this.executor, Duration.ofSeconds(10));
    }
}
