package io.github.loombulkhead.examples.plain;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.github.loombulkhead.BoundedVirtualExecutor;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs the code of docs/executor.md. */
class ExecutorSnippetsTest {

    @Test
    void theAdaptiveExecutorStartsAtItsInitialLimitUnderItsCeiling() {
        try (BoundedVirtualExecutor executor = ExecutorSnippets.adaptive()) {
            assertThat(executor.getBulkhead().isAdaptive()).isTrue();
            assertThat(executor.getBulkhead().getLimit()).isEqualTo(20);
            assertThat(executor.getBulkhead().getConfig().getMaxConcurrentCalls()).isEqualTo(400);
            assertThat(executor.getBulkhead().getLimitAlgorithm().getName()).isEqualTo("gradient");
        }
    }

    @Test
    void callAllRunsEveryCallAndAtMostTheLimitAtOnce() throws InterruptedException {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch hundredRunning = new CountDownLatch(100);
        List<String> ids = IntStream.range(0, 150).mapToObj(Integer::toString).toList();
        try (BoundedVirtualExecutor executor = ExecutorSnippets.callAll(ids, (id) -> {
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            hundredRunning.countDown();
            try {
                // The first 100 calls wait for each other, so the limit is reached exactly once.
                assertThat(hundredRunning.await(30, TimeUnit.SECONDS)).isTrue();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
            finally {
                running.decrementAndGet();
            }
            calls.incrementAndGet();
        })) {
            assertThat(calls).hasValue(150);
            assertThat(maxRunning).hasValue(100);
            assertThat(executor.getBulkhead().getPermittedCount()).isEqualTo(150);
        }
    }

    @Test
    void runtimeChangesApplyToTheExecutorsBulkhead() {
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("callee").build()) {
            ExecutorSnippets.changeAtRuntime(executor);
            assertThat(executor.getBulkhead().getLimit()).isEqualTo(50);
            assertThat(executor.getBulkhead().getConfig().getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(5));
        }
    }

    @Test
    void anExecutorBuiltFromTheRegistryUsesTheRegistrysBulkhead() {
        ExecutorSnippets.Shared shared = ExecutorSnippets.sharedThroughARegistry();
        try (BoundedVirtualExecutor executor = shared.executor()) {
            assertThat(executor.getBulkhead()).isSameAs(shared.registry().bulkhead("callee"));
            assertThat(executor.getBulkhead().getLimit()).isEqualTo(100);
        }
    }
}
