package io.github.loombulkhead;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/** Defaults, validation naming the field and value, and clear errors for bad input. */
class BulkheadConfigTest {

    @Test
    void defaultsAreDocumentedValues() {
        BulkheadConfig defaults = BulkheadConfig.ofDefaults();
        assertThat(defaults.getMaxConcurrentCalls()).isEqualTo(100).isEqualTo(BulkheadConfig.DEFAULT_MAX_CONCURRENT_CALLS);
        assertThat(defaults.getQueueCapacity()).isEqualTo(10_000).isEqualTo(BulkheadConfig.DEFAULT_QUEUE_CAPACITY);
        assertThat(defaults.getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(60))
            .isEqualTo(BulkheadConfig.DEFAULT_MAX_WAIT_DURATION);
        assertThat(defaults.isFair()).isTrue();
        assertThat(BulkheadConfig.custom().build()).usingRecursiveComparison().isEqualTo(defaults);
        Bulkhead executorDefaults = BoundedVirtualExecutor.builder("defaults").build().getBulkhead();
        assertThat(executorDefaults.getConfig()).usingRecursiveComparison().isEqualTo(defaults);
    }

    @Test
    void fromCopiesEveryField() {
        BulkheadConfig base = BulkheadConfig.custom()
            .maxConcurrentCalls(7)
            .queueCapacity(0)
            .maxWaitDuration(Duration.ofMillis(1500))
            .fair(false)
            .build();
        BulkheadConfig copy = BulkheadConfig.from(base).build();
        assertThat(copy).usingRecursiveComparison().isEqualTo(base);
        assertThat(copy).hasToString(
                "BulkheadConfig[maxConcurrentCalls=7, queueCapacity=0, maxWaitDuration=PT1.5S, fair=false]");
        assertThat(BulkheadConfig.from(base).maxConcurrentCalls(9).build().getQueueCapacity()).isZero();
    }

