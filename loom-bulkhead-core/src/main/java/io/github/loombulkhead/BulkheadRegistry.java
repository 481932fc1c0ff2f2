package io.github.loombulkhead;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Named bulkheads, one instance per name, shared by executors, the {@code @Bulkhead} annotation, HTTP
 * interceptors and the metrics binding. A bulkhead is created on first use from the config the
 * resolver gives for its name (by default: a per-name config if registered, otherwise the defaults).
 *
 * <p>Registry listeners and {@link #forEachBulkhead} callbacks reach every bulkhead exactly once, however
 * their registration interleaves with the creation of bulkheads.
 */
public final class BulkheadRegistry {

    private final Map<String, Bulkhead> bulkheads = new ConcurrentHashMap<>();

    /** The config registered or resolved for a name; null when the name has none of its own. */
    private final Function<String, BulkheadConfig> configResolver;

    private final BulkheadConfig defaultConfig;

    /**
     * Orders the creation of bulkheads against the registration of listeners and callbacks; held only to
     * update these lists and the map, never while calling a config resolver or a callback.
     */
    private final ReentrantLock registration = new ReentrantLock();

    /** Guarded by registration. */
    private final List<BulkheadListener> listeners = new ArrayList<>();

    /** Guarded by registration. */
    private final List<Consumer<Bulkhead>> onAdded = new ArrayList<>();

    private BulkheadRegistry(Function<String, BulkheadConfig> configResolver, BulkheadConfig defaultConfig) {
        this.configResolver = configResolver;
        this.defaultConfig = defaultConfig;
    }

    /** A registry whose bulkheads all start from {@link BulkheadConfig#ofDefaults()}. */
    public static BulkheadRegistry ofDefaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The bulkhead called {@code name}, created from the resolved config if absent. */
    public Bulkhead bulkhead(String name) {
        Bulkhead existing = (name != null) ? this.bulkheads.get(name) : null;
        if (existing != null) {
            return existing;
        }
        Bulkhead.requireName(name);
        return bulkhead(name, resolveConfig(name));
    }

    /** The bulkhead called {@code name}, created with {@code config} if absent (an existing one wins). */
    public Bulkhead bulkhead(String name, BulkheadConfig config) {
        Bulkhead.requireName(name);
        Objects.requireNonNull(config, "config must not be null");
        Bulkhead existing = this.bulkheads.get(name);
        if (existing != null) {
            return existing;
        }
        Bulkhead added;
        List<Consumer<Bulkhead>> callbacks;
        this.registration.lock();
        try {
            existing = this.bulkheads.get(name);
            if (existing != null) {
                return existing;
            }
            added = new Bulkhead(name, config);
            this.listeners.forEach(added::addListener);
            this.bulkheads.put(name, added);
            callbacks = List.copyOf(this.onAdded);
        }
        finally {
            this.registration.unlock();
        }
        callbacks.forEach((consumer) -> consumer.accept(added));
        return added;
    }

    /** The config a bulkhead called {@code name} would be created with. */
    public BulkheadConfig resolveConfig(String name) {
        BulkheadConfig config = configuredFor(name);
        return (config != null) ? config : this.defaultConfig;
    }

    /** The config registered or resolved for {@code name} itself, or {@code null} if it would get the defaults. */
    BulkheadConfig configuredFor(String name) {
        return this.configResolver.apply(name);
    }

    /**
     * The config registered ({@link Builder#config}) or resolved ({@link Builder#configResolver}) for {@code name}
     * itself; empty if a bulkhead of that name would get the default config.
     */
    public Optional<BulkheadConfig> findConfig(String name) {
        return Optional.ofNullable(configuredFor(name));
    }

    /** The bulkhead called {@code name} if it exists. */
    public Optional<Bulkhead> find(String name) {
        return Optional.ofNullable(this.bulkheads.get(name));
    }

    /** Every bulkhead created so far. */
    public Collection<Bulkhead> getAllBulkheads() {
        return List.copyOf(this.bulkheads.values());
    }

    /** Adds a listener to every existing and future bulkhead, once to each. */
    public void addListener(BulkheadListener listener) {
        Objects.requireNonNull(listener, "listener must not be null");
        this.registration.lock();
        try {
            this.listeners.add(listener);
            this.bulkheads.values().forEach((bulkhead) -> bulkhead.addListener(listener));
        }
        finally {
            this.registration.unlock();
        }
    }

    /** Removes a listener that {@link #addListener} added from every bulkhead; bulkheads created later do not get it. */
    public void removeListener(BulkheadListener listener) {
        this.registration.lock();
        try {
            if (this.listeners.remove(listener)) {
                this.bulkheads.values().forEach((bulkhead) -> bulkhead.removeListener(listener));
            }
        }
        finally {
            this.registration.unlock();
        }
    }

    /**
     * Calls {@code consumer} once for every existing bulkhead now and once for each one created later, on
     * the thread that creates it (so possibly concurrently with the calls for the existing ones), until the
     * returned registration is closed.
     */
    public Registration forEachBulkhead(Consumer<Bulkhead> consumer) {
        Objects.requireNonNull(consumer, "consumer must not be null");
        Consumer<Bulkhead> registered = consumer::accept;
        List<Bulkhead> existing;
        this.registration.lock();
        try {
            this.onAdded.add(registered);
            existing = List.copyOf(this.bulkheads.values());
        }
        finally {
            this.registration.unlock();
        }
        existing.forEach(consumer);
        return () -> {
            this.registration.lock();
            try {
                this.onAdded.remove(registered);
            }
            finally {
                this.registration.unlock();
            }
        };
    }

    /** Stops a {@link #forEachBulkhead} callback. */
    @FunctionalInterface
    public interface Registration extends AutoCloseable {

        /**
         * Bulkheads created from now on are not passed to the callback; a call already under way on a creating
         * thread may still finish. Closing again does nothing.
         */
        @Override
        void close();
    }

    /** Builds a {@link BulkheadRegistry}. */
    public static final class Builder {

        private BulkheadConfig defaultConfig = BulkheadConfig.ofDefaults();

        private final Map<String, BulkheadConfig> configs = new ConcurrentHashMap<>();

        private Function<String, BulkheadConfig> resolver;

        private Builder() {
        }

        /** Config for bulkheads that have none of their own. */
        public Builder defaultConfig(BulkheadConfig defaultConfig) {
            this.defaultConfig = Objects.requireNonNull(defaultConfig, "defaultConfig must not be null");
            return this;
        }

        /** Config for the bulkhead called {@code name}. */
        public Builder config(String name, BulkheadConfig config) {
            this.configs.put(Bulkhead.requireName(name), Objects.requireNonNull(config, "config must not be null"));
            return this;
        }

        /** Resolves a config by name, overriding {@link #config} and {@link #defaultConfig}; may return null. */
        public Builder configResolver(Function<String, BulkheadConfig> resolver) {
            this.resolver = resolver;
            return this;
        }

        public BulkheadRegistry build() {
            Map<String, BulkheadConfig> byName = Map.copyOf(this.configs);
            BulkheadConfig defaults = this.defaultConfig;
            Function<String, BulkheadConfig> custom = this.resolver;
            return new BulkheadRegistry((name) -> {
                BulkheadConfig config = (custom != null) ? custom.apply(name) : null;
                return (config != null) ? config : byName.get(name);
            }, defaults);
        }
    }
}
