package io.github.loombulkhead.autoconfigure.server;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.InvalidBulkheadPropertyException;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.github.loombulkhead.autoconfigure.LoomBulkheadInactiveAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.DispatcherType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** When the inbound bulkhead is set up, how it binds its keys, and what a bad value or an inactive starter says. */
@ExtendWith(OutputCaptureExtension.class)
class LoomBulkheadServerAutoConfigurationTest {

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class,
                LoomBulkheadInactiveAutoConfiguration.class, LoomBulkheadServerAutoConfiguration.class))
        .withPropertyValues("spring.threads.virtual.enabled=true");

    @Test
    void offUnlessEnabled() {
        this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(ServerBulkheadRoutes.class)
            .doesNotHaveBean("serverBulkheadFilter"));
    }

    @Test
    void enabledRegistersAnAsyncFilterForRequestAndAsyncDispatches() {
        this.contextRunner.withPropertyValues("loom.bulkhead.server.enabled=true").run((context) -> {
            FilterRegistrationBean<?> registration = context.getBean("serverBulkheadFilter",
                    FilterRegistrationBean.class);
            assertThat(registration.getFilter()).isInstanceOf(ServerBulkheadFilter.class);
            assertThat(registration.isAsyncSupported()).isTrue();
            assertThat(registration.determineDispatcherTypes()).containsExactlyInAnyOrder(DispatcherType.REQUEST,
                    DispatcherType.ASYNC);
            assertThat(registration.getOrder()).isEqualTo(LoomBulkheadServerAutoConfiguration.FILTER_ORDER);
            assertThat(context).getBean(ServerBulkheadRejectionHandler.class)
                .isInstanceOf(ProblemDetailRejectionHandler.class);
            // The bulkhead exists from the start, so metrics and the endpoint show it before the first request.
            assertThat(context.getBean(BulkheadRegistry.class).find("server")).isPresent();
        });
    }

    @Test
    void routesBindAndCreateTheirBulkheads() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.server.enabled=true", "loom.bulkhead.server.bulkhead=inbound",
                    "loom.bulkhead.server.routes[0].pattern=/reports/**",
                    "loom.bulkhead.server.routes[0].bulkhead=reports",
                    "loom.bulkhead.instances.reports.max-concurrent-calls=3")
            .run((context) -> {
                BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                assertThat(registry.find("inbound")).isPresent();
                assertThat(registry.find("server")).isEmpty();
                assertThat(registry.find("reports")).hasValueSatisfying(
                        (reports) -> assertThat(reports.getLimit()).isEqualTo(3));
            });
    }

    @Test
    void withdrawnMeterHasASeriesPerBulkheadAndReasonFromTheStart() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.server.enabled=true", "loom.bulkhead.server.routes[0].pattern=/r/**",
                    "loom.bulkhead.server.routes[0].bulkhead=reports", "loom.bulkhead.server.routes[1].pattern=/s/**",
                    "loom.bulkhead.server.routes[1].bulkhead=reports")
            .run((context) -> {
                MeterRegistry registry = new SimpleMeterRegistry();
                context.getBean(ServerBulkheadMetrics.class).bindTo(registry);
                assertThat(registry.find(ServerBulkheadMetrics.WITHDRAWN).functionCounters()).hasSize(4)
                    .allSatisfy((counter) -> assertThat(counter.count()).isZero());
                assertThat(registry.get(ServerBulkheadMetrics.WITHDRAWN)
                    .tags("name", "reports", "reason", "client-disconnected")
                    .functionCounter()
                    .getId()
                    .getBaseUnit()).isEqualTo("requests");
                assertThat(registry.get(ServerBulkheadMetrics.WITHDRAWN)
                    .tags("name", "server", "reason", "request-ended")
                    .functionCounter()).isNotNull();
                PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
                context.getBean(ServerBulkheadMetrics.class).bindTo(prometheus);
                assertThat(prometheus.scrape()).contains(
                        "loom_bulkhead_server_withdrawn_requests_total{name=\"reports\",reason=\"client-disconnected\"} 0.0");
            });
    }

    @Test
    void configuredServerAndRouteBulkheadsCountAsUsed(CapturedOutput output) {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.server.enabled=true", "loom.bulkhead.server.routes[0].pattern=/r/**",
                    "loom.bulkhead.server.routes[0].bulkhead=reports",
                    "loom.bulkhead.instances.reports.max-concurrent-calls=3",
                    "loom.bulkhead.instances.server.max-concurrent-calls=50",
                    "loom.bulkhead.instances.unused.max-concurrent-calls=1")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(output).contains("Bulkhead 'unused' is configured")
                    .doesNotContain("Bulkhead 'server' is configured")
                    .doesNotContain("Bulkhead 'reports' is configured");
            });
    }

    @Test
    void applicationRejectionHandlerReplacesTheDefault() {
        this.contextRunner.withPropertyValues("loom.bulkhead.server.enabled=true")
            .withUserConfiguration(OwnRejectionHandler.class)
            .run((context) -> assertThat(context).getBean(ServerBulkheadRejectionHandler.class)
                .isSameAs(context.getBean("ownHandler")));
    }

    @Test
    void invalidPatternNamesItsKey() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.server.enabled=true", "loom.bulkhead.server.routes[0].pattern=/a/**/b",
                    "loom.bulkhead.server.routes[0].bulkhead=a")
            .run((context) -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOfSatisfying(InvalidBulkheadPropertyException.class, (ex) -> {
                    assertThat(ex.getProperty()).isEqualTo("loom.bulkhead.server.routes[0].pattern");
                    assertThat(ex.getValue()).isEqualTo("/a/**/b");
                    assertThat(ex.getReason()).startsWith("is not a path pattern");
                    assertThat(ex.getFix()).contains("PathPattern syntax");
                }));
    }

    @Test
    void routeWithoutBulkheadNamesItsKey() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.server.enabled=true", "loom.bulkhead.server.routes[0].pattern=/a/**")
            .run((context) -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOfSatisfying(InvalidBulkheadPropertyException.class, (ex) -> {
                    assertThat(ex.getProperty()).isEqualTo("loom.bulkhead.server.routes[0].bulkhead");
                    assertThat(ex.getReason()).isEqualTo("a bulkhead name must not be blank");
                }));
    }

    @Test
    void negativeRetryAfterNamesItsKeyAsWritten() {
        this.contextRunner.withPropertyValues("loom.bulkhead.server.enabled=true", "loom.bulkhead.server.retry-after=-2s")
            .run((context) -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOfSatisfying(InvalidBulkheadPropertyException.class, (ex) -> {
                    assertThat(ex.getProperty()).isEqualTo("loom.bulkhead.server.retry-after");
                    assertThat(ex.getValue()).isEqualTo("-2s");
                }));
    }

    @Test
    void negativeDisconnectCheckIntervalNamesItsKeyAsWritten() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.server.enabled=true",
                    "loom.bulkhead.server.disconnect-check-interval=-1s")
            .run((context) -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOfSatisfying(InvalidBulkheadPropertyException.class, (ex) -> {
                    assertThat(ex.getProperty()).isEqualTo("loom.bulkhead.server.disconnect-check-interval");
                    assertThat(ex.getValue()).isEqualTo("-1s");
                    assertThat(ex.getFix()).contains("or to 0 to check no connections");
                }));
    }

    @Test
    void notAServletApplicationWarnsThatRequestsAreNotBounded(CapturedOutput output) {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class,
                    LoomBulkheadServerAutoConfiguration.class, LoomBulkheadServerWarningAutoConfiguration.class))
            .withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.server.enabled=true")
            .run((context) -> {
                assertThat(context).doesNotHaveBean(ServerBulkheadRoutes.class);
                assertThat(output).containsOnlyOnce("loom.bulkhead.server.enabled is true but this is not a "
                        + "servlet web application, so no requests are bounded");
            });
    }

    @Test
    void aReactiveApplicationWarnsToo(CapturedOutput output) {
        new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class,
                    LoomBulkheadServerAutoConfiguration.class, LoomBulkheadServerWarningAutoConfiguration.class))
            .withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.server.enabled=true")
            .run((context) -> assertThat(output).contains("this is not a servlet web application"));
    }

    @Test
    void aServletApplicationOrAnInactiveStarterDoesNotSayNotServlet(CapturedOutput output) {
        this.contextRunner.withConfiguration(AutoConfigurations.of(LoomBulkheadServerWarningAutoConfiguration.class))
            .withPropertyValues("loom.bulkhead.server.enabled=true")
            .run((context) -> assertThat(context).hasBean("serverBulkheadFilter"));
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class,
                    LoomBulkheadInactiveAutoConfiguration.class, LoomBulkheadServerWarningAutoConfiguration.class))
            .withPropertyValues("loom.bulkhead.server.enabled=true")
            .run((context) -> assertThat(output).contains("loom-bulkhead is INACTIVE"));
        assertThat(output).doesNotContain("not a servlet web application");
    }

    @Test
    void platformThreadsWarnThatRequestsAreNotBounded(CapturedOutput output) {
        this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=false", "loom.bulkhead.server.enabled=true")
            .run((context) -> {
                assertThat(context).doesNotHaveBean(ServerBulkheadRoutes.class);
                assertThat(output).contains("loom.bulkhead.server.enabled is true but loom-bulkhead is INACTIVE, so "
                        + "requests are NOT bounded: virtual threads are off. Set spring.threads.virtual.enabled=true");
            });
    }

    @Test
    void noWarningWhenTheServerBulkheadIsNotAskedFor(CapturedOutput output) {
        this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=false")
            .run((context) -> assertThat(output).doesNotContain("requests are NOT bounded"));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRejectionHandler {

        @Bean
        ServerBulkheadRejectionHandler ownHandler() {
            return (request, response, rejection) -> response.sendError(429);
        }
    }
}
