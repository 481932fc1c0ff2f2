package io.github.loombulkhead.benchmarks.jmh;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.resilience.annotation.ConcurrencyLimit;
import org.springframework.resilience.annotation.EnableResilientMethods;

/** A Spring context with one {@code @ConcurrencyLimit(100)} bean, the way Spring Framework 7 users limit a method. */
@Configuration(proxyBeanMethods = false)
@EnableResilientMethods
public class SpringConcurrencyLimitConfiguration {

    @Bean
    LimitedCallee limitedCallee() {
        return new LimitedCallee();
    }

    /** The limited bean: a class without interface, so Spring proxies it with CGLIB as in most applications. */
    public static class LimitedCallee {

        private int count;

        /** Returns a running count, so the call cannot be optimised away. */
        @ConcurrencyLimit(100)
        public int call() {
            return ++this.count;
        }
    }
}
