package io.github.loombulkhead.annotation;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the bulkhead sits relative to Spring's {@code @Retryable}: innermost by default (each attempt
 * takes its own permit, none is held during back-off), outermost when configured so.
 */
class BulkheadAdviceOrderTest {

    @Test
    void byDefaultEachRetryAttemptTakesItsOwnPermit() {
        try (var context = new AnnotationConfigApplicationContext(DefaultOrder.class)) {
            Flaky flaky = context.getBean(Flaky.class);
            Bulkhead bulkhead = context.getBean(BulkheadRegistry.class).bulkhead("flaky");

            assertThat(flaky.call()).isEqualTo("ok after 3 attempts");

            assertThat(bulkhead.getPermittedCount()).isEqualTo(3);
            assertThat(bulkhead.getCompletedCount()).isEqualTo(3);
            assertThat(flaky.activeDuringAttempts()).isEqualTo(1);
        }
    }

    @Test
    void theBulkheadStaysInsideRetryWhicheverPostProcessorRunsFirst() {
        try (var context = new AnnotationConfigApplicationContext(RetryFirst.class)) {
            Flaky flaky = context.getBean(Flaky.class);
            Bulkhead bulkhead = context.getBean(BulkheadRegistry.class).bulkhead("flaky");

            flaky.call();

            assertThat(bulkhead.getPermittedCount()).isEqualTo(3);
        }
    }

    @Test
    void beforeExistingAdvisorsPutsTheBulkheadAroundTheRetries() {
        try (var context = new AnnotationConfigApplicationContext(BulkheadOutside.class)) {
            Flaky flaky = context.getBean(Flaky.class);
            Bulkhead bulkhead = context.getBean(BulkheadRegistry.class).bulkhead("flaky");

            assertThat(flaky.call()).isEqualTo("ok after 3 attempts");

            assertThat(bulkhead.getPermittedCount()).isEqualTo(1);
            assertThat(bulkhead.getCompletedCount()).isEqualTo(1);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableResilientMethods
    static class DefaultOrder {

        @Bean
        static BulkheadRegistry bulkheadRegistry() {
            return BulkheadRegistry.builder().config("flaky", BulkheadConfig.custom().maxConcurrentCalls(1).build())
                .build();
        }

        @Bean
        static BulkheadAnnotationBeanPostProcessor bulkheadAnnotationBeanPostProcessor(BulkheadRegistry registry) {
            return new BulkheadAnnotationBeanPostProcessor(registry);
        }

        @Bean
        Flaky flaky(BulkheadRegistry registry) {
            return new Flaky(registry);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableResilientMethods(order = Ordered.HIGHEST_PRECEDENCE)
    static class RetryFirst extends DefaultOrder {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableResilientMethods(order = Ordered.HIGHEST_PRECEDENCE)
    static class BulkheadOutside {

        @Bean
        static BulkheadRegistry bulkheadRegistry() {
            return BulkheadRegistry.builder().config("flaky", BulkheadConfig.custom().maxConcurrentCalls(1).build())
                .build();
        }

        @Bean
        static BulkheadAnnotationBeanPostProcessor bulkheadAnnotationBeanPostProcessor(BulkheadRegistry registry) {
            BulkheadAnnotationBeanPostProcessor postProcessor = new BulkheadAnnotationBeanPostProcessor(registry);
            postProcessor.setBeforeExistingAdvisors(true);
            return postProcessor;
        }

        @Bean
        Flaky flaky(BulkheadRegistry registry) {
            return new Flaky(registry);
        }
    }

    static class Flaky {

        private final BulkheadRegistry registry;

        private final AtomicInteger attempts = new AtomicInteger();

        private final AtomicInteger maxActive = new AtomicInteger();

        Flaky(BulkheadRegistry registry) {
            this.registry = registry;
        }

        @Retryable(maxRetries = 2, delay = 20)
        @io.github.loombulkhead.annotation.Bulkhead("flaky")
        public String call() {
            this.maxActive.accumulateAndGet(this.registry.bulkhead("flaky").getActiveCount(), Math::max);
            int attempt = this.attempts.incrementAndGet();
            if (attempt < 3) {
                throw new IllegalStateException("attempt " + attempt + " fails");
            }
            return "ok after " + attempt + " attempts";
        }

        public int activeDuringAttempts() {
            return this.maxActive.get();
        }
    }
}
