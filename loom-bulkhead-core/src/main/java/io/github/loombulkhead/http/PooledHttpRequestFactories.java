package io.github.loombulkhead.http;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.DefaultRedirectStrategy;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;

/**
 * Builds Apache HttpClient 5 request factories whose connection pool is sized from the bulkhead
 * limits, so the bulkhead is the one place where the limit and the waiting live.
 *
 * <p>A pool smaller than the bulkhead would be a hidden second limit: calls holding a permit would
 * queue again for a connection, unbounded by the bulkhead's queue and max wait and invisible in its
 * metrics. Here {@code maxPerRoute} is at least the limit of one bulkhead and {@code maxTotal} covers
 * every bulkhead the client uses, so a call that holds a permit always gets a connection at once;
 * the connection-request timeout then only matters for callers that bypass the bulkhead. The pool
 * grows with runtime limit increases (it never shrinks: connections are opened lazily, so a larger
 * pool costs nothing and limits nothing).
 *
 * <p>A {@code 429} or {@code 503} is answered to the caller, not sent again by the client (HttpClient 5's default
 * would retry it once, after its {@code Retry-After}, while the call holds its permit); retry outside the bulkhead,
 * where each attempt takes its own permit.
 *
 * <pre>{@code
 * Bulkhead callee = registry.bulkhead("callee");
 * RestClient client = RestClient.builder()
 *         .baseUrl("http://callee:8080")
 *         .requestFactory(PooledHttpRequestFactories.forBulkhead(callee)
 *                 .connectTimeout(Duration.ofMillis(500))
 *                 .readTimeout(Duration.ofSeconds(5))
 *                 .build())
 *         .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(callee))
 *         .build();
 * }</pre>
 */
public final class PooledHttpRequestFactories {

    private PooledHttpRequestFactories() {
    }

    /**
     * How many connections the calls of {@code bulkhead} can use at once: its {@code maxConcurrentCalls},
     * which for an adaptive bulkhead is the ceiling its limit never exceeds.
     */
    public static int poolLimit(Bulkhead bulkhead) {
        return PoolSizer.poolLimit(bulkhead);
    }

    /** The connections the calls of {@code bulkheads} (each counted once) can use at once, saturated at {@code Integer.MAX_VALUE}. */
    public static int poolLimit(Collection<Bulkhead> bulkheads) {
        return SummedPoolSizer.sum(bulkheads.stream().distinct().map(PoolSizer::poolLimit).toList());
    }

    /** Connections per route of a pool for {@code limitPerRoute} calls plus {@code reservedPerRoute}, saturated. */
    public static int maxConnPerRoute(int limitPerRoute, int reservedPerRoute) {
        return PoolSizer.plus(limitPerRoute, reservedPerRoute);
    }

    /** Connections in all of a pool for {@code limitPerRoute} calls on each of {@code routes} plus {@code reservedTotal}, saturated. */
    public static int maxConnTotal(int limitPerRoute, int routes, int reservedTotal) {
        return PoolSizer.plus(PoolSizer.total(limitPerRoute, routes), reservedTotal);
    }

    /**
     * A pool for one client-wide bulkhead: {@code maxTotal = maxPerRoute = } its limit, following it (for an
     * adaptive bulkhead its ceiling, {@code maxConcurrentCalls}, so the pool never caps the algorithm).
     */
    public static Builder forBulkhead(Bulkhead bulkhead) {
        Objects.requireNonNull(bulkhead, "bulkhead must not be null");
        return new Builder(PoolSizer.poolLimit(bulkhead), 1, (sizer) -> PoolBinding.of(sizer, bulkhead));
    }

    /**
     * A pool for a client whose every call holds a permit of one of {@code bulkheads} (e.g. an HTTP
     * interface whose methods name different bulkheads): one route, {@code maxTotal = maxPerRoute = } the sum
     * of their limits, following them.
     */
    public static Builder forBulkheads(Collection<Bulkhead> bulkheads) {
        Objects.requireNonNull(bulkheads, "bulkheads must not be null");
        Set<Bulkhead> distinct = new LinkedHashSet<>(bulkheads);
        if (distinct.isEmpty() || distinct.contains(null)) {
            throw new IllegalArgumentException("bulkheads must not be empty or contain null but was " + bulkheads);
        }
        return new Builder(poolLimit(distinct), 1, (sizer) -> PoolBinding.of(sizer, distinct));
    }

    /**
     * A pool for the per-host bulkheads of
     * {@link BulkheadClientHttpRequestInterceptor#perHost(BulkheadRegistry, String, BulkheadConfig, int)}
     * with the same arguments: {@code maxPerRoute} = the largest per-host limit (initially the
     * template's) and {@code maxTotal} = {@code maxHosts} times that. Its client follows redirects only within a
     * host and answers one to another host to the caller ({@link SameHostRedirects}).
     */
    public static Builder forHosts(BulkheadRegistry registry, String namePrefix, BulkheadConfig template,
            int maxHosts) {
        Objects.requireNonNull(registry, "registry must not be null");
        Objects.requireNonNull(namePrefix, "namePrefix must not be null");
        Objects.requireNonNull(template, "template config must not be null");
        if (maxHosts < 1) {
            throw new IllegalArgumentException("maxHosts must be at least 1 but was " + maxHosts);
        }
        return new Builder(template.getMaxConcurrentCalls(), maxHosts,
                (sizer) -> PoolBinding.ofHosts(sizer, registry, namePrefix)).redirectsWithinHost();
    }

    /** Timeouts and client customizations; {@link #build()} makes a new client and pool each time. */
    public static final class Builder {

