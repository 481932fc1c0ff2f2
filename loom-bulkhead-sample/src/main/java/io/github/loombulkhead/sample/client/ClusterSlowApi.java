package io.github.loombulkhead.sample.client;

import io.github.loombulkhead.annotation.Bulkhead;
import io.github.loombulkhead.sample.mode.Modes;

import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;

/**
 * The callee's API with its calls bounded by the {@code callee-cluster} bulkhead, whose permits every replica of
 * the caller leases from the same Redis: the {@code loom-bulkhead-cluster} mode.
 */
@Bulkhead(Modes.CLUSTER_BULKHEAD_NAME)
@HttpExchange("/api/test")
public interface ClusterSlowApi {

    /** Answers after the callee's configured latency, holding a cluster permit. */
    @GetExchange("/slow")
    String slow();

    /** Answers after {@code latencyMs}, holding a cluster permit. */
    @GetExchange("/slow")
    String slow(@RequestParam long latencyMs);
}
