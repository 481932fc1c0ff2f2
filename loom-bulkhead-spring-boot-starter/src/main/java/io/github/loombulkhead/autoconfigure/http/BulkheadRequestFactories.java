package io.github.loombulkhead.autoconfigure.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.http.PooledHttpRequestFactories;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.HttpRedirects;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;

/**
 * Makes Apache HttpClient 5 request factories whose pool is sized from the bulkhead limits, with Spring Boot's
 * settings of the client ({@code spring.http.clients.*}, {@code spring.http.serviceclient.<group>.*}). Usually
 * {@link PooledHttpRequestFactories}, whose pool also grows when a limit is raised at runtime. A client whose
 * settings that factory cannot apply (an SSL bundle, redirects not followed, cookie handling, an address filter)
 * gets Spring Boot's own HttpClient 5 factory with those settings and a pool sized to the limits at startup.
 * Closes every factory it made when the application context closes.
 */
public class BulkheadRequestFactories implements DisposableBean {

    private static final Log logger = LogFactory.getLog(BulkheadRequestFactories.class);

    private final Function<String, HttpClientSettings> settings;

    private final Queue<HttpComponentsClientHttpRequestFactory> made = new ConcurrentLinkedQueue<>();

    /**
     * @param settings Spring Boot's HTTP client settings of a service group, or the global ones for {@code null}
     */
    public BulkheadRequestFactories(Function<String, HttpClientSettings> settings) {
        this.settings = settings;
    }

    /** A factory for the clients of {@code group} (or a plain client for {@code null}) sharing {@code bulkhead}. */
    public ClientHttpRequestFactory forBulkhead(Bulkhead bulkhead, String group) {
        return build(PooledHttpRequestFactories.forBulkhead(bulkhead), bulkhead.getLimit(), 1, group);
    }

    /**
     * A factory for the clients of {@code group} (or a plain client for {@code null}) whose every call holds a
     * permit of one of {@code bulkheads}: the pool fits the sum of their limits.
     */
    public ClientHttpRequestFactory forBulkheads(Collection<Bulkhead> bulkheads, String group) {
        int sum = (int) Math.min(Integer.MAX_VALUE, bulkheads.stream().distinct().mapToLong(Bulkhead::getLimit).sum());
        return build(PooledHttpRequestFactories.forBulkheads(bulkheads), sum, 1, group);
    }

    /** A factory for the clients of {@code group} (or a plain client for {@code null}) with per-host bulkheads. */
    public ClientHttpRequestFactory forHosts(BulkheadRegistry registry, String namePrefix, BulkheadConfig template,
            int maxHosts, String group) {
        int perHost = registry.getAllBulkheads()
            .stream()
            .filter((bulkhead) -> bulkhead.getName().startsWith(namePrefix))
            .mapToInt(Bulkhead::getLimit)
            .reduce(template.getMaxConcurrentCalls(), Math::max);
        return build(PooledHttpRequestFactories.forHosts(registry, namePrefix, template, maxHosts), perHost, maxHosts,
                group);
    }

    private ClientHttpRequestFactory build(PooledHttpRequestFactories.Builder pooled, int perRoute, int routes,
            String group) {
        HttpClientSettings client = this.settings.apply(group);
        List<String> unsupported = unsupported(client);
        HttpComponentsClientHttpRequestFactory factory;
        if (unsupported.isEmpty()) {
            if (isPositive(client.connectTimeout())) {
                pooled.connectTimeout(client.connectTimeout());
            }
            if (isPositive(client.readTimeout())) {
                pooled.readTimeout(client.readTimeout());
            }
            factory = pooled.build();
        }
        else {
            int total = (int) Math.min(Integer.MAX_VALUE, (long) perRoute * routes);
            logger.info("HTTP client " + ((group != null) ? "of service group '" + group + "'" : "from RestClient.Builder")
                    + " uses Spring Boot's HttpClient 5 factory for its " + String.join(", ", unsupported)
                    + ", with a pool sized for the bulkhead limits at startup (" + perRoute + " per host, " + total
                    + " in all); raising a limit at runtime beyond that does not grow this pool");
            factory = ClientHttpRequestFactoryBuilder.httpComponents()
                .withConnectionManagerCustomizer((manager) -> manager.setMaxConnPerRoute(perRoute).setMaxConnTotal(total))
                .build(client);
        }
        this.made.add(factory);
        return factory;
    }

    /** The settings that only Spring Boot's own factory applies. */
    private static List<String> unsupported(HttpClientSettings client) {
        List<String> unsupported = new ArrayList<>();
        if (client.sslBundle() != null) {
            unsupported.add("SSL bundle");
        }
        if (client.redirects() == HttpRedirects.DONT_FOLLOW) {
            unsupported.add("redirects=dont-follow");
        }
        if (client.cookieHandling() != null) {
            unsupported.add("cookie handling");
        }
        if (client.inetAddressFilter() != null) {
            unsupported.add("address filter");
        }
        return unsupported;
    }

    private static boolean isPositive(Duration duration) {
        return duration != null && !duration.isNegative() && !duration.isZero();
    }

    /** Closes the HTTP clients and pools of every factory made. */
    @Override
    public void destroy() {
        HttpComponentsClientHttpRequestFactory factory;
        while ((factory = this.made.poll()) != null) {
            try {
                factory.destroy();
            }
            catch (Exception ex) {
                logger.warn("Could not close an HTTP client of a bulkhead", ex);
            }
        }
    }
}
