package io.github.loombulkhead.annotation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import io.github.loombulkhead.http.Calls;
import io.github.loombulkhead.http.ConcurrencyGauge;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static io.github.loombulkhead.annotation.AnnotationTestSupport.assertAllFree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/** Synchronous {@code @Bulkhead} methods on Spring beans, in a real application context. */
class BulkheadAnnotationTest {

    private static AnnotationConfigApplicationContext context;

    private static BulkheadRegistry registry;

    @BeforeAll
    static void startContext() {
        context = new AnnotationConfigApplicationContext(Config.class);
        registry = context.getBean(BulkheadRegistry.class);
    }

    @AfterAll
    static void closeContext() {
        context.close();
    }

    @Test
    void concurrentCallsNeverExceedTheLimit() throws Exception {
        Reports reports = context.getBean(Reports.class);
        assertThat(AopUtils.isAopProxy(reports)).isTrue();

        List<String> results = Calls.concurrently(60, (i) -> reports.build(i));

        assertThat(results).hasSize(60).allMatch((result) -> result.startsWith("report-"));
        assertThat(reports.gauge().max()).isEqualTo(3);
        assertAllFree(registry.find("reports").orElseThrow(), 60);
    }

    @Test
    void aFailingCallReleasesItsPermitAndKeepsItsException() {
        Failing failing = context.getBean(Failing.class);

        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(failing::fail).withMessage("bad input");

        assertAllFree(registry.find("failing").orElseThrow(), 1);
    }

    @Test
    void aCallThatWaitsTooLongIsRejected() throws Exception {
        Blocking blocking = context.getBean("blocking", Blocking.class);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(blocking::hold,
                (task) -> Thread.ofVirtual().start(task));
        await().atMost(Duration.ofSeconds(5)).until(() -> blocking.entered().getCount() == 0);

        assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(blocking::hold).satisfies((ex) -> {
            assertThat(ex.getBulkheadName()).isEqualTo("blocking");
            assertThat(ex.getReason()).isEqualTo(RejectionReason.WAIT_TIMED_OUT);
        });

        blocking.release().countDown();
        holder.get(5, TimeUnit.SECONDS);
        assertAllFree(registry.find("blocking").orElseThrow(), 1);
    }

