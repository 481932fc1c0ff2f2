package io.github.loombulkhead.sample.compare;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.sample.CapacityChange;
import io.github.loombulkhead.sample.CapacitySchedule;
import io.github.loombulkhead.sample.Mode;
import io.github.loombulkhead.sample.SampleArgumentException;
import io.github.loombulkhead.sample.callee.CalleeStatus;
import io.github.loombulkhead.sample.client.AdaptiveSlowApi;
import io.github.loombulkhead.sample.client.BulkheadedSlowApi;
import io.github.loombulkhead.sample.client.CalleeCalls;
import io.github.loombulkhead.sample.client.ClusterSlowApi;
import io.github.loombulkhead.sample.client.SlowApi;
import io.github.loombulkhead.sample.measure.HttpExchangeCounter;
import io.github.loombulkhead.sample.measure.JvmMetrics;
import io.github.loombulkhead.sample.measure.NativeMemoryTracking;
import io.github.loombulkhead.sample.measure.TimelineSampler;
import io.github.loombulkhead.sample.mode.Modes;
import io.github.loombulkhead.sample.report.RunReport;
import io.github.loombulkhead.sample.report.TimelinePoint;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.junit.jupiter.api.Test;
import org.mockito.InOrder;

import org.springframework.web.client.ResourceAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * Runs against a mocked callee: every run starts the callee at the scenario's capacity and checks its latency, and a
 * run that fails half-way leaves nothing of it going on.
 */
class ModeRunnerTest {

    private static final Duration INTERVAL = Duration.ofMillis(10);

    /** An idle callee with 200 workers answering in 300 ms, as {@link #settings} expects. */
    private static final CalleeStatus IDLE = new CalleeStatus(true, 0, 0, 0, 0, 200, 300, 0);

    private final SlowApi api = mock(SlowApi.class);

    private final JvmMetrics jvm = new JvmMetrics();

    private final NativeMemoryTracking nativeMemory = NativeMemoryTracking.ofThisJvm();

    @Test
    void runWhoseCapacityScheduleFailsStopsItsTimeSeries() {
        when(this.api.status()).thenReturn(IDLE);
        when(this.api.capacity(any())).thenThrow(new ResourceAccessException("I/O error on POST: Read timed out"))
            .thenReturn(IDLE);
        AtomicInteger points = new AtomicInteger();
        try (TimelineSampler sampler = new TimelineSampler(this.jvm, this.nativeMemory, new HttpExchangeCounter(),
                INTERVAL)) {
            ModeRunner runner = runner(sampler);
            CapacitySchedule halving = new CapacitySchedule(200, List.of(new CapacityChange(100, 1_000)));
            TimelineSampler.Listener counting = (point) -> points.incrementAndGet();
            assertThatExceptionOfType(ResourceAccessException.class)
                .isThrownBy(() -> runner.run(Mode.VIRTUAL_UNBOUNDED, settings(halving), counting))
                .withMessage("I/O error on POST: Read timed out");
            int afterFailure = points.get();
            await().during(INTERVAL.multipliedBy(30)).atMost(Duration.ofSeconds(5))
                .until(() -> points.get() == afterFailure);
            assertThat(runner.isRunning()).isFalse();
            // The next run samples and ends as usual.
            RunReport next = runner.run(Mode.VIRTUAL_UNBOUNDED, settings(new CapacitySchedule(200, List.of())),
                    (point) -> {
                    });
            assertThat(next.succeeded()).isEqualTo(10);
            assertThat(next.timeline()).isNotEmpty();
        }
    }

