package io.github.loombulkhead.autoconfigure.http;


import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.http.Callers;
import io.github.loombulkhead.http.LoopbackServer;
import io.github.loombulkhead.http.LoopbackServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.HttpComponentsClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.autoconfigure.ClientHttpRequestFactoryBuilderCustomizer;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;
import org.springframework.web.service.registry.ImportHttpServices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A request factory the application chose itself is never replaced by the pool-sizing one, an unsized pool is
 * reported with the bulkhead limit and the pool's own limit, clients of a group without a bulkhead are not capped
 * by the group's sized pool, and the application's ClientHttpRequestFactoryBuilderCustomizer beans apply.
 */
@ExtendWith({ LoopbackServerExtension.class, OutputCaptureExtension.class })
class ApplicationRequestFactoryTest {

    private LoopbackServer callee;

    /** Group "mixed": CalleeClient, bounded by @Bulkhead("x"), and PlainClient, bounded by nothing. */
    private ApplicationContextRunner contextRunner;

    @BeforeEach
    void setUp(LoopbackServer callee) {
        this.callee = callee;
        this.contextRunner = HttpServiceApplication.contextRunner(callee, "mixed")
            .withUserConfiguration(MixedGroupConfiguration.class)
            .withPropertyValues("loom.bulkhead.instances.x.max-concurrent-calls=2");
    }

    @Test
    void aFactorySetByTheApplicationsGroupConfigurerIsKeptAndReported(CapturedOutput output) {
        this.contextRunner
            .withBean("jdkGroups", RestClientHttpServiceGroupConfigurer.class,
                    () -> (groups) -> groups.forEachClient((group, builder) ->
                            builder.requestFactory(new JdkClientHttpRequestFactory())))
            .run((context) -> {
                this.callee.release();
                assertThat(context.getBean(CalleeClient.class).slow()).isEqualTo("ok");
                assertThat(this.callee.userAgents()).singleElement().asString().startsWith("Java-http-client");
                assertThat(output).contains("HTTP service group 'mixed' is bounded by @Bulkhead [x] (2 calls at "
                        + "once per host) but loom-bulkhead did not size its connection pool: the application set "
                        + "its own request factory on the client's RestClient.Builder")
                    .contains("Its request factory: JdkClientHttpRequestFactory (no limit on connections per route).");
            });
    }

    @Test
    void aFactorySetByTheApplicationsRestClientCustomizerIsKept(CapturedOutput output) {
        this.contextRunner
            .withBean("jdkClients", RestClientCustomizer.class,
                    () -> (builder) -> builder.requestFactory(new JdkClientHttpRequestFactory()))
            .run((context) -> {
                this.callee.release();
                assertThat(context.getBean(CalleeClient.class).slow()).isEqualTo("ok");
                assertThat(this.callee.userAgents()).singleElement().asString().startsWith("Java-http-client");
                assertThat(output).contains("HTTP service group 'mixed' is bounded by @Bulkhead [x]")
                    .contains("JdkClientHttpRequestFactory (no limit on connections per route)");
            });
    }

