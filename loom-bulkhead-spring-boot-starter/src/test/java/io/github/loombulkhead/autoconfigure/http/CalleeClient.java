package io.github.loombulkhead.autoconfigure.http;

import io.github.loombulkhead.annotation.Bulkhead;

import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;

/** An HTTP interface client bounded by the bulkhead {@code x}, as an application would write it. */
@Bulkhead("x")
@HttpExchange
public interface CalleeClient {

    @GetExchange("/held")
    String slow();
}
