package io.github.loombulkhead.autoconfigure.http;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.BulkheadConfigMapper;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;
import io.github.loombulkhead.http.PooledHttpRequestFactories;
import org.apache.hc.client5.http.impl.classic.HttpClients;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.JdkClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.SimpleClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.autoconfigure.ClientHttpRequestFactoryBuilderCustomizer;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientProperties;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.util.ClassUtils;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;

/**
 * Bulkheads on RestClients from configuration alone: per HTTP service group
 * ({@code loom.bulkhead.http.groups.<group>}) and per target host for clients built from the
 * auto-configured {@code RestClient.Builder} ({@code loom.bulkhead.http.per-host.enabled}), with a pooled
 * HttpClient 5 request factory sized from the limits when the application chose none. Ordered before
 * Spring Boot's HTTP client auto-configuration so "chose none" means the application's own beans only; a factory
 * the application sets on a client's builder is never replaced either (see {@link
 * BulkheadPoolHttpServiceGroupConfigurer}, {@link PerHostBulkheadRestClientCustomizer}). Active under the same
 * switches as {@link LoomBulkheadAutoConfiguration}, even when the application defines its own registry.
 */
@AutoConfiguration(after = LoomBulkheadAutoConfiguration.class,
        beforeName = "org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration")
@ConditionalOnClass({ RestClient.class, BulkheadClientHttpRequestInterceptor.class })
@ConditionalOnBooleanProperty(name = "loom.bulkhead.enabled", matchIfMissing = true)
@ConditionalOnThreading(Threading.VIRTUAL)
@ConditionalOnBean(BulkheadRegistry.class)
public final class LoomBulkheadHttpAutoConfiguration {

    private static final Log logger = LogFactory.getLog(LoomBulkheadHttpAutoConfiguration.class);

    private static final String IMPERATIVE_FACTORY = "org.springframework.boot.http.client.autoconfigure.imperative."
            + "ImperativeHttpClientsProperties$Factory";

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty("loom.bulkhead.http.per-host.enabled")
    PerHostBulkheads perHostBulkheads(LoomBulkheadProperties properties, BulkheadConfigMapper mapper,
            BulkheadRegistry registry) {
        LoomBulkheadProperties.PerHost perHost = properties.getHttp().getPerHost();
        return PerHostBulkheads.of(registry, perHost.getNamePrefix(), mapper.perHostTemplate(), perHost.getMaxHosts());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClientHttpServiceGroupConfigurer.class)
    static class ServiceGroupConfiguration {

        @Bean
        @ConditionalOnMissingBean
        BulkheadHttpServiceGroupConfigurer bulkheadHttpServiceGroupConfigurer(LoomBulkheadProperties properties,
                BulkheadRegistry registry, ObjectProvider<BulkheadRequestFactories> requestFactories,
                ObjectProvider<PerHostBulkheads> perHost, Environment environment, ResourceLoader resourceLoader) {
            return new BulkheadHttpServiceGroupConfigurer(properties.getHttp().getGroups(), registry,
                    requestFactories.getIfAvailable(), perHost.getIfAvailable(),
                    unsizedReason(environment, resourceLoader.getClassLoader()));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClientCustomizer.class)
    @ConditionalOnBooleanProperty("loom.bulkhead.http.per-host.enabled")
    static class PerHostConfiguration {

        @Bean
        @ConditionalOnMissingBean
        PerHostBulkheadRestClientCustomizer perHostBulkheadRestClientCustomizer(PerHostBulkheads perHostBulkheads,
                ObjectProvider<BulkheadRequestFactories> requestFactories,
                ObjectProvider<ClientHttpRequestFactoryBuilder<?>> factoryBuilder, Environment environment,
                ResourceLoader resourceLoader) {
            BulkheadRequestFactories factories = requestFactories.getIfAvailable();
            if (factories == null) {
                int limit = perHostBulkheads.template().getMaxConcurrentCalls();
                String unlimited = factoryWithoutPerRouteLimit(factoryBuilder.getIfAvailable());
                logger.info("Per-host bulkheads (loom.bulkhead.http.per-host) allow " + limit + " calls at once per "
                        + "host, but loom-bulkhead does not size the connection pool of RestClients built from "
                        + "RestClient.Builder: " + unsizedReason(environment, resourceLoader.getClassLoader()) + ". "
                        + ((unlimited != null) ? "Their request factory: " + unlimited
                                + " (no limit on connections per route), so no pool limits these calls further."
                                : "Make sure their request factory allows at least " + limit
                                        + " connections per route."));
            }
            return new PerHostBulkheadRestClientCustomizer(perHostBulkheads, factories);
        }

