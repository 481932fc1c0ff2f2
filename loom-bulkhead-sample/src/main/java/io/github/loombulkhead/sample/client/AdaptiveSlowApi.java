package io.github.loombulkhead.sample.client;

import io.github.loombulkhead.annotation.Bulkhead;
import io.github.loombulkhead.sample.mode.Modes;

import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;

/**
 * The callee's API with its calls bounded by the adaptive {@code callee-adaptive} bulkhead: the
 * {@code loom-bulkhead-adaptive} mode fires unbounded virtual threads at it and the bulkhead's algorithm finds
 * the limit.
 */
@Bulkhead(Modes.ADAPTIVE_BULKHEAD_NAME)
@HttpExchange("/api/test")
public interface AdaptiveSlowApi {

    /** Answers after the callee's configured latency, holding a permit of the {@code callee-adaptive} bulkhead. */
    @GetExchange("/slow")
    String slow();
}
