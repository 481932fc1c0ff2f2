package io.github.loombulkhead.benchmarks.jmh;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;


import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;
import org.aopalliance.intercept.MethodInterceptor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.http.client.ClientHttpResponse;

/**
 * The price of a limiter when it does not limit: acquire and release with every permit free, on one thread.
 * Rows through a Spring proxy also pay for the proxy; {@link #springProxyOnly(ProxyOnly)} measures that part alone.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class UncontendedOverheadBenchmark {

    private static final int LIMIT = 100;

    private final Semaphore semaphore = new Semaphore(LIMIT);

    private final Bulkhead loom = new Bulkhead("overhead", BulkheadConfig.custom().maxConcurrentCalls(LIMIT).build());

    private final io.github.resilience4j.bulkhead.Bulkhead resilience4j = io.github.resilience4j.bulkhead.Bulkhead
        .of("overhead", io.github.resilience4j.bulkhead.BulkheadConfig.custom()
            .maxConcurrentCalls(LIMIT)
            .maxWaitDuration(Duration.ZERO)
            .build());

    private final Supplier<Integer> resilience4jDecorated = io.github.resilience4j.bulkhead.Bulkhead
        .decorateSupplier(this.resilience4j, new CountingCallee()::call);

    private final BulkheadClientHttpRequestInterceptor loomInterceptor = BulkheadClientHttpRequestInterceptor
        .perClient(new Bulkhead("http", BulkheadConfig.custom().maxConcurrentCalls(LIMIT).build()));

    /** The baseline: {@code Semaphore.tryAcquire()} + {@code release()}. */
    @Benchmark
    public boolean semaphoreBaseline() {
        boolean acquired = this.semaphore.tryAcquire();
        if (acquired) {
            this.semaphore.release();
        }
        return acquired;
    }

    /** {@code Bulkhead.tryAcquirePermit()} + {@code releasePermit()}. */
    @Benchmark
    public boolean loomTryAcquireRelease() {
        boolean acquired = this.loom.tryAcquirePermit();
        if (acquired) {
            this.loom.releasePermit();
        }
        return acquired;
    }

    /** {@code tryAcquirePermit()} + {@code onComplete(executionNanos)}: the engine alone, no clock read. */
    @Benchmark
    public boolean loomTryAcquireOnComplete() {
        boolean acquired = this.loom.tryAcquirePermit();
        if (acquired) {
            this.loom.onComplete(1L);
        }
        return acquired;
    }

    /** As above, timing the call with two {@code System.nanoTime()} reads, as an integration does. */
    @Benchmark
    public boolean loomTimedTryAcquireOnComplete() {
        long start = System.nanoTime();
        boolean acquired = this.loom.tryAcquirePermit();
        if (acquired) {
            this.loom.onComplete(System.nanoTime() - start);
        }
        return acquired;
    }

    /** The blocking entry ({@code acquirePermit()}) when a permit is free, + {@code onComplete}, timed. */
    @Benchmark
    public boolean loomTimedAcquireOnComplete() {
        long start = System.nanoTime();
        this.loom.acquirePermit();
        this.loom.onComplete(System.nanoTime() - start);
        return true;
    }

    /** Reference, not a limiter: two {@code System.nanoTime()} reads, the clock cost inside every timed row. */
    @Benchmark
    public long nanoTimePair() {
        long start = System.nanoTime();
        return System.nanoTime() - start;
    }

    /**
     * A call to a Spring bean method annotated {@code @Bulkhead("overhead")}, without metrics: the bulkhead has no
     * listener, so the starter's Micrometer timers are not part of this row.
     */
    @Benchmark
    public int loomAnnotation(LoomAnnotated context) {
        return context.callee.call();
    }

    /**
     * One exchange through {@code BulkheadClientHttpRequestInterceptor.perClient} with a stub that does no I/O, without
     * metrics (no listener on the bulkhead).
     */
    @Benchmark
    public ClientHttpResponse loomHttpInterceptor() throws IOException {
        ClientHttpResponse response = this.loomInterceptor.intercept(StubExchange.REQUEST, StubExchange.NO_BODY,
                StubExchange.EXECUTION);
        response.close();
        return response;
    }

    /** resilience4j {@code SemaphoreBulkhead.tryAcquirePermission()} + {@code onComplete()}. */
    @Benchmark
    public boolean resilience4jTryAcquireOnComplete() {
        boolean acquired = this.resilience4j.tryAcquirePermission();
        if (acquired) {
            this.resilience4j.onComplete();
        }
        return acquired;
    }

    /** A call through {@code Bulkhead.decorateSupplier} (acquirePermission, call, onComplete). */
    @Benchmark
    public int resilience4jDecorated() {
        return this.resilience4jDecorated.get();
    }

    /** A call to a Spring bean method annotated {@code @ConcurrencyLimit(100)}. */
    @Benchmark
    public int springConcurrencyLimit(SpringLimited context) {
        return context.callee.call();
    }

    /** The same call through a Spring AOP proxy whose only advice proceeds: the cost of the proxy itself. */
    @Benchmark
    public int springProxyOnly(ProxyOnly proxy) {
        return proxy.callee.call();
    }

    /** A Spring context with a {@code @ConcurrencyLimit(100)} bean. */
    @State(Scope.Thread)
    public static class SpringLimited {

        private AnnotationConfigApplicationContext context;

        SpringConcurrencyLimitConfiguration.LimitedCallee callee;

        @Setup(Level.Trial)
        public void setUp() {
            this.context = new AnnotationConfigApplicationContext(SpringConcurrencyLimitConfiguration.class);
            this.callee = this.context.getBean(SpringConcurrencyLimitConfiguration.LimitedCallee.class);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            this.context.close();
        }
    }

    /** A Spring context with a {@code @Bulkhead("overhead")} bean. */
    @State(Scope.Thread)
    public static class LoomAnnotated {

        private AnnotationConfigApplicationContext context;

        LoomAnnotationConfiguration.BulkheadedCallee callee;

        @Setup(Level.Trial)
        public void setUp() {
            this.context = new AnnotationConfigApplicationContext(LoomAnnotationConfiguration.class);
            this.callee = this.context.getBean(LoomAnnotationConfiguration.BulkheadedCallee.class);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            this.context.close();
        }
    }

    /** A CGLIB proxy whose only advice proceeds. */
    @State(Scope.Thread)
    public static class ProxyOnly {

        CountingCallee callee;

        @Setup(Level.Trial)
        public void setUp() {
            ProxyFactory factory = new ProxyFactory(new CountingCallee());
            factory.setProxyTargetClass(true);
            factory.addAdvice((MethodInterceptor) (invocation) -> invocation.proceed());
            this.callee = (CountingCallee) factory.getProxy();
        }
    }

    /** The target of the proxy-only row (a CGLIB proxy, like the {@code @ConcurrencyLimit} bean's). */
    public static class CountingCallee implements Callee {

        private int count;

        @Override
        public int call() {
            return ++this.count;
        }
    }
}
