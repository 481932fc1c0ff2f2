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
import org.springframework.boot.http.client.autoconfigure.ClientHttpRequestFactoryBuilderCustomizer;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientProperties;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.client.ClientHttpRequestFactory;
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
                ObjectProvider<PerHostBulkheads> perHost, Environment environment) {
            return new BulkheadHttpServiceGroupConfigurer(properties.getHttp().getGroups(), registry,
                    requestFactories.getIfAvailable(), perHost.getIfAvailable(), unsizedReason(environment));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClientCustomizer.class)
    @ConditionalOnBooleanProperty("loom.bulkhead.http.per-host.enabled")
    static class PerHostConfiguration {

        @Bean
        @ConditionalOnMissingBean
        PerHostBulkheadRestClientCustomizer perHostBulkheadRestClientCustomizer(PerHostBulkheads perHostBulkheads,
                ObjectProvider<BulkheadRequestFactories> requestFactories, Environment environment) {
            BulkheadRequestFactories factories = requestFactories.getIfAvailable();
            if (factories == null) {
                logger.info("Per-host bulkheads (loom.bulkhead.http.per-host) allow "
                        + perHostBulkheads.template().getMaxConcurrentCalls() + " calls at once per host, but "
                        + "loom-bulkhead does not size the connection pool of RestClients built from RestClient.Builder: "
                        + unsizedReason(environment) + ". Make sure their request factory allows that many "
                        + "connections per route.");
            }
            return new PerHostBulkheadRestClientCustomizer(perHostBulkheads, factories);
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
    static String unsizedReason(Environment environment) {
        if (!environment.getProperty("loom.bulkhead.http.pool.enabled", Boolean.class, true)) {
            return "loom.bulkhead.http.pool.enabled=false";
        }
        String factory = ClassUtils.isPresent(IMPERATIVE_FACTORY, LoomBulkheadHttpAutoConfiguration.class.getClassLoader())
                ? OnHttpComponentsOrDefaultFactoryCondition.otherFactory(environment) : null;
        if (factory != null) {
            return "the application chose another client with " + OnHttpComponentsOrDefaultFactoryCondition.PROPERTY
                    + "=" + factory;
        }
        if (!ClassUtils.isPresent("org.apache.hc.client5.http.impl.classic.HttpClients",
                LoomBulkheadHttpAutoConfiguration.class.getClassLoader())) {
            return "Apache HttpClient 5 is not on the class path";
        }
        return "the application defines its own ClientHttpRequestFactoryBuilder or ClientHttpRequestFactory bean";
    }
}
