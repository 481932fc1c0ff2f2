package io.github.loombulkhead.annotation;

import io.github.loombulkhead.Bulkhead;

import static org.assertj.core.api.Assertions.assertThat;

/** Shared assertions for the annotation tests. */
final class AnnotationTestSupport {

    private AnnotationTestSupport() {
    }

    /** No permit held or awaited, and every call that got a permit gave it back exactly once. */
    static void assertAllFree(Bulkhead bulkhead, long calls) {
        assertThat(bulkhead.getActiveCount()).as("active").isZero();
        assertThat(bulkhead.getWaitingCount()).as("waiting").isZero();
        assertThat(bulkhead.getPermittedCount()).as("permitted").isEqualTo(calls);
        assertThat(bulkhead.getCompletedCount()).as("released exactly once per call").isEqualTo(calls);
    }
}
