package io.github.loombulkhead.autoconfigure.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.http.NoStatusRetries;
import io.github.loombulkhead.http.PooledHttpRequestFactories;
import io.github.loombulkhead.http.SameHostRedirects;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.HttpComponentsClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.HttpRedirects;
import org.springframework.boot.http.client.autoconfigure.ClientHttpRequestFactoryBuilderCustomizer;
import org.springframework.boot.util.LambdaSafe;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;

/**
 * Makes Apache HttpClient 5 request factories whose pool is sized from the bulkhead limits, with Spring Boot's
 * settings of the client ({@code spring.http.clients.*}, {@code spring.http.serviceclient.<group>.*}). Usually
 * {@link PooledHttpRequestFactories}, whose pool also grows when a limit is raised at runtime. A client whose
 * settings that factory cannot apply (an SSL bundle, redirects not followed, cookie handling, an address filter)
 * gets Spring Boot's own HttpClient 5 factory with those settings and a pool sized to the limits at startup; so
 * does every client when the application's {@link ClientHttpRequestFactoryBuilderCustomizer} beans change
 * Spring Boot's HttpClient 5 factory builder (they are applied after the pool sizing, so a pool size they set
 * wins). Clients with the same bulkheads and settings share one factory, so one HTTP client and pool: every
 * {@code RestClient.Builder} with per-host bulkheads, every client of one service group. Closes every factory it
 * made when the application context closes.
 */
public class BulkheadRequestFactories implements DisposableBean {

    private static final Log logger = LogFactory.getLog(BulkheadRequestFactories.class);

    private final Function<String, HttpClientSettings> settings;

    private final List<ClientHttpRequestFactoryBuilderCustomizer<?>> customizers;

    private final Queue<HttpComponentsClientHttpRequestFactory> made = new ConcurrentLinkedQueue<>();

    private final ReentrantLock lock = new ReentrantLock();

    /** The factories made, by their bulkheads and client settings; guarded by lock. Empty: not HttpClient 5. */
    private final Map<List<Object>, Optional<ClientHttpRequestFactory>> shared = new HashMap<>();

    private final ServiceGroupClients serviceGroupClients = new ServiceGroupClients();

    private volatile int[] defaultPool;

    /**
     * @param settings Spring Boot's HTTP client settings of a service group, or the global ones for {@code null}
     */
    public BulkheadRequestFactories(Function<String, HttpClientSettings> settings) {
        this(settings, List.of());
    }

    /**
     * @param settings Spring Boot's HTTP client settings of a service group, or the global ones for {@code null}
     * @param customizers the application's customizers of Spring Boot's request factory builder, in order
     */
    public BulkheadRequestFactories(Function<String, HttpClientSettings> settings,
            List<ClientHttpRequestFactoryBuilderCustomizer<?>> customizers) {
        this.settings = settings;
        this.customizers = List.copyOf(customizers);
    }

    /**
     * A factory for the clients of {@code group} (or a plain client for {@code null}) sharing {@code bulkhead};
     * {@code null} when the application's customizers chose another client than HttpClient 5.
     */
    public ClientHttpRequestFactory forBulkhead(Bulkhead bulkhead, String group) {
        return shared(List.of("bulkhead", bulkhead, String.valueOf(group)),
                () -> build(PooledHttpRequestFactories.forBulkhead(bulkhead), PooledHttpRequestFactories.poolLimit(bulkhead),
                        1, false, false, group));
    }

    /**
     * A factory for the clients of {@code group} (or a plain client for {@code null}) whose every call holds a
     * permit of one of {@code bulkheads}: the pool fits the sum of their limits.
     */
    public ClientHttpRequestFactory forBulkheads(Collection<Bulkhead> bulkheads, String group) {
        return forBulkheads(bulkheads, false, group);
    }

    /**
     * A factory for the clients of {@code group} (or a plain client for {@code null}) whose calls hold a permit of
     * one of {@code bulkheads}, or, when {@code unboundedCalls}, may hold none (e.g. methods without
     * {@code @Bulkhead}): the pool fits the sum of the limits, plus a default HttpClient 5 pool's size for the
     * unbounded calls, so the pool limits them no more than it would without loom-bulkhead.
     */
    public ClientHttpRequestFactory forBulkheads(Collection<Bulkhead> bulkheads, boolean unboundedCalls,
            String group) {
        return shared(List.of("bulkheads", Set.copyOf(bulkheads), unboundedCalls, String.valueOf(group)), () -> {
            return build(PooledHttpRequestFactories.forBulkheads(bulkheads), PooledHttpRequestFactories.poolLimit(bulkheads),
                    1, unboundedCalls, false, group);
        });
    }

    /**
     * A factory for the clients of {@code group} (or the plain clients of every {@code RestClient.Builder} for
     * {@code null}) with per-host bulkheads.
     */
    public ClientHttpRequestFactory forHosts(BulkheadRegistry registry, String namePrefix, BulkheadConfig template,
            int maxHosts, String group) {
        return shared(List.of("hosts", registry, namePrefix, template, maxHosts, String.valueOf(group)), () -> {
            int perHost = registry.getAllBulkheads()
                .stream()
                .filter((bulkhead) -> bulkhead.getName().startsWith(namePrefix))
                .mapToInt(PooledHttpRequestFactories::poolLimit)
                .reduce(template.getMaxConcurrentCalls(), Math::max);
            return build(PooledHttpRequestFactories.forHosts(registry, namePrefix, template, maxHosts), perHost,
                    maxHosts, false, true, group);
        });
    }

