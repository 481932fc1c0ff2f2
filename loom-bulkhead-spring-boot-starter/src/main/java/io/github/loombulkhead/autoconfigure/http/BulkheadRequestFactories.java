package io.github.loombulkhead.autoconfigure.http;

import java.time.Duration;
import java.util.function.Function;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.http.PooledHttpRequestFactories;

import org.springframework.http.client.ClientHttpRequestFactory;

/**
 * Makes pooled Apache HttpClient 5 request factories ({@link PooledHttpRequestFactories}) whose pool is
 * sized from the bulkhead limits, with the connect and read timeouts of Spring Boot's
 * {@code spring.http.clients.*} / {@code spring.http.serviceclient.<group>.*} settings. Exists only when
 * the application chose no request factory of its own; a client with an SSL bundle keeps Spring Boot's
 * factory, which applies the bundle.
 */
public class BulkheadRequestFactories {

    private final Function<String, Settings> settings;

    /**
     * @param settings the HTTP client settings of a service group, or the global ones for {@code null}
     */
    public BulkheadRequestFactories(Function<String, Settings> settings) {
        this.settings = settings;
    }

    /** A factory for clients that share {@code bulkhead}, or {@code null} to keep Spring Boot's. */
    public ClientHttpRequestFactory forBulkhead(Bulkhead bulkhead, String group) {
        return build(PooledHttpRequestFactories.forBulkhead(bulkhead), group);
    }

    /** A factory for clients with per-host bulkheads, or {@code null} to keep Spring Boot's. */
    public ClientHttpRequestFactory forHosts(BulkheadRegistry registry, String namePrefix, BulkheadConfig template,
            int maxHosts, String group) {
        return build(PooledHttpRequestFactories.forHosts(registry, namePrefix, template, maxHosts), group);
    }

    private ClientHttpRequestFactory build(PooledHttpRequestFactories.Builder builder, String group) {
        Settings client = this.settings.apply(group);
        if (client.ssl()) {
            return null;
        }
        if (isPositive(client.connectTimeout())) {
            builder.connectTimeout(client.connectTimeout());
        }
        if (isPositive(client.readTimeout())) {
            builder.readTimeout(client.readTimeout());
        }
        return builder.build();
    }

    private static boolean isPositive(Duration duration) {
        return duration != null && !duration.isNegative() && !duration.isZero();
    }

    /** What a pooled factory needs from Spring Boot's HTTP client settings. */
    public record Settings(Duration connectTimeout, Duration readTimeout, boolean ssl) {

        /** No timeouts given (the factory's defaults apply) and no SSL bundle. */
        public static final Settings NONE = new Settings(null, null, false);
    }
}