    @Test
    void everyRunStartsTheCalleeAtTheScenariosCapacityThoughItNeverChanges() {
        // The callee still has the 60 workers an earlier run's schedule left it with.
        when(this.api.status()).thenReturn(new CalleeStatus(true, 0, 0, 0, 0, 60, 300, 0));
        when(this.api.capacity(any())).thenReturn(IDLE);
        when(this.api.slow()).thenReturn("ok");
        try (TimelineSampler sampler = new TimelineSampler(this.jvm, this.nativeMemory, new HttpExchangeCounter(),
                INTERVAL)) {
            RunReport run = runner(sampler).run(Mode.VIRTUAL_UNBOUNDED, settings(new CapacitySchedule(200, List.of())),
                    (point) -> {
                    });
            assertThat(run.succeeded()).isEqualTo(10);
            assertThat(run.littlesLawBoundMs()).isEqualTo(15);
        }
        InOrder order = inOrder(this.api);
        order.verify(this.api).capacity(new CapacitySchedule(200, List.of()));
        order.verify(this.api, times(10)).slow();
    }

    @Test
    void aReplicaLeavesTheCapacityToTheComparisonThatStartedIt() {
        when(this.api.status()).thenReturn(IDLE);
        when(this.api.slow()).thenReturn("ok");
        try (TimelineSampler sampler = new TimelineSampler(this.jvm, this.nativeMemory, new HttpExchangeCounter(),
                INTERVAL)) {
            ModeRunner.RunSettings replica = new ModeRunner.RunSettings(10, 5, Duration.ofSeconds(5), false,
                    new CapacitySchedule(200, List.of()), Duration.ofMillis(300), false);
            RunReport run = runner(sampler).run(Mode.VIRTUAL_UNBOUNDED, replica, (point) -> {
            });
            assertThat(run.succeeded()).isEqualTo(10);
        }
        verify(this.api, never()).capacity(any());
    }

    @Test
    void calleeStartedWithAnotherLatencyIsRefusedBeforeAnyCall() {
        CalleeStatus slower = new CalleeStatus(true, 0, 0, 0, 0, 200, 500, 0);
        when(this.api.status()).thenReturn(slower);
        when(this.api.capacity(any())).thenReturn(slower);
        try (TimelineSampler sampler = new TimelineSampler(this.jvm, this.nativeMemory, new HttpExchangeCounter(),
                INTERVAL)) {
            assertThatExceptionOfType(SampleArgumentException.class)
                .isThrownBy(() -> runner(sampler).run(Mode.VIRTUAL_UNBOUNDED,
                        settings(new CapacitySchedule(200, List.of())), (point) -> {
                        }))
                .withMessage("The callee answers in 500 ms, but loom.sample.callee.latency is 300 ms, from which the "
                        + "report computes the Little's-law bound; set --loom.sample.callee.latency=500ms, or start "
                        + "the callee with --loom.sample.callee.latency=300ms");
        }
        verify(this.api, never()).slow();
    }

    @Test
    void theTimeSeriesCountsFromTheFirstSubmissionNotFromTheCapacitySchedulesRoundTrip() {
        Duration post = Duration.ofSeconds(1);
        when(this.api.status()).thenReturn(IDLE);
        when(this.api.capacity(any())).thenAnswer((invocation) -> {
            // A slow POST of the schedule (a new connection to a busy callee).
            Thread.sleep(post);
            return IDLE;
        });
        when(this.api.slow()).thenAnswer((invocation) -> {
            Thread.sleep(50);
            return "ok";
        });
        try (TimelineSampler sampler = new TimelineSampler(this.jvm, this.nativeMemory, new HttpExchangeCounter(),
                INTERVAL)) {
            CapacitySchedule halving = new CapacitySchedule(200, List.of(new CapacityChange(100, 1_000)));
            RunReport run = runner(sampler).run(Mode.VIRTUAL_UNBOUNDED, settings(halving), (point) -> {
            });
            assertThat(run.succeeded()).isEqualTo(10);
            long firstCompletions = run.timeline()
                .stream()
                .filter((point) -> point.completed() > 0)
                .mapToLong(TimelinePoint::elapsedMs)
                .min()
                .orElseThrow();
            // The calls took about 50 ms: on clocks started before the 1 s POST they would end after 1,050 ms, both
            // the duration and the time series.
            assertThat(run.durationMs()).isLessThan(post.toMillis());
            assertThat(firstCompletions).isLessThan(post.toMillis());
            assertThat(run.timeline().get(run.timeline().size() - 1).elapsedMs()).isLessThan(run.durationMs() + 200);
        }
    }