    @Test
    void anInterruptedWaiterIsRejectedAndKeepsItsInterruptFlag() throws Exception {
        PatientBlocking blocking = context.getBean(PatientBlocking.class);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(blocking::hold,
                (task) -> Thread.ofVirtual().start(task));
        await().atMost(Duration.ofSeconds(5)).until(() -> blocking.entered().getCount() == 0);
        CompletableFuture<Boolean> flagAfterRejection = new CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                blocking.waitLong();
                flagAfterRejection.completeExceptionally(new AssertionError("not rejected"));
            }
            catch (BulkheadRejectedException ex) {
                flagAfterRejection.complete(ex.getReason() == RejectionReason.INTERRUPTED
                        && Thread.currentThread().isInterrupted());
            }
        });
        await().atMost(Duration.ofSeconds(5))
            .until(() -> registry.find("patient").orElseThrow().getWaitingCount() == 1);

        waiter.interrupt();

        assertThat(flagAfterRejection.get(5, TimeUnit.SECONDS)).isTrue();
        blocking.release().countDown();
        holder.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aMethodAnnotationWinsOverTheTypeAnnotation() {
        TypeLevel typeLevel = context.getBean(TypeLevel.class);
        long typeBefore = registry.bulkhead("type-level").getPermittedCount();
        long methodBefore = registry.bulkhead("method-level").getPermittedCount();

        typeLevel.first();
        typeLevel.second();
        typeLevel.own();
        assertThat(typeLevel.toString()).isEqualTo("not bounded by the type annotation");

        assertThat(registry.bulkhead("type-level").getPermittedCount() - typeBefore).isEqualTo(2);
        assertThat(registry.bulkhead("method-level").getPermittedCount() - methodBefore).isEqualTo(1);
    }

    @Test
    void anAnnotationOnAnInterfaceMethodAppliesToItsImplementation() {
        Greeter greeter = context.getBean(Greeter.class);

        assertThat(greeter.greet("loom")).isEqualTo("hello loom");
        assertThat(greeter.plain()).isEqualTo("plain");

        assertAllFree(registry.find("greeter").orElseThrow(), 1);
    }

    @Test
    void theNameAliasAndUnknownNamesResolveAtStartup() {
        // Created when the bean was proxied, before any call, from the registry's defaults.
        assertThat(registry.find("not-configured")).hasValueSatisfying((bulkhead) -> {
            assertThat(bulkhead.getConfig().getMaxConcurrentCalls())
                .isEqualTo(BulkheadConfig.DEFAULT_MAX_CONCURRENT_CALLS);
            assertThat(bulkhead.getPermittedCount()).isZero();
        });
        Aliased aliased = context.getBean(Aliased.class);

        aliased.byName();
        aliased.byBoth();

        assertThat(registry.bulkhead("not-configured").getPermittedCount()).isEqualTo(2);
    }

    @Test
    void packagePrivateMethodsAreBoundedAndTheirBulkheadsExistFromStartup() {
        // Created when the bean was proxied, as for public methods.
        assertThat(registry.find("package-private")).hasValueSatisfying(
                (bulkhead) -> assertThat(bulkhead.getPermittedCount()).isZero());
        assertThat(registry.find("package-private-async")).isPresent();
        PackagePrivate bean = context.getBean(PackagePrivate.class);

        assertThat(bean.build()).isEqualTo(1);
        assertThat(bean.buildAsync().join()).isEqualTo(1);

        assertAllFree(registry.find("package-private").orElseThrow(), 1);
        assertAllFree(registry.find("package-private-async").orElseThrow(), 1);
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        static BulkheadRegistry bulkheadRegistry() {
            return BulkheadRegistry.builder()
                .config("reports", BulkheadConfig.custom().maxConcurrentCalls(3).build())
                .config("blocking", BulkheadConfig.custom().maxConcurrentCalls(1)
                    .maxWaitDuration(Duration.ofMillis(100)).build())
                .config("patient", BulkheadConfig.custom().maxConcurrentCalls(1).build())
                .build();
        }

        @Bean
        static BulkheadAnnotationBeanPostProcessor bulkheadAnnotationBeanPostProcessor(BulkheadRegistry registry) {
            return new BulkheadAnnotationBeanPostProcessor(registry);
        }

        @Bean
        Reports reports() {
            return new Reports();
        }

        @Bean
        Failing failing() {
            return new Failing();
        }

        @Bean
        Blocking blocking() {
            return new Blocking();
        }

        @Bean
        PatientBlocking patientBlocking() {
            return new PatientBlocking();
        }

        @Bean
        TypeLevel typeLevel() {
            return new TypeLevel();
        }

        @Bean
        Greeter greeter() {
            return new EnglishGreeter();
        }

        @Bean
        Aliased aliased() {
            return new Aliased();
        }

        @Bean
        PackagePrivate packagePrivate(BulkheadRegistry registry) {
            return new PackagePrivate(registry);
        }
    }

    /** Package-private methods, as in a typical {@code @Service}; each returns its bulkhead's active count. */
    static class PackagePrivate {

        private final BulkheadRegistry registry;

        PackagePrivate(BulkheadRegistry registry) {
            this.registry = registry;
        }

        @Bulkhead("package-private")
        int build() {
            return this.registry.bulkhead("package-private").getActiveCount();
        }

        @Bulkhead("package-private-async")
        CompletableFuture<Integer> buildAsync() {
            return CompletableFuture.completedFuture(this.registry.bulkhead("package-private-async").getActiveCount());
        }
    }

    static class Reports {

        private final ConcurrencyGauge gauge = new ConcurrencyGauge();

        public ConcurrencyGauge gauge() {
            return this.gauge;
        }

        @Bulkhead("reports")
        public String build(int id) {
            this.gauge.enter();
            try {
                // Work that holds the permit for a while, so that calls overlap.
                Thread.sleep(30);
                return "report-" + id;
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
            finally {
                this.gauge.leave();
            }
        }
    }

    static class Failing {

        @Bulkhead("failing")
        public void fail() {
            throw new IllegalArgumentException("bad input");
        }
    }

    static class Blocking {

        volatile CountDownLatch entered = new CountDownLatch(1);

        volatile CountDownLatch release = new CountDownLatch(1);

        public CountDownLatch entered() {
            return this.entered;
        }

        public CountDownLatch release() {
            return this.release;
        }

        void awaitRelease() {
            this.entered.countDown();
            try {
                this.release.await(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }

        @Bulkhead("blocking")
        public void hold() {
            awaitRelease();
        }
    }

    /** Same as {@link Blocking} with a bulkhead whose waiters wait up to the default 60 s. */
    static class PatientBlocking extends Blocking {

        @Override
        @Bulkhead("patient")
        public void hold() {
            awaitRelease();
        }

        @Bulkhead("patient")
        public void waitLong() {
        }
    }

    @Bulkhead("type-level")
    static class TypeLevel {

        public void first() {
        }

        public void second() {
        }

        @Bulkhead(name = "method-level")
        public void own() {
        }

        @Override
        public String toString() {
            return "not bounded by the type annotation";
        }
    }

    interface Greeter {

        @Bulkhead("greeter")
        String greet(String name);

        String plain();
    }

    static class EnglishGreeter implements Greeter {

        @Override
        public String greet(String name) {
            return "hello " + name;
        }

        @Override
        public String plain() {
            return "plain";
        }
    }

    static class Aliased {

        @Bulkhead(name = "not-configured")
        public void byName() {
        }

        @Bulkhead(value = "not-configured", name = "not-configured")
        public void byBoth() {
        }
    }

}
