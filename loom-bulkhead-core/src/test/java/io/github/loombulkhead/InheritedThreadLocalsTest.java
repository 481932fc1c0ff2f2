package io.github.loombulkhead;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A task that waited gets its thread when a permit comes back, on the thread of the task that gave it back: a thread
 * that inherited inheritable thread-locals would run it with that other task's values (a user's security context in
 * {@code MODE_INHERITABLETHREADLOCAL}). The executor's own threads inherit none, whether the task waited or not.
 */
class InheritedThreadLocalsTest {

    /** Stands for an inheritable context such as Spring Security's {@code MODE_INHERITABLETHREADLOCAL}. */
    private static final InheritableThreadLocal<String> USER = new InheritableThreadLocal<>();

    @AfterEach
    void clear() {
        USER.remove();
    }

    @Test
    void aTaskThatWaitedNeverSeesTheValuesOfTheTaskWhosePermitItTook() throws Exception {
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("inherited")
            .maxConcurrentCalls(1)
            .build()) {
            CompletableFuture<Void> gate = new CompletableFuture<>();
            USER.set("alice");
            Future<String> alices = executor.submit(() -> {
                gate.join();
                return USER.get();
            });
            USER.set("bob");
            Future<String> bobs = executor.submit(USER::get);
            USER.remove();
            Future<String> anonymous = executor.submit(USER::get);
            await().until(() -> executor.getBulkhead().getWaitingCount() == 2);
            gate.complete(null);

            assertThat(bobs.get(10, TimeUnit.SECONDS)).as("bob's task, which waited for alice's permit").isNull();
            assertThat(anonymous.get(10, TimeUnit.SECONDS)).as("an anonymous caller's task").isNull();
            assertThat(alices.get(10, TimeUnit.SECONDS)).as("alice's task, which did not wait").isNull();
        }
    }
}
