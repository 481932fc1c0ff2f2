package io.github.loombulkhead.benchmarks.jmh;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Every burst alternative runs every task exactly once (a benchmark that drops tasks would look fast). */
class BurstThroughputBenchmarkTest {

    private final BurstThroughputBenchmark benchmark = new BurstThroughputBenchmark();

    @BeforeEach
    void smallBurst() {
        this.benchmark.tasks = 2_000;
    }

    @ParameterizedTest
    @EnumSource(Work.class)
    void everyAlternativeCompletesEveryTask(Work work) throws Exception {
        this.benchmark.work = work;

        BurstThroughputBenchmark.VirtualThreads threads = new BurstThroughputBenchmark.VirtualThreads();
        threads.setUp();
        BurstThroughputBenchmark.Loom loom = new BurstThroughputBenchmark.Loom();
        loom.setUp(this.benchmark);
        BurstThroughputBenchmark.SpringSimpleAsync spring = new BurstThroughputBenchmark.SpringSimpleAsync();
        spring.setUp();
        BurstThroughputBenchmark.Resilience4j resilience4j = new BurstThroughputBenchmark.Resilience4j();
        resilience4j.setUp();
        BurstThroughputBenchmark.ThreadPool pool = new BurstThroughputBenchmark.ThreadPool();
        pool.setUp();
        try {
            assertThat(this.benchmark.semaphoreBaseline(threads)).isEqualTo(2_000);
            assertThat(this.benchmark.loomBulkhead(loom)).isEqualTo(2_000);
            // The task counts down before the executor records its completion.
            await().untilAsserted(() -> assertThat(loom.executor.getBulkhead().getCompletedCount()).isEqualTo(2_000));
            assertThat(this.benchmark.springSimpleAsync(spring)).isEqualTo(2_000);
            assertThat(this.benchmark.resilience4jBulkhead(threads, resilience4j)).isEqualTo(2_000);
            assertThat(this.benchmark.threadPool(pool)).isEqualTo(2_000);
            assertThat(this.benchmark.referenceVirtualLoops()).isEqualTo(2_000);
            assertThat(this.benchmark.referencePlatformLoops()).isEqualTo(2_000);
        }
        finally {
            threads.tearDown();
            loom.tearDown();
            spring.tearDown();
            pool.tearDown();
        }
    }
}
