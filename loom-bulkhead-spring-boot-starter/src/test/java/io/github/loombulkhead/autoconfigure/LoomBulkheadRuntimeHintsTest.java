package io.github.loombulkhead.autoconfigure;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeHint;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/** The starter's hints for a native image: exactly what it looks up by name or reads reflectively. */
class LoomBulkheadRuntimeHintsTest {

    private static final SpringFactoriesLoader AOT_FACTORIES = SpringFactoriesLoader
        .forResourceLocation("META-INF/spring/aot.factories");

    @Test
    void registeredForAheadOfTimeProcessing() {
        assertThat(AOT_FACTORIES.load(RuntimeHintsRegistrar.class))
            .hasAtLeastOneElementOfType(LoomBulkheadRuntimeHints.class);
        assertThat(AOT_FACTORIES.load(BeanFactoryInitializationAotProcessor.class))
            .hasAtLeastOneElementOfType(DropExceptionTypesAotProcessor.class);
    }

    @Test
    void theClassesLookedUpByNameAndTheFieldsRead() {
        RuntimeHints hints = new RuntimeHints();
        new LoomBulkheadRuntimeHints().registerHints(hints, getClass().getClassLoader());
        assertThat(hints.reflection().typeHints().map(TypeHint::getType).map(TypeReference::getName))
            .containsExactlyInAnyOrder("org.slf4j.MDC", "io.micrometer.context.ContextSnapshotFactory",
                    "org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager",
                    "org.apache.hc.client5.http.impl.classic.HttpClients",
                    "org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientsProperties$Factory",
                    "tools.jackson.databind.json.JsonMapper",
                    "io.github.loombulkhead.annotation.BulkheadAnnotationBeanPostProcessor",
                    "io.github.loombulkhead.redis.ClusterBulkheads",
                    "org.springframework.web.client.DefaultRestClientBuilder",
                    "org.apache.hc.client5.http.impl.classic.InternalHttpClient",
                    "org.apache.hc.client5.http.impl.classic.MinimalHttpClient");
        for (Map.Entry<String, String> field : Map.of("org.springframework.web.client.DefaultRestClientBuilder",
                "requestFactory", "org.apache.hc.client5.http.impl.classic.InternalHttpClient", "connManager",
                "org.apache.hc.client5.http.impl.classic.MinimalHttpClient", "connManager").entrySet()) {
            try {
                assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(field.getKey(), field.getValue()))
                    .accepts(hints);
            }
            catch (ClassNotFoundException ex) {
                throw new AssertionError(ex);
            }
        }
    }

    @Test
    void classesMissingAtBuildTimeGetNoHint() {
        RuntimeHints hints = new RuntimeHints();
        ClassLoader withoutRedisOrJackson = new ClassLoader(getClass().getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (name.startsWith("io.github.loombulkhead.redis.") || name.startsWith("tools.jackson.")) {
                    throw new ClassNotFoundException(name);
                }
                return super.loadClass(name, resolve);
            }
        };
        new LoomBulkheadRuntimeHints().registerHints(hints, withoutRedisOrJackson);
        assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of("io.github.loombulkhead.redis.ClusterBulkheads")))
            .rejects(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of("tools.jackson.databind.json.JsonMapper")))
            .rejects(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of("org.slf4j.MDC"))).accepts(hints);
    }

    @Test
    void dropExceptionsNamedInEveryPlaceAndForm() {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources()
            .addFirst(new MapPropertySource("test", Map.of(
                    "loom.bulkhead.defaults.adaptive.drop-exceptions", "java.net.ConnectException, java.io.IOException",
                    "loom.bulkhead.instances.a.adaptive.drop-exceptions[0]", "java.io.UncheckedIOException",
                    "loom.bulkhead.instances.a.adaptive.drop-exceptions[1]", " ",
                    "loom.bulkhead.instances[b.c].adaptive.dropExceptions", "java.lang.IllegalStateException",
                    "loom.bulkhead.http.per-host.template.adaptive.drop-exceptions", "java.net.SocketException",
                    "loom.bulkhead.instances.d.adaptive.drop-exceptions", "${not.set}",
                    "loom.bulkhead.instances.e.adaptive.enabled", "true",
                    "other.adaptive.drop-exceptions", "java.lang.Error")));
        assertThat(DropExceptionTypesAotProcessor.dropExceptions(environment)).containsExactly("java.io.IOException",
                "java.io.UncheckedIOException", "java.lang.IllegalStateException", "java.net.ConnectException",
                "java.net.SocketException");
    }
}
