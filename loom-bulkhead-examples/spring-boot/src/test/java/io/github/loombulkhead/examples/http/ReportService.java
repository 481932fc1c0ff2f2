package io.github.loombulkhead.examples.http;

import java.util.concurrent.CompletableFuture;

import io.github.loombulkhead.annotation.Bulkhead;

import org.springframework.stereotype.Service;

// tag::service[]
@Service
class ReportService {

    @Bulkhead("reports")                  // synchronous: the caller waits for a permit
    Report build(String id) {
        return new Report(id);
    }

    @Bulkhead("reports")                  // asynchronous: the caller gets its future at once
    CompletableFuture<Report> buildAsync(String id) {
        return CompletableFuture.completedFuture(new Report(id));
    }
}
// end::service[]
