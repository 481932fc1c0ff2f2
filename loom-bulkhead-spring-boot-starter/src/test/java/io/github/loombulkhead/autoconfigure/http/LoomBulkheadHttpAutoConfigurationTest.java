package io.github.loombulkhead.autoconfigure.http;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import com.sun.net.httpserver.HttpServer;
import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.BulkheadRegistryCustomizer;
import io.github.loombulkhead.http.Callers;
import io.github.loombulkhead.http.LoopbackServer;
import io.github.loombulkhead.http.LoopbackServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.mock.http.client.MockClientHttpRequest;
import org.springframework.web.client.RestClient;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;
import org.springframework.web.service.registry.ImportHttpServices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/** Bulkheads per HTTP service group and per host from properties alone, over a real server and HttpClient 5. */
@ExtendWith({ LoopbackServerExtension.class, OutputCaptureExtension.class })
class LoomBulkheadHttpAutoConfigurationTest {

    private LoopbackServer callee;

    private ApplicationContextRunner contextRunner;

    @BeforeEach
    void setUp(LoopbackServer callee) {
        this.callee = callee;
        this.contextRunner = HttpServiceApplication.contextRunner(callee, "plain")
            .withUserConfiguration(ClientsConfiguration.class);
    }

    @Test
    void groupBulkheadBoundsEveryCallOfTheGroupAndSizesItsPool() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.http.groups.plain.bulkhead=g", "loom.bulkhead.instances.g.max-concurrent-calls=7")
            .run((context) -> {
                PlainClient client = context.getBean(PlainClient.class);
                Bulkhead g = context.getBean(BulkheadRegistry.class).bulkhead("g");
                // 7 > HttpClient 5's default of 5 connections per route: the pool was sized from the bulkhead.
                HeldCalls.assertExactlyTheLimitReaches(this.callee, g, client::slow);
                assertThat(this.callee.requests()).isEqualTo(8);
                assertThat(g.getCompletedCount()).isEqualTo(8);
            });
    }

    @Test
    void aGroupWhoseInterfacesNameDifferentBulkheadsGetsAPoolForTheirSum() {
        this.contextRunner.withUserConfiguration(TwoBulkheadsConfiguration.class)
            .withPropertyValues("spring.http.serviceclient.two.base-url=" + this.callee.baseUrl(),
                    "loom.bulkhead.instances.reports.max-concurrent-calls=4",
                    "loom.bulkhead.instances.search.max-concurrent-calls=4")
            .run((context) -> {
                ReportsClient reports = context.getBean(ReportsClient.class);
                SearchClient search = context.getBean(SearchClient.class);
                Callers callers = Callers.start(5, reports::slow).andStart(5, search::slow);
                BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                // 4 + 4 at once: more than HttpClient 5's default of 5 per route and than either limit alone.
                await().until(() -> this.callee.concurrent() == 8 && registry.bulkhead("reports").getWaitingCount() == 1
                        && registry.bulkhead("search").getWaitingCount() == 1);
                this.callee.release();
                callers.join();
                assertThat(this.callee.maxConcurrent()).isEqualTo(8);
                assertThat(this.callee.requests()).isEqualTo(10);
            });
    }

    @Test
    void aGroupBulkheadThatAnAnnotationOfTheGroupAlsoNamesFailsStartup() {
        this.contextRunner.withUserConfiguration(TwoBulkheadsConfiguration.class)
            .withPropertyValues("spring.http.serviceclient.two.base-url=" + this.callee.baseUrl(),
                    "loom.bulkhead.http.groups.two.bulkhead=search")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("HTTP service group 'two' is bounded by bulkhead 'search' "
                        + "(loom.bulkhead.http.groups.two)")
                .hasMessageContaining(SearchClient.class.getName())
                .hasMessageContaining("each call would need two permits of 'search'"));
    }

    @Test
    void groupWithoutBulkheadNameUsesTheGroupName() {
        this.contextRunner.withPropertyValues("loom.bulkhead.http.groups.plain.enabled=true").run((context) -> {
            this.callee.release();
            assertThat(context.getBean(PlainClient.class).slow()).isEqualTo("ok");
            assertThat(context.getBean(BulkheadRegistry.class).find("plain"))
                .hasValueSatisfying((bulkhead) -> assertThat(bulkhead.getCompletedCount()).isEqualTo(1));
        });
    }

    @Test
    void unlistedGroupIsNotBounded() {
        this.contextRunner.run((context) -> {
            this.callee.release();
            assertThat(context.getBean(PlainClient.class).slow()).isEqualTo("ok");
            assertThat(context.getBean(BulkheadRegistry.class).getAllBulkheads()).isEmpty();
        });
    }

    @Test
    void configuredGroupThatDoesNotExistIsReported(CapturedOutput output) {
        this.contextRunner.withPropertyValues("loom.bulkhead.http.groups.github.bulkhead=gh").run((context) -> {
            context.getBean(PlainClient.class);
            assertThat(output).contains("loom.bulkhead.http.groups.github is configured but the application has no "
                    + "HTTP service group 'github' (groups: [plain]); no bulkhead was applied");
        });
    }

    @Test
    void perHostBulkheadsBoundRestClientsFromTheAutoConfiguredBuilder() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.http.per-host.enabled=true",
                    "loom.bulkhead.http.per-host.template.max-concurrent-calls=6")
            .run((context) -> {
                RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.callee.baseUrl()).build();
                Callers callers = Callers.start(7, () -> client.get().uri("/held").retrieve().body(String.class));
                BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                await().until(() -> registry.find(this.callee.baseUrl()).isPresent());
                Bulkhead host = registry.find(this.callee.baseUrl()).orElseThrow();
                await().until(() -> this.callee.concurrent() == 6 && host.getWaitingCount() == 1);
                this.callee.release();
                callers.join();
                assertThat(this.callee.maxConcurrent()).isEqualTo(6);
                assertThat(host.getLimit()).isEqualTo(6);
                assertThat(host.getCompletedCount()).isEqualTo(7);
            });
    }

    @Test
    void restClientBuildersWithPerHostBulkheadsShareOneHttpClientAndPool() {
        this.contextRunner.withPropertyValues("loom.bulkhead.http.per-host.enabled=true").run((context) -> {
            // RestClient.Builder is a prototype: each injection point gets a new builder, customized anew.
            List<RestClient.Builder> builders = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                builders.add(context.getBean(RestClient.Builder.class));
            }
            ClientHttpRequestFactory first = ConnectionLimits.requestFactory(builders.get(0));
            assertThat(context.getBean(BulkheadRequestFactories.class).isOwn(first)).isTrue();
            assertThat(builders).allSatisfy((builder) -> assertThat(ConnectionLimits.requestFactory(builder))
                .isSameAs(first));
            this.callee.release();
            RestClient client = builders.get(9).baseUrl(this.callee.baseUrl()).build();
            assertThat(client.get().uri("/held").retrieve().body(String.class)).isEqualTo("ok");
        });
    }

    @Test
    void perHostInstanceSettingsOverrideTheTemplate() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.http.per-host.enabled=true", "loom.bulkhead.http.per-host.name-prefix=host:")
            // The name holds ':' and '/', so it is bracketed, as it would be in application.properties.
            .withInitializer((context) -> context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(
                    "host", Map.of("loom.bulkhead.instances[host:" + this.callee.baseUrl() + "].max-concurrent-calls", "2"))))
            .run((context) -> {
                this.callee.release();
                RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.callee.baseUrl()).build();
                assertThat(client.get().uri("/held").retrieve().body(String.class)).isEqualTo("ok");
                Bulkhead host = context.getBean(BulkheadRegistry.class).find("host:" + this.callee.baseUrl()).orElseThrow();
                assertThat(host.getLimit()).isEqualTo(2);
                assertThat(host.getCompletedCount()).isEqualTo(1);
            });
    }

    @Test
    void aRegistryCustomizersConfigResolverConfiguresThePerHostBulkheadsItAnswers() {
        BulkheadConfig partner = BulkheadConfig.custom().maxConcurrentCalls(3).build();
        this.contextRunner
            .withPropertyValues("loom.bulkhead.http.per-host.enabled=true", "loom.bulkhead.http.per-host.name-prefix=host:")
            .withBean(BulkheadRegistryCustomizer.class, () -> (builder) -> builder
                .configResolver((name) -> name.startsWith("host:http://127.0.0.1:") ? partner : null))
            .run((context) -> {
                this.callee.release();
                RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.callee.baseUrl()).build();
                assertThat(client.get().uri("/held").retrieve().body(String.class)).isEqualTo("ok");
                Bulkhead host = context.getBean(BulkheadRegistry.class).find("host:" + this.callee.baseUrl()).orElseThrow();
                assertThat(host.getLimit()).isEqualTo(3);
                // A host the resolver does not answer gets the template.
                Bulkhead other = context.getBean(PerHostBulkheads.class)
                    .interceptor()
                    .bulkheadFor(new MockClientHttpRequest(HttpMethod.GET, URI.create("https://api.example.com/x")));
                assertThat(other.getLimit()).isEqualTo(100);
            });
    }

    @Test
    void perHostGroupClientKeepsTheGroupsOwnClientSettingsAndASizedPool() {
        // The per-host RestClientCustomizer also runs for service groups; the group's settings must survive it.
        this.contextRunner
            .withPropertyValues("loom.bulkhead.http.per-host.enabled=true",
                    "loom.bulkhead.http.per-host.template.max-concurrent-calls=7",
                    "spring.http.serviceclient.plain.redirects=dont-follow")
            .run((context) -> {
                PlainClient client = context.getBean(PlainClient.class);
                // Open, so that a followed redirect would fail fast instead of waiting at /held.
                this.callee.release();
                assertThat(client.redirect().getStatusCode().value()).as("redirect not followed").isEqualTo(302);
                this.callee.reset();
                Bulkhead host = context.getBean(BulkheadRegistry.class).find(this.callee.baseUrl()).orElseThrow();
                // 7 > HttpClient 5's default of 5 connections per route: Spring Boot's factory got a sized pool.
                HeldCalls.assertExactlyTheLimitReaches(this.callee, host, client::slow);
                assertThat(host.getCompletedCount()).isEqualTo(9);
            });
    }

    @Test
    void globalClientSettingsApplyToPerHostClientsOfTheBuilder() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.http.per-host.enabled=true", "spring.http.clients.redirects=dont-follow")
            .run((context) -> {
                RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.callee.baseUrl()).build();
                this.callee.release();
                assertThat(client.get().uri("/redirect").retrieve().toBodilessEntity().getStatusCode().value())
                    .isEqualTo(302);
                assertThat(client.get().uri("/held").retrieve().body(String.class)).isEqualTo("ok");
                assertThat(context.getBean(BulkheadRegistry.class).find(this.callee.baseUrl()))
                    .hasValueSatisfying((host) -> assertThat(host.getCompletedCount()).isEqualTo(2));
            });
    }

    @ParameterizedTest
    @ValueSource(strings = { "follow", "dont-follow" })
    void a503IsAnsweredAtOnceNotRetriedWhileTheCallHoldsItsPermit(String redirects) {
        // "dont-follow" takes Spring Boot's HttpClient 5 factory with a sized pool; "follow" the starter's own.
        this.contextRunner
            .withPropertyValues("loom.bulkhead.http.per-host.enabled=true", "spring.http.clients.redirects=" + redirects)
            .run((context) -> {
                RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.callee.baseUrl()).build();
                this.callee.reset();
                Integer status = client.get()
                    .uri("/status/503")
                    .exchange((request, response) -> response.getStatusCode().value());
                assertThat(status).isEqualTo(503);
                assertThat(this.callee.requests()).isEqualTo(1);
            });
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "spring.http.clients.cookie-handling=enable" })
    void perHostClientsFollowRedirectsWithinTheirHostOnly(String setting) throws Exception {
        // Without a setting the starter's own pool; cookie handling takes Spring Boot's HttpClient 5 factory.
        HttpServer redirector = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        redirector.createContext("/elsewhere", (exchange) -> {
            exchange.getResponseHeaders().set("Location", this.callee.uri("/held").toString());
            exchange.sendResponseHeaders(302, -1);
            exchange.close();
        });
        redirector.start();
        try {
            this.contextRunner.withPropertyValues("loom.bulkhead.http.per-host.enabled=true", setting).run((context) -> {
                this.callee.release();
                RestClient client = context.getBean(RestClient.Builder.class).build();
                assertThat(client.get().uri(this.callee.uri("/redirect")).retrieve().body(String.class))
                    .isEqualTo("ok");
                this.callee.reset();
                // Another host: answered, so that following it takes that host's permit.
                URI elsewhere = URI.create("http://127.0.0.1:" + redirector.getAddress().getPort() + "/elsewhere");
                assertThat(client.get().uri(elsewhere).retrieve().toBodilessEntity().getStatusCode().value())
                    .isEqualTo(302);
                assertThat(this.callee.requests()).isZero();
            });
        }
        finally {
            redirector.stop(0);
        }
    }

    @Test
    void groupClientFollowsRedirectsByDefault() {
        this.contextRunner.withPropertyValues("loom.bulkhead.http.groups.plain.enabled=true").run((context) -> {
            this.callee.release();
            assertThat(context.getBean(PlainClient.class).redirect().getBody()).isEqualTo("ok");
        });
    }

    @Test
    void theHttpClientsMadeAreClosedWithTheContext() {
        AtomicReference<PlainClient> client = new AtomicReference<>();
        this.callee.release();
        this.contextRunner.withPropertyValues("loom.bulkhead.http.groups.plain.enabled=true").run((context) -> {
            client.set(context.getBean(PlainClient.class));
            assertThat(client.get().slow()).isEqualTo("ok");
        });

        assertThatIllegalStateException().isThrownBy(() -> client.get().slow())
            .withMessageContaining("shut down");
    }

    @Test
    void pooledFactoryBacksOffWhenTheApplicationHasItsOwnRequestFactoryBuilder() {
        this.contextRunner.withBean(ClientHttpRequestFactoryBuilder.class, ClientHttpRequestFactoryBuilder::jdk)
            .run((context) -> assertThat(context).doesNotHaveBean(BulkheadRequestFactories.class)
                .hasSingleBean(BulkheadHttpServiceGroupConfigurer.class));
    }

    @Test
    void pooledFactoryBacksOffWhenAnotherClientIsChosen() {
        this.contextRunner.withPropertyValues("spring.http.clients.imperative.factory=jdk")
            .run((context) -> assertThat(context).doesNotHaveBean(BulkheadRequestFactories.class));
    }

    @Test
    void pooledFactoryIsUsedWhenHttpClient5IsChosenInAnyFormSpringBootBinds() {
        // The environment variable SPRING_HTTP_CLIENTS_IMPERATIVE_FACTORY=HTTP_COMPONENTS, as Kubernetes would set it.
        this.contextRunner
            .withInitializer((context) -> context.getEnvironment().getPropertySources().addFirst(
                    new SystemEnvironmentPropertySource("test-systemEnvironment",
                            Map.of("SPRING_HTTP_CLIENTS_IMPERATIVE_FACTORY", "HTTP_COMPONENTS"))))
            .withPropertyValues("loom.bulkhead.http.groups.plain.bulkhead=g", "loom.bulkhead.instances.g.max-concurrent-calls=7")
            .run((context) -> {
                assertThat(context).hasSingleBean(BulkheadRequestFactories.class);
                PlainClient client = context.getBean(PlainClient.class);
                Bulkhead g = context.getBean(BulkheadRegistry.class).bulkhead("g");
                // 7 > HttpClient 5's default of 5 connections per route: the pool was sized from the bulkhead.
                HeldCalls.assertExactlyTheLimitReaches(this.callee, g, client::slow);
            });
    }

    @Test
    void anotherClientChosenInTheEnvironmentVariableFormIsRespected(CapturedOutput output) {
        this.contextRunner.withPropertyValues("spring.http.clients.imperative.factory=JDK",
                "loom.bulkhead.http.groups.plain.bulkhead=g")
            .run((context) -> {
                assertThat(context).doesNotHaveBean(BulkheadRequestFactories.class);
                context.getBean(PlainClient.class);
                assertThat(output).contains("the application chose another client with "
                        + "spring.http.clients.imperative.factory=JDK");
            });
    }

    @Test
    void perHostBulkheadsOverTheJdkClientAreNotToldToCheckAPerRouteLimitItDoesNotHave(CapturedOutput output) {
        this.contextRunner.withPropertyValues("spring.http.clients.imperative.factory=jdk",
                "loom.bulkhead.http.per-host.enabled=true", "loom.bulkhead.http.per-host.template.max-concurrent-calls=20")
            .run((context) -> assertThat(context).hasNotFailed().hasSingleBean(PerHostBulkheadRestClientCustomizer.class));
        assertThat(output).contains("Per-host bulkheads (loom.bulkhead.http.per-host) allow 20 calls at once per host, "
                + "but loom-bulkhead does not size the connection pool of RestClients built from RestClient.Builder: the "
                + "application chose another client with spring.http.clients.imperative.factory=jdk. Their request "
                + "factory: JdkClientHttpRequestFactory (no limit on connections per route), so no pool limits these "
                + "calls further.")
            .doesNotContain("Make sure their request factory");
    }

    @Test
    void perHostBulkheadsWithoutHttpClient5UseTheJdkClientWithoutAPerRouteLimit(CapturedOutput output) {
        this.contextRunner.withClassLoader(new FilteredClassLoader("org.apache.hc.client5"))
            .withPropertyValues("loom.bulkhead.http.per-host.enabled=true")
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(BulkheadRequestFactories.class));
        assertThat(output).contains("Apache HttpClient 5 is not on the class path. Their request factory: "
                + "JdkClientHttpRequestFactory (no limit on connections per route)")
            .doesNotContain("Make sure their request factory");
    }

    @Test
    void perHostBulkheadsOverAFactoryWithAnUnknownLimitAreToldToCheckIt(CapturedOutput output) {
        this.contextRunner.withPropertyValues("loom.bulkhead.http.pool.enabled=false",
                "loom.bulkhead.http.per-host.enabled=true", "loom.bulkhead.http.per-host.template.max-concurrent-calls=20")
            .run((context) -> assertThat(context).hasNotFailed());
        assertThat(output).contains("loom.bulkhead.http.pool.enabled=false. Make sure their request factory allows at "
                + "least 20 connections per route.");
    }

    @Test
    void pooledFactoryCanBeSwitchedOff() {
        this.contextRunner.withPropertyValues("loom.bulkhead.http.pool.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(BulkheadRequestFactories.class));
    }

    @Configuration(proxyBeanMethods = false)
    @ImportHttpServices(group = "plain", types = PlainClient.class)
    static class ClientsConfiguration {

    }

    @Configuration(proxyBeanMethods = false)
    @ImportHttpServices(group = "two", types = { ReportsClient.class, SearchClient.class })
    static class TwoBulkheadsConfiguration {

    }

    @io.github.loombulkhead.annotation.Bulkhead("reports")
    @HttpExchange
    interface ReportsClient {

        @GetExchange("/held")
        String slow();
    }

    @io.github.loombulkhead.annotation.Bulkhead("search")
    @HttpExchange
    interface SearchClient {

        @GetExchange("/held")
        String slow();
    }
}
