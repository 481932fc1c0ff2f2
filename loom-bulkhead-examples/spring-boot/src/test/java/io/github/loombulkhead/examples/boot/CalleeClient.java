package io.github.loombulkhead.examples.boot;

import io.github.loombulkhead.annotation.Bulkhead;

import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;

// tag::client[]
@Bulkhead("callee")                      // io.github.loombulkhead.annotation.Bulkhead
@HttpExchange("/api/test")
public interface CalleeClient {

    @GetExchange("/slow")
    String slow();
}
// end::client[]