    /**
     * The factory made for {@code key} before, or a new one: clients with the same bulkheads and settings share one
     * HTTP client and pool (a {@code RestClient.Builder} is a new object at every injection point).
     */
    private ClientHttpRequestFactory shared(List<Object> key, Supplier<ClientHttpRequestFactory> factory) {
        this.lock.lock();
        try {
            return this.shared.computeIfAbsent(key, (absent) -> Optional.ofNullable(factory.get())).orElse(null);
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Whether {@code factory} was made here (so its pool is sized from the limits). */
    public boolean isOwn(ClientHttpRequestFactory factory) {
        return factory != null && this.made.stream().anyMatch((own) -> own == factory);
    }

    /** The builders of service groups whose factory was set for their group. */
    ServiceGroupClients serviceGroupClients() {
        return this.serviceGroupClients;
    }

    /** @param perHost whether the clients have per-host bulkheads: redirects are then followed within a host only */
    private ClientHttpRequestFactory build(PooledHttpRequestFactories.Builder pooled, int limitPerRoute, int routes,
            boolean unboundedCalls, boolean perHost, String group) {
        HttpClientSettings client = this.settings.apply(group);
        int reservedPerRoute = 0;
        int reservedTotal = 0;
        if (unboundedCalls) {
            int[] reserve = defaultPool();
            reservedPerRoute = reserve[0];
            reservedTotal = reserve[1];
            pooled.reserveForUnboundedCalls(reservedPerRoute, reservedTotal);
        }
        int perRoute = PooledHttpRequestFactories.maxConnPerRoute(limitPerRoute, reservedPerRoute);
        int total = PooledHttpRequestFactories.maxConnTotal(limitPerRoute, routes, reservedTotal);
        // As the starter's own pooled factory: a 429 or 503 is answered, not retried while the call holds its permit.
        HttpComponentsClientHttpRequestFactoryBuilder sized = ClientHttpRequestFactoryBuilder.httpComponents()
            .withConnectionManagerCustomizer((manager) -> manager.setMaxConnPerRoute(perRoute).setMaxConnTotal(total))
            .withHttpClientCustomizer((httpClient) -> httpClient.setRetryStrategy(NoStatusRetries.INSTANCE));
        if (perHost && client.redirects() != HttpRedirects.DONT_FOLLOW) {
            // As the starter's own per-host pool: a redirect to another host is answered, to take that host's permit.
            sized = sized.withHttpClientCustomizer(
                    (httpClient) -> httpClient.setRedirectStrategy(SameHostRedirects.INSTANCE));
        }
        ClientHttpRequestFactoryBuilder<?> customized = customize(sized);
        if (!(customized instanceof HttpComponentsClientHttpRequestFactoryBuilder)) {
            // The application's customizers replaced HttpClient 5: its choice, the group keeps Spring Boot's factory.
            return null;
        }
        List<String> unsupported = unsupported(client);
        if (customized != sized) {
            unsupported.add("ClientHttpRequestFactoryBuilderCustomizer beans");
        }
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
            logger.info("HTTP client " + ((group != null) ? "of service group '" + group + "'" : "from RestClient.Builder")
                    + " uses Spring Boot's HttpClient 5 factory to apply the " + String.join(", ", unsupported)
                    + ", with a pool sized for the bulkhead limits at startup (" + perRoute + " per host, " + total
                    + " in all, unless those customizers size it themselves); raising a limit at runtime beyond that "
                    + "does not grow this pool");
            factory = (HttpComponentsClientHttpRequestFactory) customized.build(client);
        }
        this.made.add(factory);
        return factory;
    }

    /** Applies the application's customizers as Spring Boot does to its own builder. */
    @SuppressWarnings("unchecked")
    private ClientHttpRequestFactoryBuilder<?> customize(ClientHttpRequestFactoryBuilder<?> builder) {
        ClientHttpRequestFactoryBuilder<?>[] result = { builder };
        LambdaSafe.callbacks(ClientHttpRequestFactoryBuilderCustomizer.class, this.customizers, builder)
            .invoke((customizer) -> result[0] = customizer.customize(result[0]));
        return result[0];
    }

    /** Per route and in all, what a default HttpClient 5 pool allows (5 and 25 unless system properties say). */
    private int[] defaultPool() {
        int[] pool = this.defaultPool;
        if (pool == null) {
            PoolingHttpClientConnectionManager manager = PoolingHttpClientConnectionManagerBuilder.create()
                .useSystemProperties()
                .build();
            pool = new int[] { manager.getDefaultMaxPerRoute(), manager.getMaxTotal() };
            manager.close();
            this.defaultPool = pool;
        }
        return pool;
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
        this.lock.lock();
        try {
            this.shared.clear();
        }
        finally {
            this.lock.unlock();
        }
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
