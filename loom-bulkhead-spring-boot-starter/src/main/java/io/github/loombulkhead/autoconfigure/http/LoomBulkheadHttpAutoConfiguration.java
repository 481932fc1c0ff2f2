package io.github.loombulkhead.autoconfigure.http;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.BulkheadConfigMapper;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;

/**
 * Bulkheads on RestClients from configuration alone: per HTTP service group
 * ({@code loom.bulkhead.http.groups.<group>}) and per target host for clients built from the
 * auto-configured {@code RestClient.Builder} ({@code loom.bulkhead.http.per-host.enabled}).
 */
@AutoConfiguration(after = LoomBulkheadAutoConfiguration.class)
@ConditionalOnClass({ RestClient.class, BulkheadClientHttpRequestInterceptor.class })
@ConditionalOnBean(BulkheadRegistry.class)
public final class LoomBulkheadHttpAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClientHttpServiceGroupConfigurer.class)
    static class ServiceGroupConfiguration {

        @Bean
        @ConditionalOnMissingBean
        BulkheadHttpServiceGroupConfigurer bulkheadHttpServiceGroupConfigurer(LoomBulkheadProperties properties,
                BulkheadRegistry registry) {
            return new BulkheadHttpServiceGroupConfigurer(properties.getHttp().getGroups(), registry);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClientCustomizer.class)
    @ConditionalOnBooleanProperty("loom.bulkhead.http.per-host.enabled")
    static class PerHostConfiguration {

        @Bean
        @ConditionalOnMissingBean
        PerHostBulkheadRestClientCustomizer perHostBulkheadRestClientCustomizer(LoomBulkheadProperties properties,
                BulkheadConfigMapper mapper, BulkheadRegistry registry) {
            LoomBulkheadProperties.PerHost perHost = properties.getHttp().getPerHost();
            return new PerHostBulkheadRestClientCustomizer(BulkheadClientHttpRequestInterceptor.perHost(registry,
                    perHost.getNamePrefix(), mapper.perHostTemplate(), perHost.getMaxHosts()));
        }
    }
}
