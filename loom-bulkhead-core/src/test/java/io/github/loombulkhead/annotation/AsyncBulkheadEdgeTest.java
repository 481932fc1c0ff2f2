package io.github.loombulkhead.annotation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.task.TaskDecorator;

import static io.github.loombulkhead.annotation.AnnotationTestSupport.assertAllFree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Asynchronous {@code @Bulkhead} calls at their edges: a task decorator that fails or never runs the call, a call
 * nested in one holding the same bulkhead's permit, a future return type that only a generic interface names.
 */
class AsyncBulkheadEdgeTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final PendingSource pendingSource = new PendingSource();

    private Calls calls;

    private final BulkheadRegistry registry = BulkheadRegistry.builder()
        .config("x", BulkheadConfig.custom().maxConcurrentCalls(2).maxWaitDuration(Duration.ofSeconds(5)).build())
        .build();

    @Test
    void aTaskDecoratorThatThrowsFailsTheCallAndGivesItsPermitBack() throws Exception {
        List<Thread> threads = new CopyOnWriteArrayList<>();
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        ThreadFactory recording = (task) -> {
            Thread thread = Thread.ofVirtual()
                .uncaughtExceptionHandler((failed, ex) -> uncaught.add(ex))
                .unstarted(task);
            threads.add(thread);
            return thread;
        };
        try (AnnotationConfigApplicationContext context = context((task) -> () -> {
            throw new IllegalStateException("decorator broke");
        }, recording)) {
            CompletableFuture<String> call = context.getBean(Calls.class).value("v");
            assertThat(call).failsWithin(WAIT)
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .withMessage("decorator broke");
            assertThat(threads).hasSize(1);
            assertThat(threads.get(0).join(WAIT)).as("the call's thread ended").isTrue();
            assertNeverRan(this.registry.bulkhead("x"));
            assertThat(uncaught).as("reported through the future only, not thrown again on the thread").isEmpty();
        }
    }

    @Test
    void aTaskDecoratorThatNeverRunsTheCallFailsItAndGivesItsPermitBack() {
        try (AnnotationConfigApplicationContext context = context((task) -> () -> {
        })) {
            CompletableFuture<String> call = context.getBean(Calls.class).value("v");
            assertThat(call).failsWithin(WAIT)
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .isInstanceOf(IllegalStateException.class)
                .withMessage("Bulkhead 'x': the task decorator returned without running the call");
            await().atMost(WAIT).untilAsserted(() -> assertNeverRan(this.registry.bulkhead("x")));
        }
    }

    @Test
    void aTaskDecoratorThatHandsTheCallToAnotherThreadGivesThePermitBackOnce() throws Exception {
        CountDownLatch later = new CountDownLatch(1);
        CompletableFuture<Void> handedOver = new CompletableFuture<>();
        try (AnnotationConfigApplicationContext context = context((task) -> () -> Thread.ofVirtual().start(() -> {
            awaitQuietly(later);
            task.run();
            handedOver.complete(null);
        }))) {
            io.github.loombulkhead.Bulkhead bulkhead = this.registry.bulkhead("x");
            CompletableFuture<String> call = context.getBean(Calls.class).value("v");
            this.calls = context.getBean(Calls.class);
            assertThat(call).failsWithin(WAIT)
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .withMessage("Bulkhead 'x': the task decorator returned without running the call");
            later.countDown();
            handedOver.get(10, TimeUnit.SECONDS);
            assertNeverRan(bulkhead);
            assertThat(this.calls.valueCalls()).as("the method never ran").isZero();
            // Both permits are free: a second give-back would have thrown or freed someone else's.
            assertThat(bulkhead.tryAcquirePermit()).isTrue();
            assertThat(bulkhead.tryAcquirePermit()).isTrue();
            assertThat(bulkhead.tryAcquirePermit()).isFalse();
            bulkhead.releasePermit();
            bulkhead.releasePermit();
        }
    }

    @Test
    void aThreadFactoryThatStartsItsThreadsRunsTheCallOnce() throws Exception {
        try (AnnotationConfigApplicationContext context = context(null, (task) -> Thread.ofVirtual().start(task))) {
            Calls calls = context.getBean(Calls.class);
            for (int i = 0; i < 20; i++) {
                assertThat(calls.value("v" + i)).succeedsWithin(WAIT).isEqualTo("v" + i);
            }
            assertThat(calls.valueCalls()).isEqualTo(20);
            io.github.loombulkhead.Bulkhead bulkhead = this.registry.bulkhead("x");
            await().atMost(WAIT).untilAsserted(() -> assertAllFree(bulkhead, 20));
        }
    }

    @Test
    void aThreadFactoryThatReturnsAThreadThatAlreadyEndedFailsTheCallAndGivesItsPermitBack() throws Exception {
        Thread used = Thread.ofVirtual().start(() -> {
        });
        assertThat(used.join(WAIT)).isTrue();
        try (AnnotationConfigApplicationContext context = context(null, (task) -> used)) {
            Calls calls = context.getBean(Calls.class);
            assertThat(calls.value("v")).failsWithin(WAIT)
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .isInstanceOf(RejectedExecutionException.class)
                .withMessage("Bulkhead 'x': the thread factory returned a thread that had already ended without "
                        + "running the call; a ThreadFactory must return a new, unstarted thread for each call");
            assertThat(calls.valueCalls()).isZero();
            assertNeverRan(this.registry.bulkhead("x"));
        }
    }

    @Test
    void aTaskDecoratorThatCannotDecorateFailsTheCallWithoutThrowing() {
        try (AnnotationConfigApplicationContext context = context((task) -> {
            throw new IllegalStateException("cannot decorate");
        })) {
            CompletableFuture<String> call = context.getBean(Calls.class).value("v");
            assertThat(call).failsWithin(WAIT)
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .withMessage("cannot decorate");
            assertThat(this.registry.bulkhead("x").getPermittedCount()).isZero();
        }
    }

    /** The permit of the one call went back without a completion: the call never ran. */
    private static void assertNeverRan(io.github.loombulkhead.Bulkhead bulkhead) {
        assertThat(bulkhead.getActiveCount()).as("active").isZero();
        assertThat(bulkhead.getWaitingCount()).as("waiting").isZero();
        assertThat(bulkhead.getPermittedCount()).as("permitted").isEqualTo(1);
        assertThat(bulkhead.getCompletedCount()).as("completed").isZero();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aNestedAsynchronousCallHandsBackAStageAndThrowsNothing() throws Exception {
        try (AnnotationConfigApplicationContext context = context(null)) {
            Outer outer = context.getBean(Outer.class);
            Calls calls = context.getBean(Calls.class);
            CompletionStage<String> failing = outer.within(calls::failing);
            assertThat(failing.toCompletableFuture()).failsWithin(WAIT)
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .withMessage("failed on purpose");
            CompletionStage<String> nothing = outer.within(calls::nothing);
            assertThat(nothing.toCompletableFuture()).failsWithin(WAIT)
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .isInstanceOf(IllegalStateException.class)
                .withMessageContaining("the method returned null instead of a CompletionStage");
            assertThat(outer.within(() -> calls.value("nested")).get(10, TimeUnit.SECONDS)).isEqualTo("nested");
            // One permit per outer call; the nested ones passed through under it.
            assertAllFree(this.registry.bulkhead("x"), 3);
        }
    }

    @Test
    void aFutureNamedOnlyByAGenericInterfaceHoldsThePermitUntilItCompletes() throws Exception {
        try (AnnotationConfigApplicationContext context = context(null)) {
            @SuppressWarnings("unchecked")
            Source<CompletableFuture<String>> source = context.getBean("pendingSource", Source.class);
            assertThat(source.getClass().getSimpleName()).as("a JDK proxy").startsWith("$Proxy");
            CompletableFuture<String> pending = source.fetch();
            await().atMost(WAIT).until(() -> this.registry.bulkhead("x").getActiveCount() == 1);
            assertThat(pending).isNotDone();
            this.pendingSource.gate.complete("fetched");
            assertThat(pending.get(10, TimeUnit.SECONDS)).isEqualTo("fetched");
            await().atMost(WAIT).untilAsserted(() -> assertAllFree(this.registry.bulkhead("x"), 1));
        }
    }

    @Test
    void aCallThatWaitedNeverSeesTheInheritableThreadLocalsOfTheCallWhosePermitItTook() throws Exception {
        InheritableThreadLocal<String> user = new InheritableThreadLocal<>();
        try (AnnotationConfigApplicationContext context = context(null)) {
            Calls calls = context.getBean(Calls.class);
            CompletableFuture<Void> gate = new CompletableFuture<>();
            user.set("alice");
            CompletableFuture<String> first = calls.read(user, gate);
            CompletableFuture<String> second = calls.read(user, gate);
            user.remove();
            CompletableFuture<String> anonymous = calls.read(user, CompletableFuture.completedFuture(null));
            await().atMost(WAIT).until(() -> this.registry.bulkhead("x").getWaitingCount() == 1);
            gate.complete(null);

            assertThat(anonymous.get(10, TimeUnit.SECONDS)).as("an anonymous caller's call, which waited").isNull();
            assertThat(first.get(10, TimeUnit.SECONDS)).as("alice's call, which did not wait").isNull();
            assertThat(second.get(10, TimeUnit.SECONDS)).as("alice's second call").isNull();
        }
        finally {
            user.remove();
        }
    }

    private AnnotationConfigApplicationContext context(TaskDecorator decorator) {
        return context(decorator, null);
    }

    private AnnotationConfigApplicationContext context(TaskDecorator decorator, ThreadFactory threadFactory) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.registerBean(BulkheadRegistry.class, () -> this.registry);
        context.registerBean(BulkheadAnnotationBeanPostProcessor.class, () -> {
            BulkheadAnnotationBeanPostProcessor postProcessor = new BulkheadAnnotationBeanPostProcessor(this.registry);
            if (decorator != null) {
                postProcessor.setTaskDecorator(decorator);
            }
            if (threadFactory != null) {
                postProcessor.setThreadFactory(threadFactory);
            }
            return postProcessor;
        });
        context.registerBean(Calls.class);
        context.registerBean(Outer.class);
        context.registerBean("pendingSource", Source.class, () -> this.pendingSource);
        context.refresh();
        return context;
    }

    public static class Calls {

        private final AtomicInteger values = new AtomicInteger();

        /** Read through a method: the bean is a class-based proxy whose own fields are unused. */
        public int valueCalls() {
            return this.values.get();
        }

        @io.github.loombulkhead.annotation.Bulkhead("x")
        public CompletableFuture<String> value(String value) {
            this.values.incrementAndGet();
            return CompletableFuture.completedFuture(value);
        }

        /** What {@code user} holds on the call's thread, read once {@code gate} opened. */
        @io.github.loombulkhead.annotation.Bulkhead("x")
        public CompletableFuture<String> read(ThreadLocal<String> user, CompletableFuture<Void> gate) {
            gate.join();
            return CompletableFuture.completedFuture(user.get());
        }

        @io.github.loombulkhead.annotation.Bulkhead("x")
        public CompletableFuture<String> failing() {
            throw new IllegalStateException("failed on purpose");
        }

        @io.github.loombulkhead.annotation.Bulkhead("x")
        public CompletableFuture<String> nothing() {
            return null;
        }
    }

    public static class Outer {

        /** Runs {@code nested} on the caller's thread holding a permit of the same bulkhead: a synchronous method. */
        @io.github.loombulkhead.annotation.Bulkhead("x")
        public <T> T within(Supplier<T> nested) {
            return nested.get();
        }
    }

    public interface Source<R> {

        R fetch();
    }

    /** Proxied through its interface, whose erased return type is {@code Object}. */
    public static class PendingSource implements Source<CompletableFuture<String>> {

        final CompletableFuture<String> gate = new CompletableFuture<>();

        @Override
        @io.github.loombulkhead.annotation.Bulkhead("x")
        public CompletableFuture<String> fetch() {
            return this.gate;
        }
    }
}
