package io.github.loombulkhead.http;

import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;

import org.springframework.http.HttpRequest;

/** One bulkhead per target {@code scheme://host:port}, created lazily, at most {@code maxHosts} of them. */
final class HostBulkheads implements Function<HttpRequest, Bulkhead> {

    private final BulkheadRegistry registry;

    private final String namePrefix;

    private final Function<String, BulkheadConfig> configs;

    private final int maxHosts;

    private final Map<String, Bulkhead> byTarget = new ConcurrentHashMap<>();

    private final ReentrantLock creation = new ReentrantLock();

    HostBulkheads(BulkheadRegistry registry, String namePrefix, Function<String, BulkheadConfig> configs,
            int maxHosts) {
        this.registry = Objects.requireNonNull(registry, "registry must not be null");
        this.namePrefix = Objects.requireNonNull(namePrefix, "namePrefix must not be null");
        this.configs = Objects.requireNonNull(configs, "configs must not be null");
        if (maxHosts < 1) {
            throw new IllegalArgumentException("maxHosts must be at least 1 but was " + maxHosts);
        }
        this.maxHosts = maxHosts;
    }

    @Override
    public Bulkhead apply(HttpRequest request) {
        String target = target(request.getURI());
        Bulkhead bulkhead = this.byTarget.get(target);
        if (bulkhead != null) {
            return bulkhead;
        }
        this.creation.lock();
        try {
            bulkhead = this.byTarget.get(target);
            if (bulkhead == null) {
                if (this.byTarget.size() >= this.maxHosts) {
                    throw new TooManyHostsException(this.namePrefix, target, this.maxHosts);
                }
                String name = this.namePrefix + target;
                BulkheadConfig config = this.configs.apply(name);
                bulkhead = (config != null) ? this.registry.bulkhead(name, config) : this.registry.bulkhead(name);
                this.byTarget.put(target, bulkhead);
            }
            return bulkhead;
        }
        finally {
            this.creation.unlock();
        }
    }

    /** {@code scheme://host:port} in lower case, with the scheme's default port filled in. */
    static String target(URI uri) {
        String scheme = uri.getScheme();
        String host = uri.getHost();
        if (scheme == null || host == null) {
            throw new IllegalArgumentException("Per-host bulkhead needs an absolute URI with a host but got '" + uri
                    + "'; set a base URL on the client");
        }
        scheme = scheme.toLowerCase(Locale.ROOT);
        int port = uri.getPort();
        if (port == -1) {
            port = switch (scheme) {
                case "http", "ws" -> 80;
                case "https", "wss" -> 443;
                default -> -1;
            };
        }
        return scheme + "://" + host.toLowerCase(Locale.ROOT) + ((port != -1) ? ":" + port : "");
    }
}
