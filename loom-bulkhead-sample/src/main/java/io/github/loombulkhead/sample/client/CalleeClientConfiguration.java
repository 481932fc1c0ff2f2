package io.github.loombulkhead.sample.client;

import java.nio.file.Path;
import java.util.List;

import io.github.loombulkhead.sample.SampleProperties;
import io.github.loombulkhead.sample.Scenario;
import io.github.loombulkhead.sample.launch.ManagedCallee;
import io.github.loombulkhead.sample.measure.HttpExchangeCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;
import org.springframework.web.service.registry.ImportHttpServices;

/**
 * The caller's clients of the callee: HTTP interfaces in the {@code callee} service group on a RestClient
 * over Apache HttpClient 5, configured like the reference (a pool that is never the bottleneck, connect
 * timeout, read timeout, validation after 5 s of inactivity, idle eviction after 60 s). Starts the callee
 * in its own JVM once the context is up, unless {@code loom.sample.callee.url} points at a running one.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "loom.sample.role", havingValue = "caller", matchIfMissing = true)
@ImportHttpServices(group = CalleeClientConfiguration.GROUP, types = { SlowApi.class, BulkheadedSlowApi.class,
        AdaptiveSlowApi.class, ClusterSlowApi.class })
public class CalleeClientConfiguration {

    /** The HTTP service group of the callee's clients. */
    public static final String GROUP = "callee";

    @Bean(destroyMethod = "close")
    CalleeEndpoint calleeEndpoint(SampleProperties properties, Scenario scenario) {
        SampleProperties.Callee callee = properties.callee();
        if (callee.url() != null) {
            return CalleeEndpoint.external(callee.url());
        }
        List<String> arguments = List.of("--loom.sample.callee.capacity=" + scenario.calleeCapacity(),
                "--loom.sample.callee.latency=" + scenario.calleeLatency().toMillis() + "ms");
        Path log = properties.reportDir().resolve("callee.log");
        ManagedCallee.Settings settings = new ManagedCallee.Settings(callee.port(), callee.jvmArguments(),
                callee.startupTimeout());
        return CalleeEndpoint.managed(() -> ManagedCallee.start(settings, arguments, log));
    }

    @Bean
    CalleeStarter calleeStarter(CalleeEndpoint callee) {
        return new CalleeStarter(callee);
    }

    @Bean
    HttpExchangeCounter httpExchangeCounter() {
        return new HttpExchangeCounter();
    }

    @Bean
    MeterBinder calleeCallsInFlightMetrics(HttpExchangeCounter counter) {
        return (registry) -> Gauge.builder("loom.sample.calls.in.flight", counter, HttpExchangeCounter::inFlight)
            .description("HTTP exchanges with the callee in progress")
            .register(registry);
    }

    /**
     * Connections the caller may open to the callee: as many as requests, at least the reference's 1,000, and at
     * least what the {@code @Bulkhead} clients of the group may hold at once (the static limit of {@code callee} and
     * of {@code callee-cluster}, plus the adaptive ceiling), so that the pool never limits a mode. The cluster
     * bulkhead counts whether or not its mode runs: it is part of the group, and connections open only when used.
     */
    public static int poolSize(Scenario scenario) {
        return Math.max(Math.max(1_000, scenario.requests()), 2 * scenario.limit() + scenario.adaptiveMaxLimit());
    }

    @Bean(destroyMethod = "close")
    PoolingHttpClientConnectionManager calleeConnectionManager(Scenario scenario) {
        int poolSize = poolSize(scenario);
        return PoolingHttpClientConnectionManagerBuilder.create()
            .setMaxConnTotal(poolSize)
            .setMaxConnPerRoute(poolSize)
            .setDefaultConnectionConfig(ConnectionConfig.custom()
                .setConnectTimeout(Timeout.of(scenario.connectTimeout()))
                .setSocketTimeout(Timeout.of(scenario.readTimeout()))
                .setValidateAfterInactivity(TimeValue.ofSeconds(5))
                .build())
            .build();
    }

    @Bean(destroyMethod = "close")
    CloseableHttpClient calleeHttpClient(PoolingHttpClientConnectionManager connections, Scenario scenario) {
        // No connection-request timeout is set on purpose (as in the reference): the pool is never exhausted,
        // so the callee stays the only bottleneck.
        return HttpClients.custom()
            .setConnectionManager(connections)
            .setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(Timeout.of(scenario.readTimeout())).build())
            .evictIdleConnections(TimeValue.ofSeconds(60))
            .build();
    }

    @Bean
    RestClientHttpServiceGroupConfigurer calleeGroupConfigurer(CalleeEndpoint callee, CloseableHttpClient httpClient,
            HttpExchangeCounter counter) {
        return (groups) -> groups.filterByName(GROUP)
            .forEachClient((group, builder) -> builder.uriBuilderFactory(new CalleeUriBuilderFactory(callee))
                .requestFactory(new HttpComponentsClientHttpRequestFactory(httpClient))
                .requestInterceptor(counter));
    }

    @Bean
    CalleeCalls calleeCalls(SlowApi api, BulkheadedSlowApi bulkheadedApi, AdaptiveSlowApi adaptiveApi,
            ClusterSlowApi clusterApi, PoolingHttpClientConnectionManager connections) {
        return new CalleeCalls(api, bulkheadedApi, adaptiveApi, clusterApi, connections);
    }
}
