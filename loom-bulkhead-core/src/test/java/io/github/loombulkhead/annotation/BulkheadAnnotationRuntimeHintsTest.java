package io.github.loombulkhead.annotation;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.web.service.annotation.HttpExchange;

import static org.assertj.core.api.Assertions.assertThat;

/** What a native image needs for {@code @Bulkhead}: the class looked up by name, and the bounded methods. */
class BulkheadAnnotationRuntimeHintsTest {

    @Test
    void registeredForAheadOfTimeProcessing() {
        assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
            .load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(BulkheadAnnotationRuntimeHints.class);
    }

    @Test
    void theClassLookedUpByNameAndNothingElse() {
        RuntimeHints hints = new RuntimeHints();
        new BulkheadAnnotationRuntimeHints().registerHints(hints, getClass().getClassLoader());
        assertThat(RuntimeHintsPredicates.reflection().onType(HttpExchange.class)).accepts(hints);
        assertThat(hints.reflection().typeHints().map((hint) -> hint.getType()))
            .containsExactly(TypeReference.of(ReturnTypeCheck.HTTP_EXCHANGE));
    }

    @Test
    void annotatedMethodsAreRegisteredForTheProxyToInvoke() {
        RuntimeHints hints = new RuntimeHints();
        new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, Service.class);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Service.class, "bounded")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Service.class, "unbounded")).rejects(hints);
    }

    static class Service {

        @Bulkhead("svc")
        public String bounded() {
            return "ok";
        }

        public String unbounded() {
            return "ok";
        }
    }
}
