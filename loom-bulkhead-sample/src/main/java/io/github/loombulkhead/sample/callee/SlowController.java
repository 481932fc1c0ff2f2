package io.github.loombulkhead.sample.callee;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.loombulkhead.sample.CapacitySchedule;
import io.github.loombulkhead.sample.Scenario;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code GET /api/test/slow}: answers after the configured latency, holding a Tomcat worker (a platform
 * thread) the whole time, so the callee serves at most {@code capacity} requests at once and queues the rest.
 * {@code POST /api/test/capacity} changes that number over time.
 */
@RestController
@ConditionalOnProperty(name = "loom.sample.role", havingValue = "callee")
@RequestMapping("/api/test")
class SlowController {

    private final Scenario scenario;

    private final TomcatWorkers workers;

    private final CalleeCapacity capacity;

    private final AtomicInteger inProgress = new AtomicInteger();

    private final AtomicLong served = new AtomicLong();

    private final AtomicInteger peak = new AtomicInteger();

    SlowController(Scenario scenario, TomcatWorkers workers, CalleeCapacity capacity) {
        this.scenario = scenario;
        this.workers = workers;
        this.capacity = capacity;
    }

    /** Sleeps for the configured latency, or {@code latencyMs} when given, then answers {@code ok}. */
    @GetMapping("/slow")
    String slow(@RequestParam(required = false) @Nullable Long latencyMs) {
        Duration latency = (latencyMs != null) ? Duration.ofMillis(latencyMs) : this.scenario.calleeLatency();
        if (latency.isNegative()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "latencyMs must not be negative");
        }
        this.peak.accumulateAndGet(this.inProgress.incrementAndGet(), Math::max);
        try {
            Thread.sleep(latency);
            this.served.incrementAndGet();
            return "ok";
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE, "interrupted while serving", ex);
        }
        finally {
            this.inProgress.decrementAndGet();
        }
    }

    /** Whether the callee is idle, for the caller to wait between modes until leftovers are served. */
    @GetMapping("/status")
    CalleeStatus status() {
        int busy = this.workers.busy();
        int queued = this.workers.queued();
        int slow = this.inProgress.get();
        boolean idle = slow == 0 && busy <= 1 && queued <= 0;
        int capacity = this.workers.capacity();
        return new CalleeStatus(idle, busy, queued, slow, this.served.get(),
                (capacity > 0) ? capacity : this.scenario.calleeCapacity(), this.scenario.calleeLatency().toMillis(),
                this.peak.get());
    }

    /** Starts a new peak from the requests in progress now; the caller sends it while the callee is idle. */
    @PostMapping("/peak/reset")
    CalleeStatus resetPeak() {
        this.peak.set(this.inProgress.get());
        return status();
    }

    /**
     * Sets the workers to the schedule's initial capacity now and changes them at its times (since now), replacing
     * the changes of an earlier schedule still pending. The caller sends it while the callee is idle, so it is
     * served at once.
     */
    @PostMapping("/capacity")
    CalleeStatus capacity(@RequestBody CapacitySchedule schedule) {
        this.capacity.apply(schedule);
        return status();
    }
}
