package io.github.loombulkhead.examples.http;

import io.github.loombulkhead.annotation.Bulkhead;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;

// tag::client[]
@Bulkhead("callee")                       // every method of this client: at most callee's limit at once
@HttpExchange("/api/test")
public interface CalleeClient {

    @GetExchange("/slow")
    String slow();

    @Bulkhead("callee-reports")           // a method annotation wins over the type annotation
    @GetExchange("/reports/{id}")
    Report report(@PathVariable String id);
}
// end::client[]
