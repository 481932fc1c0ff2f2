package io.github.loombulkhead.autoconfigure.server;

import java.time.Duration;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties;
import io.micrometer.core.instrument.binder.MeterBinder;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.thread.Threading;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;
import org.springframework.util.ClassUtils;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Bounds the requests of a servlet application on virtual threads with bulkheads
 * ({@code loom.bulkhead.server.enabled=true}): a {@link ServerBulkheadFilter} registered just before the servlet ({@link #FILTER_ORDER}), for request and
 * async dispatches, a {@code 503} Problem Details answer to rejected requests unless the application defines
 * its own {@link ServerBulkheadRejectionHandler}, and the {@code loom.bulkhead.server.withdrawn} meter. Active under the same switches as
 * {@link LoomBulkheadAutoConfiguration}.
 */
@AutoConfiguration(after = LoomBulkheadAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ Filter.class, FilterRegistrationBean.class, PathPattern.class, ProblemDetail.class })
@ConditionalOnBooleanProperty(name = "loom.bulkhead.enabled", matchIfMissing = true)
@ConditionalOnThreading(Threading.VIRTUAL)
@ConditionalOnBooleanProperty("loom.bulkhead.server.enabled")
@ConditionalOnBean({ BulkheadRegistry.class, LoomBulkheadProperties.class })
public final class LoomBulkheadServerAutoConfiguration {

    /**
     * Runs after the filters of Spring, Spring Security and those of the application that have an order of their
     * own (they all pass once, before a request waits), just before the servlet. A request that waited is
     * dispatched again as {@code ASYNC}, and a filter after this one (one without an order lands there) would see
     * it only if it is mapped for {@code ASYNC} dispatches and does not skip them.
     */
    public static final int FILTER_ORDER = Ordered.LOWEST_PRECEDENCE - 10;

    private static final String JACKSON = "tools.jackson.databind.json.JsonMapper";

    @Bean
    @ConditionalOnMissingBean
    ServerBulkheadRoutes serverBulkheadRoutes(LoomBulkheadProperties properties, BulkheadRegistry registry,
            Environment environment) {
        return ServerBulkheadRoutes.of(properties.getServer(), registry, (key) -> find(environment, key));
    }

    @Bean
    @ConditionalOnMissingBean
    ServerBulkheadRejectionHandler serverBulkheadRejectionHandler(LoomBulkheadProperties properties) {
        Duration retryAfter = properties.getServer().getRetryAfter();
        if (!ClassUtils.isPresent(JACKSON, getClass().getClassLoader())) {
            // Without Jackson the container's error page says why, with the same status and header.
            return (request, response, rejection) -> {
                response.setHeader(HttpHeaders.RETRY_AFTER, ProblemDetailRejectionHandler.seconds(retryAfter));
                response.sendError(503, rejection.getMessage());
            };
        }
        return new ProblemDetailRejectionHandler(new JacksonJsonHttpMessageConverter(), retryAfter);
    }

    @Bean
    @ConditionalOnMissingBean
    WithdrawnRequests serverBulkheadWithdrawnRequests() {
        return new WithdrawnRequests();
    }

    @Bean
    @ConditionalOnMissingBean(name = "serverBulkheadFilter")
    FilterRegistrationBean<ServerBulkheadFilter> serverBulkheadFilter(LoomBulkheadProperties properties,
            ServerBulkheadRoutes routes, ObjectProvider<ServerBulkheadRejectionHandler> rejectionHandler,
            WithdrawnRequests withdrawn) {
        FilterRegistrationBean<ServerBulkheadFilter> registration = new FilterRegistrationBean<>(
                new ServerBulkheadFilter(routes, rejectionHandler.getObject(), withdrawn,
                        properties.getServer().getDisconnectCheckInterval()));
        registration.setName("serverBulkheadFilter");
        registration.setAsyncSupported(true);
        registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
        registration.setOrder(FILTER_ORDER);
        return registration;
    }

    @Bean
    FiltersAfterBulkheadReporter serverBulkheadFiltersAfterReporter(ListableBeanFactory beanFactory) {
        return new FiltersAfterBulkheadReporter(beanFactory);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterBinder.class)
    static class ServerMetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ServerBulkheadMetrics serverBulkheadMetrics(ServerBulkheadRoutes routes, WithdrawnRequests withdrawn) {
            return new ServerBulkheadMetrics(routes, withdrawn);
        }
    }

    private static ConfigurationProperty find(Environment environment, String key) {
        ConfigurationPropertyName name = ConfigurationPropertyName.of(key);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            ConfigurationProperty property = source.getConfigurationProperty(name);
            if (property != null) {
                return property;
            }
        }
        return null;
    }
}
