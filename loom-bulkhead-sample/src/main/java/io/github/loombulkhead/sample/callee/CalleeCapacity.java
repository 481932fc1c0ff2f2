package io.github.loombulkhead.sample.callee;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import io.github.loombulkhead.sample.CapacityChange;
import io.github.loombulkhead.sample.CapacitySchedule;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Changes the callee's worker threads over time: a {@link CapacitySchedule} sets them to its initial capacity
 * at once and to each change's capacity at its time, counted from when the schedule arrived. A new schedule
 * replaces the pending changes of the previous one.
 */
class CalleeCapacity implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(CalleeCapacity.class);

    private final TomcatWorkers workers;

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("callee-capacity").daemon(true).factory());

    private final ReentrantLock lock = new ReentrantLock();

    private final List<ScheduledFuture<?>> pending = new ArrayList<>();

    CalleeCapacity(TomcatWorkers workers) {
        this.workers = workers;
    }

    /** Applies {@code schedule} from now on. */
    void apply(CapacitySchedule schedule) {
        this.lock.lock();
        try {
            this.pending.forEach((change) -> change.cancel(false));
            this.pending.clear();
            this.workers.resize(schedule.initial());
            for (CapacityChange change : schedule.changes()) {
                this.pending.add(this.scheduler.schedule(() -> resize(change), change.atMs(), TimeUnit.MILLISECONDS));
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    private void resize(CapacityChange change) {
        try {
            this.workers.resize(change.capacity());
            logger.info("Capacity changed to " + change.capacity() + " workers (" + change.atMs() + " ms after the "
                    + "schedule arrived)");
        }
        catch (RuntimeException ex) {
            logger.warn("Could not change the capacity to " + change.capacity() + " workers", ex);
        }
    }

    @Override
    public void close() {
        this.scheduler.shutdownNow();
    }
}