        private final int maxPerRoute;

        private final int routes;

        private final Function<PoolSizer, PoolBinding> binder;

        private boolean withinHost;

        private Duration connectTimeout = Duration.ofSeconds(5);

        private Duration readTimeout = Duration.ofSeconds(30);

        private Duration connectionRequestTimeout = Duration.ofSeconds(5);

        private Duration validateAfterInactivity = Duration.ofSeconds(5);

        private Duration idleConnectionEviction = Duration.ofSeconds(60);

        private int reservedPerRoute;

        private int reservedTotal;

        private Consumer<HttpClientBuilder> clientCustomizer = (builder) -> {
        };

        private Builder(int maxPerRoute, int routes, Function<PoolSizer, PoolBinding> binder) {
            this.maxPerRoute = maxPerRoute;
            this.routes = routes;
            this.binder = binder;
        }

        /** Time to establish a TCP (and TLS) connection; default 5 s. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive("connectTimeout", connectTimeout);
            return this;
        }

        /** Time to wait for response data (between packets), the read timeout; default 30 s. */
        public Builder readTimeout(Duration readTimeout) {
            this.readTimeout = positive("readTimeout", readTimeout);
            return this;
        }

        /**
         * Time to wait for a pooled connection; default 5 s. A call holding a bulkhead permit never
         * waits here, because the pool is at least as large as the limit.
         */
        public Builder connectionRequestTimeout(Duration connectionRequestTimeout) {
            this.connectionRequestTimeout = positive("connectionRequestTimeout", connectionRequestTimeout);
            return this;
        }

        /** Idle time after which a pooled connection is checked before reuse; default 5 s. */
        public Builder validateAfterInactivity(Duration validateAfterInactivity) {
            this.validateAfterInactivity = positive("validateAfterInactivity", validateAfterInactivity);
            return this;
        }

        /** Idle time after which a pooled connection is closed in the background; default 60 s. */
        public Builder idleConnectionEviction(Duration idleConnectionEviction) {
            this.idleConnectionEviction = positive("idleConnectionEviction", idleConnectionEviction);
            return this;
        }

        /**
         * Connections added to the pool beyond the bulkhead limits for calls of the client that hold no permit of
         * those bulkheads (e.g. methods of an HTTP interface without {@code @Bulkhead}): with a default pool's size
         * here, the pool limits such calls no more than a default pool would; default 0. The pool is shared, so
         * unbounded calls beyond the reserve take connections the bounded calls could need.
         */
        public Builder reserveForUnboundedCalls(int maxPerRoute, int maxTotal) {
            if (maxPerRoute < 0 || maxTotal < maxPerRoute) {
                throw new IllegalArgumentException("reserved connections must satisfy 0 <= maxPerRoute <= maxTotal "
                        + "but were maxPerRoute=" + maxPerRoute + ", maxTotal=" + maxTotal);
            }
            this.reservedPerRoute = maxPerRoute;
            this.reservedTotal = maxTotal;
            return this;
        }

        private Builder redirectsWithinHost() {
            this.withinHost = true;
            return this;
        }

        /** Further client settings (proxy, TLS strategy, interceptors); do not replace the pool. */
        public Builder httpClient(Consumer<HttpClientBuilder> customizer) {
            this.clientCustomizer = Objects.requireNonNull(customizer, "customizer must not be null");
            return this;
        }

        /**
         * A new request factory with its own client and pool; destroy it (or let Spring) to close them. Until the
         * client is closed, the pool follows the bulkheads' limits; closing it removes the pool's listeners.
         */
        public HttpComponentsClientHttpRequestFactory build() {
            // System properties (proxy, TLS protocols, credentials) apply, as for Spring's and Spring Boot's
            // default HttpClient 5 clients.
            PoolingHttpClientConnectionManager manager = PoolingHttpClientConnectionManagerBuilder.create()
                .useSystemProperties()
                .setMaxConnTotal(maxConnTotal(this.maxPerRoute, this.routes, this.reservedTotal))
                .setMaxConnPerRoute(maxConnPerRoute(this.maxPerRoute, this.reservedPerRoute))
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                    .setConnectTimeout(Timeout.of(this.connectTimeout))
                    .setSocketTimeout(Timeout.of(this.readTimeout))
                    .setValidateAfterInactivity(TimeValue.of(this.validateAfterInactivity))
                    .build())
                .build();
            PoolBinding binding = this.binder.apply(new PoolSizer(manager, this.maxPerRoute, this.routes,
                    this.reservedPerRoute, this.reservedTotal));
            try {
                HttpClientBuilder client = new UnbindingClientBuilder(binding).useSystemProperties()
                    .setConnectionManager(manager)
                    .setRetryStrategy(NoStatusRetries.INSTANCE)
                    .setRedirectStrategy(
                            this.withinHost ? SameHostRedirects.INSTANCE : DefaultRedirectStrategy.INSTANCE)
                    .evictIdleConnections(TimeValue.of(this.idleConnectionEviction));
                this.clientCustomizer.accept(client);
                HttpComponentsClientHttpRequestFactory factory = new HttpComponentsClientHttpRequestFactory(
                        client.build());
                factory.setConnectionRequestTimeout(this.connectionRequestTimeout);
                factory.setReadTimeout(this.readTimeout);
                return factory;
            }
            catch (RuntimeException | Error ex) {
                binding.close();
                manager.close();
                throw ex;
            }
        }

        private static Duration positive(String name, Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive but was " + value);
            }
            return value;
        }
    }
}