    @Test
    void aFactorySetByTheApplicationsRestClientCustomizerWinsOverPerHostSizing() {
        this.contextRunner.withPropertyValues("loom.bulkhead.http.per-host.enabled=true")
            .withBean("jdkClients", RestClientCustomizer.class,
                    () -> (builder) -> builder.requestFactory(new JdkClientHttpRequestFactory()))
            .run((context) -> {
                this.callee.release();
                RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.callee.baseUrl()).build();
                assertThat(client.get().uri("/held").retrieve().body(String.class)).isEqualTo("ok");
                assertThat(this.callee.userAgents()).singleElement().asString().startsWith("Java-http-client");
                // Still bounded per host: only the factory is the application's.
                assertThat(context.getBean(BulkheadRegistry.class).find(this.callee.baseUrl()))
                    .hasValueSatisfying((host) -> assertThat(host.getCompletedCount()).isEqualTo(1));
            });
    }

    @Test
    void anUnsizedPoolSmallerThanTheLimitIsAWarningWithBothLimits(CapturedOutput output) {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.http.pool.enabled=false", "loom.bulkhead.instances.x.max-concurrent-calls=7")
            .run((context) -> {
                context.getBean(CalleeClient.class);
                assertThat(output).contains("WARN")
                    .contains("HTTP service group 'mixed' is bounded by @Bulkhead [x] (7 calls at once per host) but "
                            + "loom-bulkhead did not size its connection pool: loom.bulkhead.http.pool.enabled=false. "
                            + "Its request factory: HttpComponentsClientHttpRequestFactory (5 connections per route). "
                            + "Calls holding a permit beyond 5 per host wait again for a connection")
                    .contains("allow at least 7 connections per route in that factory.");
            });
    }

    @Test
    void anotherClientChosenByPropertyIsReportedWithTheProperty(CapturedOutput output) {
        this.contextRunner.withPropertyValues("spring.http.clients.imperative.factory=jdk").run((context) -> {
            context.getBean(CalleeClient.class);
            assertThat(output).contains("did not size its connection pool: the application chose another client "
                    + "with spring.http.clients.imperative.factory=jdk. Its request factory: "
                    + "JdkClientHttpRequestFactory (no limit on connections per route).");
        });
    }

    @Test
    void theApplicationsRequestFactoryBuilderBeanIsReported(CapturedOutput output) {
        this.contextRunner.withBean(ClientHttpRequestFactoryBuilder.class, ClientHttpRequestFactoryBuilder::simple)
            .run((context) -> {
                this.callee.release();
                assertThat(context.getBean(CalleeClient.class).slow()).isEqualTo("ok");
                assertThat(output).contains("did not size its connection pool: the application defines its own "
                        + "ClientHttpRequestFactoryBuilder or ClientHttpRequestFactory bean. Its request factory: "
                        + "SimpleClientHttpsRequestFactory (no limit on connections per route).");
            });
    }

    @Test
    void clientsOfTheGroupWithoutABulkheadKeepADefaultPoolBesideTheBoundedCalls() {
        this.contextRunner.run((context) -> {
            CalleeClient bounded = context.getBean(CalleeClient.class);
            PlainClient unbounded = context.getBean(PlainClient.class);
            Bulkhead x = context.getBean(BulkheadRegistry.class).bulkhead("x");
            Callers callers = Callers.start(3, bounded::slow);
            await().until(() -> this.callee.concurrent() == 2 && x.getWaitingCount() == 1);
            callers.andStart(6, unbounded::slow);
            // Beside the 2 bounded calls, the unbounded ones get HttpClient 5's default 5 per route, not the limit.
            await().until(() -> this.callee.concurrent() == 7);
            this.callee.release();
            callers.join();
            assertThat(this.callee.maxConcurrent()).isEqualTo(7);
            assertThat(this.callee.requests()).isEqualTo(9);
            assertThat(x.getCompletedCount()).isEqualTo(3);
        });
    }

    @Test
    void theApplicationsRequestFactoryBuilderCustomizersApplyToTheSizedPool(CapturedOutput output) {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.http.groups.mixed.bulkhead=g", "loom.bulkhead.instances.g.max-concurrent-calls=7")
            .withBean("userAgent", ClientHttpRequestFactoryBuilderCustomizer.class,
                    () -> (ClientHttpRequestFactoryBuilderCustomizer<HttpComponentsClientHttpRequestFactoryBuilder>) (
                            builder) -> builder.withHttpClientCustomizer((client) -> client.setUserAgent("customized")))
            .run((context) -> {
                PlainClient client = context.getBean(PlainClient.class);
                Bulkhead g = context.getBean(BulkheadRegistry.class).bulkhead("g");
                // 7 > HttpClient 5's default of 5 per route: the customized factory still has the sized pool.
                HeldCalls.assertExactlyTheLimitReaches(this.callee, g, client::slow);
                assertThat(this.callee.userAgents()).containsExactly("customized");
                assertThat(output).contains("HTTP client of service group 'mixed' uses Spring Boot's HttpClient 5 "
                        + "factory to apply the ClientHttpRequestFactoryBuilderCustomizer beans");
            });
    }

    @Test
    void aPoolSizeSetByTheApplicationsCustomizerWinsAndIsReported(CapturedOutput output) {
        this.contextRunner
            .withBean("smallPool", ClientHttpRequestFactoryBuilderCustomizer.class,
                    () -> (ClientHttpRequestFactoryBuilderCustomizer<HttpComponentsClientHttpRequestFactoryBuilder>) (
                            builder) -> builder.withConnectionManagerCustomizer((pool) -> pool.setMaxConnPerRoute(1)))
            .run((context) -> {
                context.getBean(CalleeClient.class);
                assertThat(output).contains("HTTP service group 'mixed' is bounded by @Bulkhead [x] (2 calls at once "
                        + "per host) but loom-bulkhead could not size its connection pool: the application's "
                        + "ClientHttpRequestFactoryBuilderCustomizer beans set a smaller pool. Its request factory: "
                        + "HttpComponentsClientHttpRequestFactory (1 connection per route). Calls holding a permit "
                        + "beyond 1 per host wait again");
            });
    }

    @Test
    void perHostBulkheadsApplyTheCustomizersToTheBuildersFactory() {
        this.contextRunner.withPropertyValues("loom.bulkhead.http.per-host.enabled=true")
            .withBean("userAgent", ClientHttpRequestFactoryBuilderCustomizer.class,
                    () -> (ClientHttpRequestFactoryBuilderCustomizer<HttpComponentsClientHttpRequestFactoryBuilder>) (
                            builder) -> builder.withHttpClientCustomizer((client) -> client.setUserAgent("customized")))
            .run((context) -> {
                this.callee.release();
                RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.callee.baseUrl()).build();
                assertThat(client.get().uri("/held").retrieve().body(String.class)).isEqualTo("ok");
                assertThat(context.getBean(PlainClient.class).slow()).isEqualTo("ok");
                assertThat(this.callee.userAgents()).containsExactly("customized");
            });
    }

    @Configuration(proxyBeanMethods = false)
    @ImportHttpServices(group = "mixed", types = { CalleeClient.class, PlainClient.class })
    static class MixedGroupConfiguration {

    }
}
