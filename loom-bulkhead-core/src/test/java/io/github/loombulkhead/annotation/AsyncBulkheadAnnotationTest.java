package io.github.loombulkhead.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import io.github.loombulkhead.http.Calls;
import io.github.loombulkhead.http.ConcurrencyGauge;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static io.github.loombulkhead.annotation.AnnotationTestSupport.assertAllFree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * {@code @Bulkhead} methods returning {@code CompletableFuture}/{@code CompletionStage}: callers get a
 * stage at once and never wait for a permit; the permit is held until the method's stage completes.
 */
class AsyncBulkheadAnnotationTest {

    private static final int LIMIT = 10;

    private AnnotationConfigApplicationContext context;

    private BulkheadRegistry registry;

    private AsyncReports reports;

    @BeforeEach
    void startContext() {
        this.context = new AnnotationConfigApplicationContext(Config.class);
        this.registry = this.context.getBean(BulkheadRegistry.class);
        this.reports = this.context.getBean(AsyncReports.class);
    }

    @AfterEach
    void closeContext() {
        this.reports.gate().countDown();
        this.context.close();
    }

    @Test
    void callersNeverBlockWhileTheirCallsWaitForAPermit() throws Exception {
        // The first 10 calls take every permit and cannot finish until the gate opens, so a caller that
        // waited for a permit would block this single thread forever.
        List<CompletableFuture<Integer>> futures = new ArrayList<>();
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            for (int i = 0; i < 1000; i++) {
                futures.add(this.reports.build(i));
            }
        });

        var bulkhead = this.registry.find("async-reports").orElseThrow();
        assertThat(futures).hasSize(1000).noneMatch(CompletableFuture::isDone);
        assertThat(bulkhead.getActiveCount()).isEqualTo(LIMIT);
        assertThat(bulkhead.getWaitingCount()).isEqualTo(1000 - LIMIT);
        // The calls holding the permits start on their own threads, which may not have run yet.
        await().atMost(Duration.ofSeconds(20)).until(() -> this.reports.started() == LIMIT);
        assertThat(bulkhead.getWaitingCount()).isEqualTo(1000 - LIMIT);

        this.reports.gate().countDown();
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

        for (int i = 0; i < futures.size(); i++) {
            assertThat(futures.get(i).join()).isEqualTo(i);
        }
        assertThat(this.reports.gauge().max()).isEqualTo(LIMIT);
        assertThat(this.reports.started()).isEqualTo(1000);
        assertAllFree(bulkhead, 1000);
    }

    @Test
    void thousandConcurrentCallersReturnAtOnceAndAllComplete() throws Exception {
        this.reports.gate().countDown();
        AtomicLong slowestReturn = new AtomicLong();
        long start = System.nanoTime();

        List<CompletableFuture<Integer>> futures = Calls.concurrently(1000, (i) -> {
            long callStart = System.nanoTime();
            CompletableFuture<Integer> future = this.reports.build(i);
            slowestReturn.accumulateAndGet(System.nanoTime() - callStart, Math::max);
            return future;
        });
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        long total = System.nanoTime() - start;

        assertThat(futures).allMatch((future) -> future.isDone() && !future.isCompletedExceptionally());
        assertThat(this.reports.gauge().max()).isEqualTo(LIMIT);
        assertAllFree(this.registry.find("async-reports").orElseThrow(), 1000);
        System.out.printf("1000 async calls, limit %d: all done in %d ms, slowest call returned in %d ms%n", LIMIT,
                TimeUnit.NANOSECONDS.toMillis(total), TimeUnit.NANOSECONDS.toMillis(slowestReturn.get()));
        // 1000 calls of >= 5 ms at 10 at a time need >= 500 ms; a caller that waited for its permit would
        // return only after about that long.
        assertThat(slowestReturn.get()).isLessThan(total / 2);
    }

    @Test
    void cancellingAWaitingCallWithdrawsItAndNeverRunsIt() throws Exception {
        List<CompletableFuture<Integer>> running = new ArrayList<>();
        for (int i = 0; i < LIMIT; i++) {
            running.add(this.reports.build(i));
        }
        CompletableFuture<Integer> waiting = this.reports.build(99);
        var bulkhead = this.registry.find("async-reports").orElseThrow();
        assertThat(bulkhead.getWaitingCount()).isEqualTo(1);

        assertThat(waiting.cancel(true)).isTrue();

        assertThat(bulkhead.getWaitingCount()).isZero();
        this.reports.gate().countDown();
        CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThat(this.reports.started()).isEqualTo(LIMIT);
        assertThat(this.reports.ids()).doesNotContain(99);
        assertAllFree(bulkhead, LIMIT);
    }

    @Test
    void aWaitingCallThatTimesOutOnTheCallersSideIsWithdrawn() throws Exception {
        for (int i = 0; i < LIMIT; i++) {
            this.reports.build(i);
        }
        CompletableFuture<Integer> waiting = this.reports.build(99).orTimeout(50, TimeUnit.MILLISECONDS);
        var bulkhead = this.registry.find("async-reports").orElseThrow();

        assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> waiting.get(5, TimeUnit.SECONDS));

        // orTimeout completes the stage given to the caller, which withdraws the queued call.
        await().atMost(Duration.ofSeconds(5)).until(() -> bulkhead.getWaitingCount() == 0);
        this.reports.gate().countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> bulkhead.getActiveCount() == 0);
        assertThat(this.reports.ids()).doesNotContain(99);
    }

    @Test
    void failuresReleaseThePermitWhetherTheCallRanAtOnceOrLater() throws Exception {
        Faulty faulty = this.context.getBean(Faulty.class);
        var bulkhead = this.registry.find("faulty").orElseThrow();

        // A permit is free: the method still runs on a new virtual thread, never on the caller's.
        assertFailsWith(faulty.throwing(), IllegalArgumentException.class);
        assertFailsWith(faulty.returningNull(), IllegalStateException.class);
        assertFailsWith(faulty.failedStage(), UnsupportedOperationException.class);
        assertFailsWith(faulty.failedStageAsStage().toCompletableFuture(), UnsupportedOperationException.class);
        assertAllFree(bulkhead, 4);
        assertThat(faulty.threads()).hasSize(3).allMatch(Thread::isVirtual).doesNotContain(Thread.currentThread());
        faulty.threads().clear();

        // Deferred: the only permit is taken; each call queues and later runs on a virtual thread.
        CompletableFuture<String> holder = new CompletableFuture<>();
        CompletableFuture<String> holding = faulty.holding(holder);
        CompletableFuture<String> thrown = faulty.throwing();
        CompletableFuture<String> nulled = faulty.returningNull();
        CompletableFuture<String> failed = faulty.failedStage();
        assertThat(bulkhead.getWaitingCount()).isEqualTo(3);
        holder.complete("done");
        assertThat(holding.get(5, TimeUnit.SECONDS)).isEqualTo("done");
        assertFailsWith(thrown, IllegalArgumentException.class);
        assertFailsWith(nulled, IllegalStateException.class);
        assertFailsWith(failed, UnsupportedOperationException.class);
        assertThat(faulty.threads()).hasSize(3).allMatch(Thread::isVirtual).doesNotContain(Thread.currentThread());
        assertAllFree(bulkhead, 8);
    }

    @Test
    void aFullQueueFailsTheReturnedStageInsteadOfThrowing() throws Exception {
        Faulty faulty = this.context.getBean(Faulty.class);
        CompletableFuture<String> holder = new CompletableFuture<>();
        CompletableFuture<String> holding = faulty.holdingWithoutQueue(holder);

        CompletableFuture<String> rejected = faulty.holdingWithoutQueue(new CompletableFuture<>());

        assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> rejected.get(5, TimeUnit.SECONDS))
            .havingCause()
            .isInstanceOfSatisfying(BulkheadRejectedException.class, (ex) -> {
                assertThat(ex.getBulkheadName()).isEqualTo("no-queue");
                assertThat(ex.getReason()).isEqualTo(RejectionReason.QUEUE_FULL);
            });
        holder.complete("done");
        assertThat(holding.get(5, TimeUnit.SECONDS)).isEqualTo("done");
        assertAllFree(this.registry.find("no-queue").orElseThrow(), 1);
    }

    @Test
    void aDeferredCallCarriesTheCallersContextThroughTheTaskDecorator() throws Exception {
        Faulty faulty = this.context.getBean(Faulty.class);
        CompletableFuture<String> holder = new CompletableFuture<>();
        CompletableFuture<String> holding = faulty.holding(holder);
        Config.CONTEXT.set("caller-context");
        CompletableFuture<String> deferred;
        try {
            deferred = faulty.context().toCompletableFuture();
        }
        finally {
            Config.CONTEXT.remove();
        }

        holder.complete("done");

        assertThat(deferred.get(5, TimeUnit.SECONDS)).isEqualTo("caller-context");
        assertThat(holding.get(5, TimeUnit.SECONDS)).isEqualTo("done");
    }

    private static void assertFailsWith(CompletableFuture<?> future, Class<? extends Throwable> type) {
        assertThatExceptionOfType(CompletionException.class).isThrownBy(() -> future.orTimeout(5, TimeUnit.SECONDS)
            .join()).havingCause().isInstanceOf(type);
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        static final ThreadLocal<String> CONTEXT = new ThreadLocal<>();

        @Bean
        static BulkheadRegistry bulkheadRegistry() {
            return BulkheadRegistry.builder()
                .config("async-reports", BulkheadConfig.custom().maxConcurrentCalls(LIMIT).build())
                .config("faulty", BulkheadConfig.custom().maxConcurrentCalls(1).build())
                .config("no-queue", BulkheadConfig.custom().maxConcurrentCalls(1).queueCapacity(0).build())
                .build();
        }

        @Bean
        static BulkheadAnnotationBeanPostProcessor bulkheadAnnotationBeanPostProcessor(BulkheadRegistry registry) {
            BulkheadAnnotationBeanPostProcessor postProcessor = new BulkheadAnnotationBeanPostProcessor(registry);
            postProcessor.setTaskDecorator((task) -> {
                String captured = CONTEXT.get();
                return () -> {
                    CONTEXT.set(captured);
                    try {
                        task.run();
                    }
                    finally {
                        CONTEXT.remove();
                    }
                };
            });
            return postProcessor;
        }

        @Bean
        AsyncReports asyncReports() {
            return new AsyncReports();
        }

        @Bean
        Faulty faulty() {
            return new Faulty();
        }
    }

    static class AsyncReports {

        private final ConcurrencyGauge gauge = new ConcurrencyGauge();

        private final CountDownLatch gate = new CountDownLatch(1);

        private final AtomicInteger started = new AtomicInteger();

        private final List<Integer> ids = java.util.Collections.synchronizedList(new ArrayList<>());

        public ConcurrencyGauge gauge() {
            return this.gauge;
        }

        public CountDownLatch gate() {
            return this.gate;
        }

        public int started() {
            return this.started.get();
        }

        public List<Integer> ids() {
            return this.ids;
        }

        /** In flight from entry until its stage completes; finishes 5 ms after the gate opens. */
        @Bulkhead("async-reports")
        public CompletableFuture<Integer> build(int id) {
            this.gauge.enter();
            this.started.incrementAndGet();
            this.ids.add(id);
            CompletableFuture<Integer> result = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    this.gate.await();
                    Thread.sleep(5);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                this.gauge.leave();
                result.complete(id);
            });
            return result;
        }
    }

    static class Faulty {

        private final List<Thread> threads = java.util.Collections.synchronizedList(new ArrayList<>());

        public List<Thread> threads() {
            return this.threads;
        }

        @Bulkhead("faulty")
        public CompletableFuture<String> holding(CompletableFuture<String> until) {
            return until;
        }

        @Bulkhead("faulty")
        public CompletableFuture<String> throwing() {
            this.threads.add(Thread.currentThread());
            throw new IllegalArgumentException("thrown before returning a stage");
        }

        @Bulkhead("faulty")
        public CompletableFuture<String> returningNull() {
            this.threads.add(Thread.currentThread());
            return null;
        }

        @Bulkhead("faulty")
        public CompletionStage<String> failedStageAsStage() {
            return CompletableFuture.failedStage(new UnsupportedOperationException("failed stage"));
        }

        @Bulkhead("faulty")
        public CompletableFuture<String> failedStage() {
            this.threads.add(Thread.currentThread());
            return CompletableFuture.failedFuture(new UnsupportedOperationException("failed stage"));
        }

        @Bulkhead("faulty")
        public CompletionStage<String> context() {
            return CompletableFuture.completedStage(Config.CONTEXT.get());
        }

        @Bulkhead("no-queue")
        public CompletableFuture<String> holdingWithoutQueue(CompletableFuture<String> until) {
            return until;
        }
    }
}
