package io.github.loombulkhead.sample.client;

import io.github.loombulkhead.annotation.Bulkhead;
import io.github.loombulkhead.sample.mode.Modes;

import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;

/**
 * The callee's API with its calls bounded by the {@code callee} bulkhead: the {@code loom-bulkhead-http}
 * mode fires unbounded virtual threads at it and the annotation does the limiting.
 */
@Bulkhead(Modes.HTTP_BULKHEAD_NAME)
@HttpExchange("/api/test")
public interface BulkheadedSlowApi {

    /** Answers after the callee's configured latency, holding a permit of the {@code callee} bulkhead. */
    @GetExchange("/slow")
    String slow();

    /** Answers after {@code latencyMs}, holding a permit. */
    @GetExchange("/slow")
    String slow(@RequestParam long latencyMs);
}
