package io.github.loombulkhead.examples.plain;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.examples.GatedCallee;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runs the README's plain-Java quick start, built with exactly the dependencies the README lists for plain
 * Java, against a real loopback callee.
 */
class PlainJavaQuickStartTest {

    @RegisterExtension
    final GatedCallee callee = new GatedCallee();

    @Test
    @SuppressWarnings("try") // the gate is closed for its side effect: it opens the callee first
    void httpCallsBeyondTheLimitWaitAndThePoolIsNoSecondLimit() throws Exception {
        PlainJavaQuickStart quickStart = PlainJavaQuickStart.create(this.callee.baseUrl());
        Bulkhead bulkhead = quickStart.callee();
        try (quickStart; ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor();
                AutoCloseable gate = this.callee::open) {
            BoundedVirtualExecutor executor = quickStart.executor();
            assertThat(executor.getBulkhead()).as("the client's bulkhead").isSameAs(bulkhead);
            List<Future<String>> calls = new ArrayList<>();
            for (int i = 0; i < 150; i++) {
                calls.add(callers.submit(() -> quickStart.client().get().uri("/slow").retrieve().body(String.class)));
            }
            await().until(() -> this.callee.inFlight() == 100 && bulkhead.getWaitingCount() == 50);
            // All 150 calls are accounted for: 100 at the callee (HttpClient 5's default pool would allow 5), 50 waiting.
            assertThat(bulkhead.getActiveCount()).isEqualTo(100);
            this.callee.open();
            for (Future<String> call : calls) {
                assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("ok");
            }
        }
        assertThat(this.callee.maxInFlight()).isEqualTo(100);
        assertThat(this.callee.served()).isEqualTo(150);
        assertThat(bulkhead.getPermittedCount()).isEqualTo(150);
        assertThat(bulkhead.getRejectedCount()).isZero();
    }

    @Test
    @SuppressWarnings("try") // the gates are closed for their side effect: they open first
    void executorTasksAndHttpCallsShareTheLimit() throws Exception {
        PlainJavaQuickStart quickStart = PlainJavaQuickStart.create(this.callee.baseUrl());
        Bulkhead bulkhead = quickStart.callee();
        CountDownLatch tasksMayEnd = new CountDownLatch(1);
        try (quickStart; ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor();
                AutoCloseable gates = () -> {
                    this.callee.open();
                    tasksMayEnd.countDown();
                }) {
            BoundedVirtualExecutor executor = quickStart.executor();
            List<Future<Boolean>> tasks = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                tasks.add(executor.submit(() -> tasksMayEnd.await(30, TimeUnit.SECONDS)));
            }
            await().until(() -> bulkhead.getActiveCount() == 60);
            List<Future<String>> calls = new ArrayList<>();
            for (int i = 0; i < 90; i++) {
                calls.add(callers.submit(() -> quickStart.client().get().uri("/slow").retrieve().body(String.class)));
            }
            await().until(() -> this.callee.inFlight() == 40 && bulkhead.getWaitingCount() == 50);
            assertThat(bulkhead.getActiveCount()).isEqualTo(100);
            assertThat(this.callee.maxInFlight()).isEqualTo(40);
            this.callee.open();
            tasksMayEnd.countDown();
            for (Future<String> call : calls) {
                assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("ok");
            }
            for (Future<Boolean> task : tasks) {
                assertThat(task.get(30, TimeUnit.SECONDS)).isTrue();
            }
        }
        assertThat(this.callee.served()).isEqualTo(90);
        assertThat(bulkhead.getPermittedCount()).isEqualTo(150);
        assertThat(bulkhead.getRejectedCount()).isZero();
    }
}
