package io.github.loombulkhead.autoconfigure.http;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.BulkheadConfigMapper;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;
import io.github.loombulkhead.http.PooledHttpRequestFactories;
import org.apache.hc.client5.http.impl.classic.HttpClients;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientProperties;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;

/**
 * Bulkheads on RestClients from configuration alone: per HTTP service group
 * ({@code loom.bulkhead.http.groups.<group>}) and per target host for clients built from the
 * auto-configured {@code RestClient.Builder} ({@code loom.bulkhead.http.per-host.enabled}), with a pooled
 * HttpClient 5 request factory sized from the limits when the application chose none. Ordered before
 * Spring Boot's HTTP client auto-configuration so "chose none" means the application's own beans only.
 */
@AutoConfiguration(after = LoomBulkheadAutoConfiguration.class,
        beforeName = "org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration")
@ConditionalOnClass({ RestClient.class, BulkheadClientHttpRequestInterceptor.class })
@ConditionalOnBean(BulkheadRegistry.class)
public final class LoomBulkheadHttpAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty("loom.bulkhead.http.per-host.enabled")
    PerHostBulkheads perHostBulkheads(LoomBulkheadProperties properties, BulkheadConfigMapper mapper,
            BulkheadRegistry registry) {
        LoomBulkheadProperties.PerHost perHost = properties.getHttp().getPerHost();
        return PerHostBulkheads.of(registry, perHost.getNamePrefix(), mapper.perHostTemplate(), perHost.getMaxHosts(),
                properties.getInstances().keySet());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClientHttpServiceGroupConfigurer.class)
    static class ServiceGroupConfiguration {

        @Bean
        @ConditionalOnMissingBean
        BulkheadHttpServiceGroupConfigurer bulkheadHttpServiceGroupConfigurer(LoomBulkheadProperties properties,
                BulkheadRegistry registry, ObjectProvider<BulkheadRequestFactories> requestFactories,
                ObjectProvider<PerHostBulkheads> perHost) {
            return new BulkheadHttpServiceGroupConfigurer(properties.getHttp().getGroups(), registry,
                    requestFactories.getIfAvailable(), perHost.getIfAvailable());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClientCustomizer.class)
    @ConditionalOnBooleanProperty("loom.bulkhead.http.per-host.enabled")
    static class PerHostConfiguration {

        @Bean
        @ConditionalOnMissingBean
        PerHostBulkheadRestClientCustomizer perHostBulkheadRestClientCustomizer(PerHostBulkheads perHostBulkheads,
                ObjectProvider<BulkheadRequestFactories> requestFactories) {
            return new PerHostBulkheadRestClientCustomizer(perHostBulkheads, requestFactories.getIfAvailable());
        }
    }

    /** Only when the application has no request factory (builder) of its own and did not pick another client. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ PooledHttpRequestFactories.class, HttpClients.class, HttpClientSettings.class })
    @ConditionalOnBooleanProperty(name = "loom.bulkhead.http.pool.enabled", matchIfMissing = true)
    @ConditionalOnMissingBean({ ClientHttpRequestFactoryBuilder.class, ClientHttpRequestFactory.class })
    @ConditionalOnProperty(name = "spring.http.clients.imperative.factory", havingValue = "http-components",
            matchIfMissing = true)
    static class PooledRequestFactoryConfiguration {

        @Bean
        @ConditionalOnMissingBean
        BulkheadRequestFactories bulkheadRequestFactories(ObjectProvider<HttpClientSettings> settings,
                ObjectProvider<HttpServiceClientProperties> groups, ObjectProvider<SslBundles> sslBundles) {
            return new BulkheadRequestFactories(new HttpClientSettingsResolver(settings.getIfAvailable(),
                    groups.getIfAvailable(), sslBundles.getIfAvailable()));
        }
    }
}
