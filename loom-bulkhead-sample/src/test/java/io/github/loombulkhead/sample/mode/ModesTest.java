package io.github.loombulkhead.sample.mode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.sample.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** Each mode's strategy runs its tasks where the mode says and never lets more than the limit call at once. */
class ModesTest {

    private static final int TASKS = 60;

    private static final int LIMIT = 7;

    /** Below the Netflix algorithms' initial limit (20), so that their ceiling shows within a few tasks. */
    private static final int ADAPTIVE_MAX_LIMIT = 12;

    /** Ceiling of the adaptive bulkhead, as the starter would configure it. */
    private static final int ADAPTIVE_CEILING = 300;

    private final BulkheadRegistry registry = BulkheadRegistry.builder()
        .config(Modes.ADAPTIVE_BULKHEAD_NAME, BulkheadConfig.custom()
            .maxConcurrentCalls(ADAPTIVE_CEILING)
            .adaptive(AdaptiveLimitConfig.ofDefaults())
            .build())
        .build();

    private final Modes modes = new Modes(this.registry, ADAPTIVE_MAX_LIMIT);

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = { "THREAD_POOL", "VIRTUAL_SEMAPHORE", "LOOM_BULKHEAD",
            "SPRING_CONCURRENCY_LIMIT", "RESILIENCE4J_BULKHEAD" })
    void boundedModesReachTheLimitAndNeverExceedIt(Mode mode) {
        Probe probe = run(mode);
        assertThat(probe.max.get()).as(mode + ": most calls at once").isEqualTo(LIMIT);
        assertThat(probe.limitAfter).as(mode + " limit").hasValue(LIMIT);
        assertThat(probe.completed.get()).isEqualTo(TASKS);
        assertThat(probe.onVirtualThreads.get()).as(mode + " runs calls on virtual threads")
            .isEqualTo(mode != Mode.THREAD_POOL);
        assertThat(probe.onPlatformThreads.get()).isEqualTo(mode == Mode.THREAD_POOL);
    }

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = { "NETFLIX_GRADIENT2", "NETFLIX_VEGAS", "NETFLIX_AIMD" })
    void netflixModesWaitForTheirLimitOnVirtualThreadsAndNeverExceedTheAdaptiveMaxLimit(Mode mode) {
        Probe probe = run(mode);
        assertThat(probe.max.get()).as(mode + ": most calls at once").isBetween(2, ADAPTIVE_MAX_LIMIT);
        assertThat(probe.completed.get()).isEqualTo(TASKS);
        assertThat(probe.onPlatformThreads.get()).isFalse();
        assertThat(probe.limitAfter).isPresent();
        assertThat(probe.limitAfter.getAsInt()).as(mode + " limit").isBetween(1, ADAPTIVE_MAX_LIMIT);
    }

    @Test
    void unboundedModeRunsEveryTaskAtOnceOnVirtualThreads() {
        Probe probe = run(Mode.VIRTUAL_UNBOUNDED);
        assertThat(probe.max.get()).isGreaterThan(LIMIT);
        assertThat(probe.completed.get()).isEqualTo(TASKS);
        assertThat(probe.onPlatformThreads.get()).isFalse();
        assertThat(probe.limitAfter).as("no limit").isEmpty();
    }

    @Test
    void httpModeSizesTheAnnotatedClientsBulkheadAndRunsUnboundedVirtualThreads() {
        try (ConcurrencyStrategy strategy = this.modes.create(Mode.LOOM_BULKHEAD_HTTP, TASKS, LIMIT,
                Duration.ofSeconds(42))) {
            assertThat(this.registry.bulkhead(Modes.HTTP_BULKHEAD_NAME).getLimit()).isEqualTo(LIMIT);
            assertThat(this.registry.bulkhead(Modes.HTTP_BULKHEAD_NAME).getConfig().getMaxWaitDuration())
                .isEqualTo(Duration.ofSeconds(42));
            assertThat(strategy).isInstanceOf(VirtualUnboundedStrategy.class);
            this.registry.bulkhead(Modes.HTTP_BULKHEAD_NAME).changeLimit(LIMIT + 1);
            assertThat(strategy.limit()).as("read from the bulkhead").hasValue(LIMIT + 1);
        }
    }

    @Test
    void adaptiveModeLeavesTheLimitToTheAlgorithmAndSetsOnlyTheWait() {
        Bulkhead bulkhead = this.registry.bulkhead(Modes.ADAPTIVE_BULKHEAD_NAME);
        try (ConcurrencyStrategy strategy = this.modes.create(Mode.LOOM_BULKHEAD_ADAPTIVE, TASKS, LIMIT,
                Duration.ofSeconds(42))) {
            assertThat(bulkhead.isAdaptive()).isTrue();
            assertThat(bulkhead.getLimit()).isEqualTo(AdaptiveLimitConfig.DEFAULT_INITIAL_LIMIT);
            assertThat(bulkhead.getConfig().getMaxConcurrentCalls()).as("ceiling").isEqualTo(ADAPTIVE_CEILING);
            assertThat(bulkhead.getConfig().getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(42));
            assertThat(strategy).isInstanceOf(VirtualUnboundedStrategy.class);
            assertThat(strategy.limit()).hasValue(AdaptiveLimitConfig.DEFAULT_INITIAL_LIMIT);
        }
    }

    @Test
    void httpModeWithoutTheStarterSaysWhatIsMissing() {
        assertThatIllegalStateException()
            .isThrownBy(() -> new Modes(null, ADAPTIVE_MAX_LIMIT).create(Mode.LOOM_BULKHEAD_HTTP, TASKS, LIMIT,
                    Duration.ofSeconds(1)))
            .withMessageContaining("spring.threads.virtual.enabled=true");
        assertThatIllegalStateException()
            .isThrownBy(() -> new Modes(null, ADAPTIVE_MAX_LIMIT).create(Mode.LOOM_BULKHEAD_ADAPTIVE, TASKS, LIMIT,
                    Duration.ofSeconds(1)))
            .withMessageContaining("Mode loom-bulkhead-adaptive needs the loom-bulkhead starter");
    }

    @Test
    void clusterModeWithoutRedisSaysHowToGiveItOne() {
        assertThatIllegalStateException()
            .isThrownBy(() -> this.modes.create(Mode.LOOM_BULKHEAD_CLUSTER, TASKS, LIMIT, Duration.ofSeconds(1)))
            .withMessageContaining("Mode loom-bulkhead-cluster needs Redis")
            .withMessageContaining("spring.data.redis.host")
            .withMessageContaining("--loom.sample.replicas=2");
    }

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = { "THREAD_POOL", "VIRTUAL_UNBOUNDED", "VIRTUAL_SEMAPHORE",
            "LOOM_BULKHEAD", "RESILIENCE4J_BULKHEAD", "NETFLIX_GRADIENT2", "NETFLIX_VEGAS", "NETFLIX_AIMD" })
    void closingShutsTheExecutorDown(Mode mode) {
        ConcurrencyStrategy strategy = this.modes.create(mode, TASKS, LIMIT, Duration.ofSeconds(30));
        strategy.close();
        assertThat(((ExecutorService) strategy.executor()).isTerminated()).isTrue();
    }

    private Probe run(Mode mode) {
        Probe probe = new Probe();
        try (ConcurrencyStrategy strategy = this.modes.create(mode, TASKS, LIMIT, Duration.ofSeconds(30))) {
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                futures.add(CompletableFuture.runAsync(strategy.decorate(probe::call), strategy.executor()));
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
            probe.limitAfter = strategy.limit();
        }
        return probe;
    }

    /** A call that takes a little while and records how many calls overlapped and where they ran. */
    static final class Probe {

        final AtomicInteger current = new AtomicInteger();

        final AtomicInteger max = new AtomicInteger();

        final AtomicInteger completed = new AtomicInteger();

        final AtomicBoolean onVirtualThreads = new AtomicBoolean();

        final AtomicBoolean onPlatformThreads = new AtomicBoolean();

        OptionalInt limitAfter = OptionalInt.empty();

        void call() {
            (Thread.currentThread().isVirtual() ? this.onVirtualThreads : this.onPlatformThreads).set(true);
            this.max.accumulateAndGet(this.current.incrementAndGet(), Math::max);
            try {
                Thread.sleep(30);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            finally {
                this.current.decrementAndGet();
                this.completed.incrementAndGet();
            }
        }
    }
}