    @Test
    void zeroQueueAndZeroWaitAreValidAndMeanNoWaiting() {
        BulkheadConfig config = BulkheadConfig.custom().queueCapacity(0).maxWaitDuration(Duration.ZERO).build();
        assertThat(config.getQueueCapacity()).isZero();
        assertThat(config.getMaxWaitDuration()).isZero();
        assertThat(BulkheadConfig.custom().maxConcurrentCalls(1).build().getMaxConcurrentCalls()).isEqualTo(1);
        assertThat(BulkheadConfig.custom().maxWaitDuration(Duration.ofSeconds(Long.MAX_VALUE)).build()
            .getMaxWaitDuration()).as("too long for nanoseconds, still valid").isEqualTo(Duration.ofSeconds(Long.MAX_VALUE));
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, -1, Integer.MIN_VALUE })
    void limitBelowOneNamesFieldAndValue(int limit) {
        assertInvalid((builder) -> builder.maxConcurrentCalls(limit), "maxConcurrentCalls", String.valueOf(limit));
        assertThatIllegalArgumentException()
            .isThrownBy(() -> BoundedVirtualExecutor.builder("executor").maxConcurrentCalls(limit).build())
            .withMessageContaining("maxConcurrentCalls")
            .withMessageContaining(String.valueOf(limit));
    }

    @ParameterizedTest
    @ValueSource(ints = { -1, Integer.MIN_VALUE })
    void negativeQueueCapacityNamesFieldAndValue(int capacity) {
        assertInvalid((builder) -> builder.queueCapacity(capacity), "queueCapacity", String.valueOf(capacity));
        assertThatIllegalArgumentException()
            .isThrownBy(() -> BoundedVirtualExecutor.builder("executor").queueCapacity(capacity).build())
            .withMessageContaining("queueCapacity")
            .withMessageContaining(String.valueOf(capacity));
    }

    @Test
    void negativeMaxWaitNamesFieldAndValue() {
        assertInvalid((builder) -> builder.maxWaitDuration(Duration.ofMillis(-1)), "maxWaitDuration", "PT-0.001S");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> BoundedVirtualExecutor.builder("executor").maxWaitDuration(Duration.ofSeconds(-3)).build())
            .withMessageContaining("maxWaitDuration")
            .withMessageContaining("PT-3S");
    }

    @Test
    void missingMaxWaitNamesFieldAndTheFix() {
        assertInvalid((builder) -> builder.maxWaitDuration(null), "maxWaitDuration", "Duration.ZERO");
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = { "", " ", "\t\n" })
    void blankNameIsRejectedEverywhereWithTheValue(String name) {
        assertThatIllegalArgumentException().isThrownBy(() -> BoundedVirtualExecutor.builder(name).build())
            .withMessageContaining("name")
            .withMessageContaining("'" + name + "'");
        assertThatIllegalArgumentException().isThrownBy(() -> new Bulkhead(name, BulkheadConfig.ofDefaults()))
            .withMessageContaining("name");
        assertThatIllegalArgumentException().isThrownBy(() -> BulkheadRegistry.ofDefaults().bulkhead(name))
            .withMessageContaining("name");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> BulkheadRegistry.builder().config(name, BulkheadConfig.ofDefaults()))
            .withMessageContaining("name");
    }

    @Test
    void runtimeChangesAreValidatedToo() {
        Bulkhead bulkhead = new Bulkhead("runtime", BulkheadConfig.ofDefaults());
        assertThatIllegalArgumentException().isThrownBy(() -> bulkhead.changeLimit(0))
            .withMessageContaining("'runtime'")
            .withMessageContaining("maxConcurrentCalls")
            .withMessageContaining("0");
        assertThatIllegalArgumentException().isThrownBy(() -> bulkhead.changeMaxWaitDuration(Duration.ofSeconds(-1)))
            .withMessageContaining("maxWaitDuration")
            .withMessageContaining("PT-1S");
        assertThatIllegalArgumentException().isThrownBy(() -> bulkhead.changeMaxWaitDuration(null))
            .withMessageContaining("maxWaitDuration");
        assertThat(bulkhead.getLimit()).isEqualTo(100);
        assertThat(bulkhead.getConfig().getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void nullArgumentsFailWithAMessage() {
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("nulls").build();
        assertThatNullPointerException().isThrownBy(() -> executor.execute(null)).withMessageContaining("task");
        assertThatNullPointerException().isThrownBy(() -> executor.submit((Runnable) null)).withMessageContaining("task");
        assertThatNullPointerException().isThrownBy(() -> executor.submit((Callable<?>) null)).withMessageContaining("task");
        assertThatNullPointerException().isThrownBy(() -> executor.submit(null, "result")).withMessageContaining("task");
        assertThatNullPointerException().isThrownBy(() -> new Bulkhead("nulls", null)).withMessageContaining("config");
        assertThatNullPointerException().isThrownBy(() -> BulkheadConfig.from(null)).withMessageContaining("config");
        assertThatNullPointerException().isThrownBy(() -> BoundedVirtualExecutor.of(null)).withMessageContaining("bulkhead");
        assertThatNullPointerException().isThrownBy(() -> BoundedVirtualExecutor.builder("nulls").config(null))
            .withMessageContaining("config");
        executor.shutdown();
        assertThat(executor.isTerminated()).as("nothing was accepted").isTrue();
        assertThat(executor.getBulkhead().getRejectedCount()).isZero();
    }

    @Test
    void executorBuilderConfigCopiesEveryFieldAndLaterCallsOverrideIt() {
        BulkheadConfig config = BulkheadConfig.custom()
            .maxConcurrentCalls(3)
            .queueCapacity(4)
            .maxWaitDuration(Duration.ofSeconds(5))
            .fair(false)
            .build();
        BulkheadConfig built = BoundedVirtualExecutor.builder("copied").config(config).queueCapacity(6).build()
            .getBulkhead().getConfig();
        assertThat(built.getMaxConcurrentCalls()).isEqualTo(3);
        assertThat(built.getQueueCapacity()).isEqualTo(6);
        assertThat(built.getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(5));
        assertThat(built.isFair()).isFalse();
    }

    private static void assertInvalid(Consumer<BulkheadConfig.Builder> change, String field, String value) {
        BulkheadConfig.Builder builder = BulkheadConfig.custom();
        change.accept(builder);
        assertThatIllegalArgumentException().isThrownBy(builder::build)
            .withMessageContaining(field)
            .withMessageContaining(value);
    }
}
