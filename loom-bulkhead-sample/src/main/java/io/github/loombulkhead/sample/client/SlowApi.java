package io.github.loombulkhead.sample.client;

import io.github.loombulkhead.sample.CapacitySchedule;
import io.github.loombulkhead.sample.callee.CalleeStatus;

import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;
import org.springframework.web.service.annotation.PostExchange;

/** The callee's API without any limit: what every mode but {@code loom-bulkhead-http} calls. */
@HttpExchange("/api/test")
public interface SlowApi {

    /** Answers after the callee's configured latency. */
    @GetExchange("/slow")
    String slow();

    /** Answers after {@code latencyMs} (the warm-up uses 0). */
    @GetExchange("/slow")
    String slow(@RequestParam long latencyMs);

    /** Whether the callee is idle. */
    @GetExchange("/status")
    CalleeStatus status();

    /** Starts a new peak of {@code /api/test/slow} requests in progress (see {@link CalleeStatus#peakSlowInProgress()}). */
    @PostExchange("/peak/reset")
    CalleeStatus resetPeak();

    /** Sets the callee's workers to the schedule's initial capacity now and changes them at its times. */
    @PostExchange("/capacity")
    CalleeStatus capacity(@RequestBody CapacitySchedule schedule);
}