    @Test
    void requestsCutOffAtTheDeadlineEndAtTheModesEndNotWhenItsMeasurementsAreRead() {
        when(this.api.status()).thenReturn(IDLE);
        when(this.api.capacity(any())).thenReturn(IDLE);
        when(this.api.slow()).thenAnswer((invocation) -> {
            // A callee that answers long after the mode's deadline.
            Thread.sleep(1_500);
            return "ok";
        });
        // Reading native memory at the mode's end takes time (jcmd's summary.diff in the comparison).
        NativeMemoryTracking slowToRead = mock(NativeMemoryTracking.class);
        when(slowToRead.threadDiff()).thenAnswer((invocation) -> {
            Thread.sleep(200);
            return null;
        });
        CalleeCalls calls = new CalleeCalls(this.api, mock(BulkheadedSlowApi.class), mock(AdaptiveSlowApi.class),
                mock(ClusterSlowApi.class), PoolingHttpClientConnectionManagerBuilder.create().build());
        try (TimelineSampler sampler = new TimelineSampler(this.jvm, slowToRead, new HttpExchangeCounter(),
                INTERVAL)) {
            ModeRunner runner = new ModeRunner(new Modes(null, 1_000), calls, this.jvm, slowToRead, sampler, null);
            ModeRunner.RunSettings cutShort = new ModeRunner.RunSettings(10, 5, Duration.ofMillis(500), false,
                    new CapacitySchedule(200, List.of()), Duration.ofMillis(300), true);
            RunReport run = runner.run(Mode.VIRTUAL_UNBOUNDED, cutShort, (point) -> {
            });
            assertThat(run.failures().other()).as("abandoned at the deadline").isEqualTo(10);
            assertThat(run.p99Ms()).as("p99 against the duration, %d ms", run.durationMs())
                .isLessThanOrEqualTo(run.durationMs());
            assertThat(run.timeline().get(run.timeline().size() - 1).completed()).as("ended, in the last point")
                .isEqualTo(10);
        }
    }

    @Test
    void clusterModeOfReplicasForWhichTheComparisonStartsRedisNeedsOnlyTheStarterHere() {
        try (TimelineSampler sampler = new TimelineSampler(this.jvm, this.nativeMemory, new HttpExchangeCounter(),
                INTERVAL)) {
            ModeRunner withStarter = runner(sampler, new Modes(BulkheadRegistry.builder().build(), 1_000));
            List<Mode> cluster = List.of(Mode.LOOM_BULKHEAD_CLUSTER);
            withStarter.checkRunnable(cluster, true);
            assertThatExceptionOfType(SampleArgumentException.class)
                .isThrownBy(() -> withStarter.checkRunnable(cluster, false))
                .withMessageContaining("Mode loom-bulkhead-cluster needs Redis");
            assertThatExceptionOfType(SampleArgumentException.class)
                .isThrownBy(() -> runner(sampler).checkRunnable(cluster, true))
                .withMessage("loom.sample.modes contains loom-bulkhead-cluster, which cannot run: Mode "
                        + "loom-bulkhead-cluster needs the loom-bulkhead starter, which is active only with "
                        + "spring.threads.virtual.enabled=true and loom.bulkhead.enabled not false. Or leave the mode "
                        + "out.");
        }
    }

    private ModeRunner runner(TimelineSampler sampler) {
        return runner(sampler, new Modes(null, 1_000));
    }

    private ModeRunner runner(TimelineSampler sampler, Modes modes) {
        CalleeCalls calls = new CalleeCalls(this.api, mock(BulkheadedSlowApi.class), mock(AdaptiveSlowApi.class),
                mock(ClusterSlowApi.class), PoolingHttpClientConnectionManagerBuilder.create().build());
        return new ModeRunner(modes, calls, this.jvm, this.nativeMemory, sampler, null);
    }

    private static ModeRunner.RunSettings settings(CapacitySchedule capacity) {
        return new ModeRunner.RunSettings(10, 5, Duration.ofSeconds(5), false, capacity, Duration.ofMillis(300), true);
    }
}
