package io.github.loombulkhead.autoconfigure.http;

import java.util.function.Function;

import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.autoconfigure.HttpClientSettingsPropertyMapper;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientProperties;
import org.springframework.boot.ssl.SslBundles;

/**
 * The HTTP client settings Spring Boot itself would apply: the global {@code spring.http.clients.*} ones and,
 * for a service group, {@code spring.http.serviceclient.<group>.*} on top of them.
 */
final class HttpClientSettingsResolver implements Function<String, HttpClientSettings> {

    private final HttpClientSettings global;

    private final HttpServiceClientProperties groups;

    private final HttpClientSettingsPropertyMapper groupMapper;

    HttpClientSettingsResolver(HttpClientSettings global, HttpServiceClientProperties groups, SslBundles sslBundles) {
        this.global = (global != null) ? global : HttpClientSettings.defaults();
        this.groups = groups;
        this.groupMapper = new HttpClientSettingsPropertyMapper(sslBundles, this.global);
    }

    /** The settings of {@code group}, or the global ones for {@code null}. */
    @Override
    public HttpClientSettings apply(String group) {
        if (group == null || this.groups == null) {
            return this.global;
        }
        return this.groupMapper.map(this.groups.get(group));
    }
}
