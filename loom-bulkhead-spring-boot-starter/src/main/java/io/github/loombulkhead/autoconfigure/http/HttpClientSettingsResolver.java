package io.github.loombulkhead.autoconfigure.http;

import java.util.function.Function;

import io.github.loombulkhead.autoconfigure.http.BulkheadRequestFactories.Settings;

import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.autoconfigure.HttpClientSettingsProperties;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientProperties;

/**
 * Reads the timeouts and SSL use of Spring Boot's global HTTP client settings and, for a service group,
 * of {@code spring.http.serviceclient.<group>.*}, which win over the global ones.
 */
final class HttpClientSettingsResolver implements Function<String, Settings> {

    private final HttpClientSettings global;

    private final HttpServiceClientProperties groups;

    HttpClientSettingsResolver(HttpClientSettings global, HttpServiceClientProperties groups) {
        this.global = global;
        this.groups = groups;
    }

    @Override
    public Settings apply(String group) {
        Settings settings = (this.global != null) ? new Settings(this.global.connectTimeout(),
                this.global.readTimeout(), this.global.sslBundle() != null) : Settings.NONE;
        HttpClientSettingsProperties client = (group != null && this.groups != null) ? this.groups.get(group) : null;
        if (client == null) {
            return settings;
        }
        return new Settings((client.getConnectTimeout() != null) ? client.getConnectTimeout() : settings.connectTimeout(),
                (client.getReadTimeout() != null) ? client.getReadTimeout() : settings.readTimeout(),
                settings.ssl() || client.getSsl().getBundle() != null);
    }
}
