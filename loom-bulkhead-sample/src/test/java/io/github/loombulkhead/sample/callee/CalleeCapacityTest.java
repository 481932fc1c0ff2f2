package io.github.loombulkhead.sample.callee;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.sample.CapacityChange;
import io.github.loombulkhead.sample.CapacitySchedule;
import org.apache.tomcat.util.threads.TaskQueue;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The callee's capacity changes on a worker pool built the way Tomcat builds its connector's: growing puts
 * waiting requests on new workers at once, shrinking lets busy workers finish first, and a new schedule replaces
 * the pending changes of the previous one.
 */
class CalleeCapacityTest {

    private final TaskQueue queue = new TaskQueue();

    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, this.queue);

    private final TomcatWorkers workers = new TomcatWorkers(this.pool);

    private final CalleeCapacity capacity = new CalleeCapacity(this.workers);

    private final CountDownLatch release = new CountDownLatch(1);

    CalleeCapacityTest() {
        this.queue.setParent(this.pool);
    }

    @AfterEach
    void stop() {
        this.release.countDown();
        this.capacity.close();
        this.pool.shutdownNow();
    }

    @Test
    void growingServesWaitingRequestsAtOnceAndShrinkingLetsBusyWorkersFinish() {
        for (int i = 0; i < 3; i++) {
            this.pool.execute(this::slowRequest);
        }
        await().until(() -> this.workers.busy() == 1 && this.workers.queued() == 2);
        this.workers.resize(3);
        assertThat(this.workers.capacity()).isEqualTo(3);
        await().atMost(Duration.ofSeconds(5)).until(() -> this.workers.busy() == 3 && this.workers.queued() == 0);
        this.workers.resize(1);
        assertThat(this.workers.capacity()).isEqualTo(1);
        assertThat(this.workers.busy()).as("busy workers are not interrupted").isEqualTo(3);
        this.release.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> this.pool.getPoolSize() == 1);
    }

    @Test
    void scheduleSetsItsInitialCapacityNowAndEachChangeAtItsTime() {
        // Every resize with when it happened, recorded by the pool's owner itself: no change can be missed.
        Map<Integer, Long> resizedAtMs = new ConcurrentHashMap<>();
        long start = System.nanoTime();
        TomcatWorkers recording = new TomcatWorkers(this.pool) {
            @Override
            void resize(int workers) {
                resizedAtMs.put(workers, Duration.ofNanos(System.nanoTime() - start).toMillis());
                super.resize(workers);
            }
        };
        try (CalleeCapacity scheduled = new CalleeCapacity(recording)) {
            scheduled.apply(new CapacitySchedule(2, List.of(new CapacityChange(4, 200), new CapacityChange(3, 400))));
            assertThat(recording.capacity()).isEqualTo(2);
            await().atMost(Duration.ofSeconds(5)).until(() -> resizedAtMs.size() == 3 && recording.capacity() == 3);
        }
        assertThat(resizedAtMs.get(4)).as("not before its time").isGreaterThanOrEqualTo(200);
        assertThat(resizedAtMs.get(3)).as("not before its time").isGreaterThanOrEqualTo(400);
        assertThat(resizedAtMs.get(3)).as("in the schedule's order").isGreaterThan(resizedAtMs.get(4));
    }

    @Test
    void newScheduleReplacesThePendingChanges() {
        this.capacity.apply(new CapacitySchedule(2, List.of(new CapacityChange(5, 300))));
        this.capacity.apply(new CapacitySchedule(1, List.of()));
        assertThat(this.workers.capacity()).isEqualTo(1);
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2)).until(() -> this.workers.capacity() == 1);
    }

    private void slowRequest() {
        try {
            this.release.await();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