        /**
         * The request factory that {@code builder} makes when it has no limit on connections per route (the JDK
         * client, {@code SimpleClientHttpRequestFactory}), else {@code null}.
         */
        private static String factoryWithoutPerRouteLimit(ClientHttpRequestFactoryBuilder<?> builder) {
            if (builder instanceof JdkClientHttpRequestFactoryBuilder) {
                return JdkClientHttpRequestFactory.class.getSimpleName();
            }
            if (builder instanceof SimpleClientHttpRequestFactoryBuilder) {
                return SimpleClientHttpRequestFactory.class.getSimpleName();
            }
            return null;
        }
    }

    /** Only when the application has no request factory (builder) of its own and did not pick another client. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ PooledHttpRequestFactories.class, HttpClients.class, HttpClientSettings.class })
    @ConditionalOnBooleanProperty(name = "loom.bulkhead.http.pool.enabled", matchIfMissing = true)
    @ConditionalOnMissingBean({ ClientHttpRequestFactoryBuilder.class, ClientHttpRequestFactory.class })
    @Conditional(OnHttpComponentsOrDefaultFactoryCondition.class)
    static class PooledRequestFactoryConfiguration {

        @Bean
        @ConditionalOnMissingBean
        BulkheadRequestFactories bulkheadRequestFactories(ObjectProvider<HttpClientSettings> settings,
                ObjectProvider<HttpServiceClientProperties> groups, ObjectProvider<SslBundles> sslBundles,
                ObjectProvider<ClientHttpRequestFactoryBuilderCustomizer<?>> customizers) {
            return new BulkheadRequestFactories(new HttpClientSettingsResolver(settings.getIfAvailable(),
                    groups.getIfAvailable(), sslBundles.getIfAvailable()), customizers.orderedStream().toList());
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(RestClientHttpServiceGroupConfigurer.class)
        static class ServiceGroupPoolConfiguration {

            @Bean
            @ConditionalOnMissingBean
            BulkheadPoolHttpServiceGroupConfigurer bulkheadPoolHttpServiceGroupConfigurer(
                    LoomBulkheadProperties properties, BulkheadRegistry registry,
                    BulkheadRequestFactories requestFactories, ObjectProvider<PerHostBulkheads> perHost) {
                return new BulkheadPoolHttpServiceGroupConfigurer(properties.getHttp().getGroups(), registry,
                        requestFactories, perHost.getIfAvailable());
            }
        }
    }

    /** Why no pooled factories exist, for the log line that says a pool was not sized. */
    static String unsizedReason(Environment environment, ClassLoader classLoader) {
        if (!environment.getProperty("loom.bulkhead.http.pool.enabled", Boolean.class, true)) {
            return "loom.bulkhead.http.pool.enabled=false";
        }
        String factory = ClassUtils.isPresent(IMPERATIVE_FACTORY, classLoader)
                ? OnHttpComponentsOrDefaultFactoryCondition.otherFactory(environment) : null;
        if (factory != null) {
            return "the application chose another client with " + OnHttpComponentsOrDefaultFactoryCondition.PROPERTY
                    + "=" + factory;
        }
        if (!ClassUtils.isPresent("org.apache.hc.client5.http.impl.classic.HttpClients", classLoader)) {
            return "Apache HttpClient 5 is not on the class path";
        }
        return "the application defines its own ClientHttpRequestFactoryBuilder or ClientHttpRequestFactory bean";
    }
}
