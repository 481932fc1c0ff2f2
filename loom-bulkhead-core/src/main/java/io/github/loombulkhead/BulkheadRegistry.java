package io.github.loombulkhead;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Named bulkheads, one instance per name, shared by executors, the {@code @Bulkhead} annotation, HTTP
 * interceptors and the metrics binding. A bulkhead is created on first use from the config the
 * resolver gives for its name (by default: a per-name config if registered, otherwise the defaults).
 */
public final class BulkheadRegistry {

    private final Map<String, Bulkhead> bulkheads = new ConcurrentHashMap<>();

    private final Function<String, BulkheadConfig> configResolver;

    private final List<BulkheadListener> listeners = new CopyOnWriteArrayList<>();

    private final List<Consumer<Bulkhead>> onAdded = new CopyOnWriteArrayList<>();

    private BulkheadRegistry(Function<String, BulkheadConfig> configResolver) {
        this.configResolver = configResolver;
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
        boolean[] created = new boolean[1];
        Bulkhead bulkhead = this.bulkheads.computeIfAbsent(name, (key) -> {
            created[0] = true;
            Bulkhead added = new Bulkhead(key, config);
            this.listeners.forEach(added::addListener);
            return added;
        });
        if (created[0]) {
            this.onAdded.forEach((consumer) -> consumer.accept(bulkhead));
        }
        return bulkhead;
    }

    /** The config a bulkhead called {@code name} would be created with. */
    public BulkheadConfig resolveConfig(String name) {
        BulkheadConfig config = this.configResolver.apply(name);
        return (config != null) ? config : BulkheadConfig.ofDefaults();
    }

    /** The bulkhead called {@code name} if it exists. */
    public Optional<Bulkhead> find(String name) {
        return Optional.ofNullable(this.bulkheads.get(name));
    }

    /** Every bulkhead created so far. */
    public Collection<Bulkhead> getAllBulkheads() {
        return List.copyOf(this.bulkheads.values());
    }

    /** Adds a listener to every existing and future bulkhead. */
    public void addListener(BulkheadListener listener) {
        Objects.requireNonNull(listener, "listener must not be null");
        this.listeners.add(listener);
        this.bulkheads.values().forEach((bulkhead) -> bulkhead.addListener(listener));
    }

    /** Calls {@code consumer} for every existing bulkhead now and for each one created later. */
    public void forEachBulkhead(Consumer<Bulkhead> consumer) {
        Objects.requireNonNull(consumer, "consumer must not be null");
        this.onAdded.add(consumer);
        this.bulkheads.values().forEach(consumer);
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
                return (config != null) ? config : byName.getOrDefault(name, defaults);
            });
        }
    }
}
