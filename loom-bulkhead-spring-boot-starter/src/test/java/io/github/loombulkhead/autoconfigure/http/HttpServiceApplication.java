package io.github.loombulkhead.autoconfigure.http;

import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.github.loombulkhead.autoconfigure.LoomBulkheadInactiveAutoConfiguration;
import io.github.loombulkhead.http.LoopbackServer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientPropertiesAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.service.HttpServiceClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The context of an application that calls HTTP services through Spring Boot's RestClient and HTTP service groups,
 * with the starter, on virtual threads: what the starter's HTTP tests start from.
 */
final class HttpServiceApplication {

    private HttpServiceApplication() {
    }

    /** The application, with the HTTP service {@code groups} calling {@code callee}. */
    static ApplicationContextRunner contextRunner(LoopbackServer callee, String... groups) {
        ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class,
                    LoomBulkheadInactiveAutoConfiguration.class, LoomBulkheadHttpAutoConfiguration.class,
                    HttpClientAutoConfiguration.class, ImperativeHttpClientAutoConfiguration.class,
                    HttpServiceClientPropertiesAutoConfiguration.class, RestClientAutoConfiguration.class,
                    HttpServiceClientAutoConfiguration.class))
            .withPropertyValues("spring.threads.virtual.enabled=true");
        for (String group : groups) {
            runner = runner.withPropertyValues("spring.http.serviceclient." + group + ".base-url=" + callee.baseUrl());
        }
        return runner;
    }
}
