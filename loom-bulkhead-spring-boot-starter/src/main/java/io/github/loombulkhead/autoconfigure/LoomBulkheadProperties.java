package io.github.loombulkhead.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.autoconfigure.server.ServerBulkheadProperties;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.DropClassifier;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Configuration of loom-bulkhead under {@code loom.bulkhead}: defaults for every bulkhead,
 * per-name overrides, bulkheads on HTTP clients and the optional bounded {@code @Async} executor.
 */
@ConfigurationProperties(prefix = "loom.bulkhead", ignoreUnknownFields = false)
public class LoomBulkheadProperties {

    /**
     * Whether to enable loom-bulkhead. It is active only when spring.threads.virtual.enabled is true as well.
     */
    private boolean enabled = true;

    /**
     * Whether tasks of bulkhead executors and asynchronous @Bulkhead calls run with the submitter's context: MDC,
     * Micrometer context-propagation thread locals and the application's TaskDecorator beans.
     */
    private boolean propagateContext = true;

    /**
     * Settings every bulkhead starts from; an instance overrides them field by field.
     */
    private final Defaults defaults = new Defaults();

    /**
     * Settings of individual bulkheads by name; unset fields come from loom.bulkhead.defaults. A name used by
     * @Bulkhead or an HTTP group without an entry here gets the defaults.
     */
    private final Map<String, NamedInstance> instances = new LinkedHashMap<>();

    private final Http http = new Http();

    private final TaskExecution taskExecution = new TaskExecution();

    private final Cluster cluster = new Cluster();

    @NestedConfigurationProperty
    private final ServerBulkheadProperties server = new ServerBulkheadProperties();

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isPropagateContext() {
        return this.propagateContext;
    }

    public void setPropagateContext(boolean propagateContext) {
        this.propagateContext = propagateContext;
    }

    public Defaults getDefaults() {
        return this.defaults;
    }

    public Map<String, NamedInstance> getInstances() {
        return this.instances;
    }

    public Http getHttp() {
        return this.http;
    }

    public TaskExecution getTaskExecution() {
        return this.taskExecution;
    }

    public Cluster getCluster() {
        return this.cluster;
    }

    public ServerBulkheadProperties getServer() {
        return this.server;
    }

    /** Settings every bulkhead starts from; equal to the core library's defaults unless changed. */
    public static class Defaults {

        /**
         * Maximum number of calls or tasks holding a permit at once; at least 1. With adaptive on, the ceiling the
         * algorithm never exceeds.
         */
        private int maxConcurrentCalls = BulkheadConfig.DEFAULT_MAX_CONCURRENT_CALLS;

        /**
         * Maximum time a call or task waits for a permit before it is rejected; 0 disables waiting.
         */
        private Duration maxWaitDuration = BulkheadConfig.DEFAULT_MAX_WAIT_DURATION;

        /**
         * Maximum number of calls or tasks waiting for a permit; more are rejected at once. 0 disables waiting.
         */
        private int queueCapacity = BulkheadConfig.DEFAULT_QUEUE_CAPACITY;

        /**
         * Whether waiting calls get permits in arrival order (FIFO); otherwise newest first (LIFO).
         */
        private boolean fair = true;

        private final DefaultAdaptive adaptive = new DefaultAdaptive();

        public int getMaxConcurrentCalls() {
            return this.maxConcurrentCalls;
        }

        public void setMaxConcurrentCalls(int maxConcurrentCalls) {
            this.maxConcurrentCalls = maxConcurrentCalls;
        }

        public Duration getMaxWaitDuration() {
            return this.maxWaitDuration;
        }

        public void setMaxWaitDuration(Duration maxWaitDuration) {
            this.maxWaitDuration = maxWaitDuration;
        }

        public int getQueueCapacity() {
            return this.queueCapacity;
        }

        public void setQueueCapacity(int queueCapacity) {
            this.queueCapacity = queueCapacity;
        }

        public boolean isFair() {
            return this.fair;
        }

        public void setFair(boolean fair) {
            this.fair = fair;
        }

        public DefaultAdaptive getAdaptive() {
            return this.adaptive;
        }
    }

    /** Settings of one bulkhead; a field left unset takes the value from {@code loom.bulkhead.defaults}. */
    public static class Instance {

        /**
         * Maximum number of calls or tasks holding a permit at once; at least 1. With adaptive on, the ceiling the
         * algorithm never exceeds. Unset: the default.
         */
        private Integer maxConcurrentCalls;

        /**
         * Maximum time a call or task waits for a permit; 0 disables waiting (not allowed for a cluster bulkhead).
         * Unset: the default.
         */
        private Duration maxWaitDuration;

        /**
         * Maximum number of calls or tasks waiting for a permit; 0 disables waiting. Unset: the default.
         */
        private Integer queueCapacity;

        /**
         * Whether waiting calls get permits in arrival order (FIFO); otherwise newest first. Unset: the default.
         */
        private Boolean fair;

        private final InstanceAdaptive adaptive = new InstanceAdaptive();

        public Integer getMaxConcurrentCalls() {
            return this.maxConcurrentCalls;
        }

        public void setMaxConcurrentCalls(Integer maxConcurrentCalls) {
            this.maxConcurrentCalls = maxConcurrentCalls;
        }

        public Duration getMaxWaitDuration() {
            return this.maxWaitDuration;
        }

        public void setMaxWaitDuration(Duration maxWaitDuration) {
            this.maxWaitDuration = maxWaitDuration;
        }

        public Integer getQueueCapacity() {
            return this.queueCapacity;
        }

        public void setQueueCapacity(Integer queueCapacity) {
            this.queueCapacity = queueCapacity;
        }

        public Boolean getFair() {
            return this.fair;
        }

        public void setFair(Boolean fair) {
            this.fair = fair;
        }

        public InstanceAdaptive getAdaptive() {
            return this.adaptive;
        }
    }

    /** A bulkhead configured by name, which may share its limit across processes. */
    public static class NamedInstance extends Instance {

        private final InstanceCluster cluster = new InstanceCluster();

        public InstanceCluster getCluster() {
            return this.cluster;
        }
    }

    /** Settings every cluster bulkhead shares (loom-bulkhead-redis and a RedisConnectionFactory bean needed). */
    public static class Cluster {

        /**
         * Prefix of the Redis keys of cluster bulkheads; separates applications and environments that share a Redis.
         */
        private String keyPrefix = "loom-bulkhead";

        public String getKeyPrefix() {
            return this.keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }
    }

    /** A limit shared by every process that uses the bulkhead's name against the same Redis. */
    public static class InstanceCluster {

        /**
         * Whether max-concurrent-calls bounds all processes together, through permits leased from Redis.
         */
        private boolean enabled = false;

        /**
         * How long a process keeps its permits after its last renewal; a dead process's permits come back after
         * that (plus at most 1 s). At least 300 ms.
         */
        private Duration leaseDuration = Duration.ofSeconds(5);

        /**
         * How long permits no call uses stay with a process after its last call ended, while no other process waits
         * for them: calls that come within it need no round trip to Redis. A process that starts waiting gets them
         * back at once. 0 gives them back as soon as the last call ends.
         */
        private Duration idleLinger = Duration.ofSeconds(1);

        /**
         * What happens while Redis cannot be reached: 'local' enforces the limit divided by the processes last seen
         * alive in each process; 'reject' rejects every call with reason cluster-unavailable.
         */
        private ClusterFallbackMode fallback = ClusterFallbackMode.LOCAL;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getLeaseDuration() {
            return this.leaseDuration;
        }

        public void setLeaseDuration(Duration leaseDuration) {
            this.leaseDuration = leaseDuration;
        }

        public Duration getIdleLinger() {
            return this.idleLinger;
        }

        public void setIdleLinger(Duration idleLinger) {
            this.idleLinger = idleLinger;
        }

        public ClusterFallbackMode getFallback() {
            return this.fallback;
        }

        public void setFallback(ClusterFallbackMode fallback) {
            this.fallback = fallback;
        }
    }

    /** What a cluster bulkhead does while Redis cannot be reached. */
    public enum ClusterFallbackMode {

        /** Each process enforces the limit divided by the processes last seen alive, at least 1. */
        LOCAL,

        /** Every call is rejected with reason cluster-unavailable. */
        REJECT
    }

    /** Bulkheads on RestClients, without code. */
    public static class Http {

        /**
         * Bulkheads on HTTP service groups (@ImportHttpServices, spring.http.serviceclient.<group>) by group name:
         * every call of every client in the group holds a permit of the group's bulkhead.
         */
        private final Map<String, HttpGroup> groups = new LinkedHashMap<>();

        private final PerHost perHost = new PerHost();

        private final Pool pool = new Pool();

        public Map<String, HttpGroup> getGroups() {
            return this.groups;
        }

        public PerHost getPerHost() {
            return this.perHost;
        }

        public Pool getPool() {
            return this.pool;
        }
    }

    /** The bulkhead of one HTTP service group. */
    public static class HttpGroup {

        /**
         * Whether calls of this group's clients are bounded.
         */
        private boolean enabled = true;

        /**
         * Name of the bulkhead the group's calls share, configured under loom.bulkhead.instances. Unset: the group
         * name.
         */
        private String bulkhead;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getBulkhead() {
            return this.bulkhead;
        }

        public void setBulkhead(String bulkhead) {
            this.bulkhead = bulkhead;
        }
    }

    /** One bulkhead per target host for RestClients built from the auto-configured RestClient.Builder. */
    public static class PerHost {

        /**
         * Whether every RestClient built from the auto-configured RestClient.Builder (HTTP service groups included)
         * holds a permit of a bulkhead per target host and port during each call.
         */
        private boolean enabled = false;

        /**
         * Prefix of the per-host bulkhead names; a host's bulkhead is called <prefix><scheme>://<host>:<port> and can be tuned
         * under loom.bulkhead.instances[<prefix><scheme>://<host>:<port>].
         */
        private String namePrefix = "";

        /**
         * Maximum number of distinct hosts that get their own bulkhead; calls to further hosts are rejected.
         */
        private int maxHosts = 256;

        /**
         * Settings of each per-host bulkhead; unset fields come from loom.bulkhead.defaults.
         */
        private final Instance template = new Instance();

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getNamePrefix() {
            return this.namePrefix;
        }

        public void setNamePrefix(String namePrefix) {
            this.namePrefix = namePrefix;
        }

        public int getMaxHosts() {
            return this.maxHosts;
        }

        public void setMaxHosts(int maxHosts) {
            this.maxHosts = maxHosts;
        }

        public Instance getTemplate() {
            return this.template;
        }
    }

    /** The Apache HttpClient 5 connection pool used by RestClients when the application chose no request factory. */
    public static class Pool {

        /**
         * Whether to size the HttpClient 5 connection pool from the bulkhead limits, so the pool never becomes a
         * smaller, hidden limit; a group's methods without a bulkhead keep a default pool's size beside them.
         * Never replaces a request factory the application chose: its own factory (builder) bean, another
         * spring.http.clients.imperative.factory, or a factory set on a client's builder.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** Bounds the auto-configured applicationTaskExecutor (used by @Async) with a bulkhead. */
    public static class TaskExecution {

        /**
         * Whether the applicationTaskExecutor (used by @Async) is a BoundedVirtualExecutor: tasks beyond the limit
         * wait in the bulkhead's queue without a thread, or are rejected, and are measured.
         */
        private boolean enabled = false;

        /**
         * Name of the bulkhead bounding the applicationTaskExecutor, configured under loom.bulkhead.instances.
         */
        private String bulkhead = "application-task-executor";

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getBulkhead() {
            return this.bulkhead;
        }

        public void setBulkhead(String bulkhead) {
            this.bulkhead = bulkhead;
        }
    }

    /**
     * Adaptive limit settings every bulkhead starts from; equal to the core library's defaults
     * ({@code AdaptiveLimitConfig}, {@link DropClassifier#ofDefaults()}) unless changed.
     */
    public static class DefaultAdaptive {

        /** The default of drop-exceptions: the types {@link DropClassifier#ofDefaults()} recognizes. */
        static final List<String> DEFAULT_DROP_EXCEPTIONS = List.of("java.util.concurrent.TimeoutException",
                "java.io.InterruptedIOException", "java.net.ConnectException", "java.net.http.HttpTimeoutException",
                "org.springframework.web.client.HttpServerErrorException$ServiceUnavailable",
                "org.springframework.web.client.HttpClientErrorException$TooManyRequests");

        /**
         * Whether an algorithm finds the limit from the round trip times and drops of finished calls, between
         * min-limit and max-concurrent-calls (then the ceiling); otherwise the limit is max-concurrent-calls.
         */
        private boolean enabled = false;

        /**
         * Algorithm that finds the limit: gradient (compares the round trip time with the no-load one and backs off
         * on drops) or aimd (grows while the whole limit is in use, shrinks on drops only).
         */
        private String algorithm = AdaptiveLimitConfig.DEFAULT_ALGORITHM.name().toLowerCase(Locale.ROOT);

        /**
         * Limit before the first sample; between min-limit and max-concurrent-calls.
         */
        private int initialLimit = AdaptiveLimitConfig.DEFAULT_INITIAL_LIMIT;

        /**
         * Lowest limit the algorithm sets; at least 1 and at most max-concurrent-calls.
         */
        private int minLimit = AdaptiveLimitConfig.DEFAULT_MIN_LIMIT;

        /**
         * Gradient: how far the round trip time may exceed the no-load one, as a ratio, before the limit falls;
         * above 1 and at most 10.
         */
        private double rttTolerance = AdaptiveLimitConfig.DEFAULT_RTT_TOLERANCE;

        /**
         * Growth per round trip once the algorithm knows where the callee starts to queue: gradient grows
         * the limit by this ratio, aimd adds this ratio of the limit it last fell to; above 0 and at most 1.
         */
        private double increaseRatio = AdaptiveLimitConfig.DEFAULT_INCREASE_RATIO;

        /**
         * Gradient: the fewest calls a measurement window compares with the no-load round trip time, whatever
         * its length; both algorithms: the fewest calls finished since a decrease before a collapse can count; 1 to
         * 10000.
         */
        private int windowSamples = AdaptiveLimitConfig.DEFAULT_WINDOW_SAMPLES;

        /**
         * Gradient: factor applied to the limit when calls are dropped beyond the drop tolerance; at least 0.1 and
         * below 1.
         */
        private double dropBackoff = AdaptiveLimitConfig.DEFAULT_DROP_BACKOFF;

        /**
         * Gradient: fraction of a round's calls that may be dropped before the limit falls (three standard deviations
         * more for drops slower than the no-load RTT while the callee shows no queue, and never less than the share of
         * calls that fail at once whatever the load allows); a refusal at once at about the most calls the callee
         * served takes the limit just below them once the refusals exceed that share or the drops this tolerance,
         * except while starting; at least 0 and below 1.
         */
        private double dropTolerance = AdaptiveLimitConfig.DEFAULT_DROP_TOLERANCE;

        /**
         * AIMD: factor applied to the limit after a round with more drops than fail whatever the load (0.9 instead,
         * if higher, when the callee refused the call at once); at least 0.1 and below 1.
         */
        private double backoffRatio = AdaptiveLimitConfig.DEFAULT_BACKOFF_RATIO;

        /**
         * Exceptions (fully qualified class names, nested ones as Outer$Inner) that make a failed @Bulkhead method
         * or executor task an overload signal (a drop) when thrown or among its causes; other failures count as
         * answers, except a call that never reached the callee (an unknown host, no pooled connection in time): no
         * sample. Bulkheads of HTTP clients classify exchanges themselves (timeouts, refused connections, 503, 429).
         */
        private List<String> dropExceptions = new ArrayList<>(DEFAULT_DROP_EXCEPTIONS);

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getAlgorithm() {
            return this.algorithm;
        }

        public void setAlgorithm(String algorithm) {
            this.algorithm = algorithm;
        }

        public int getInitialLimit() {
            return this.initialLimit;
        }

        public void setInitialLimit(int initialLimit) {
            this.initialLimit = initialLimit;
        }

        public int getMinLimit() {
            return this.minLimit;
        }

        public void setMinLimit(int minLimit) {
            this.minLimit = minLimit;
        }

        public double getRttTolerance() {
            return this.rttTolerance;
        }

        public void setRttTolerance(double rttTolerance) {
            this.rttTolerance = rttTolerance;
        }

        public double getIncreaseRatio() {
            return this.increaseRatio;
        }

        public void setIncreaseRatio(double increaseRatio) {
            this.increaseRatio = increaseRatio;
        }

        public int getWindowSamples() {
            return this.windowSamples;
        }

        public void setWindowSamples(int windowSamples) {
            this.windowSamples = windowSamples;
        }

        public double getDropBackoff() {
            return this.dropBackoff;
        }

        public void setDropBackoff(double dropBackoff) {
            this.dropBackoff = dropBackoff;
        }

        public double getDropTolerance() {
            return this.dropTolerance;
        }

        public void setDropTolerance(double dropTolerance) {
            this.dropTolerance = dropTolerance;
        }

        public double getBackoffRatio() {
            return this.backoffRatio;
        }

        public void setBackoffRatio(double backoffRatio) {
            this.backoffRatio = backoffRatio;
        }

        public List<String> getDropExceptions() {
            return this.dropExceptions;
        }

        public void setDropExceptions(List<String> dropExceptions) {
            this.dropExceptions = dropExceptions;
        }
    }

    /**
     * Adaptive limit settings of one bulkhead; a field left unset takes the value from
     * {@code loom.bulkhead.defaults.adaptive}.
     */
    public static class InstanceAdaptive {

        /**
         * Whether an algorithm finds the limit from the round trip times and drops of finished calls, between
         * min-limit and max-concurrent-calls (then the ceiling); otherwise the limit is max-concurrent-calls.
         * Unset: the default.
         */
        private Boolean enabled;

        /**
         * Algorithm that finds the limit: gradient (compares the round trip time with the no-load one and backs off
         * on drops) or aimd (grows while the whole limit is in use, shrinks on drops only). Unset: the default.
         */
        private String algorithm;

        /**
         * Limit before the first sample; between min-limit and max-concurrent-calls. Unset: the default.
         */
        private Integer initialLimit;

        /**
         * Lowest limit the algorithm sets; at least 1 and at most max-concurrent-calls. Unset: the default.
         */
        private Integer minLimit;

        /**
         * Gradient: how far the round trip time may exceed the no-load one, as a ratio, before the limit falls;
         * above 1 and at most 10. Unset: the default.
         */
        private Double rttTolerance;

        /**
         * Growth per round trip once the algorithm knows where the callee starts to queue: gradient grows
         * the limit by this ratio, aimd adds this ratio of the limit it last fell to; above 0 and at most 1. Unset: the default.
         */
        private Double increaseRatio;

        /**
         * Gradient: the fewest calls a measurement window compares with the no-load round trip time, whatever
         * its length; both algorithms: the fewest calls finished since a decrease before a collapse can count; 1 to
         * 10000. Unset: the default.
         */
        private Integer windowSamples;

        /**
         * Gradient: factor applied to the limit when calls are dropped beyond the drop tolerance; at least 0.1 and
         * below 1. Unset: the
         * default.
         */
        private Double dropBackoff;

        /**
         * Gradient: fraction of a round's calls that may be dropped before the limit falls (three standard deviations
         * more for drops slower than the no-load RTT while the callee shows no queue, and never less than the share of
         * calls that fail at once whatever the load allows); a refusal at once at about the most calls the callee
         * served takes the limit just below them once the refusals exceed that share or the drops this tolerance,
         * except while starting; at least 0 and below 1. Unset: the default.
         */
        private Double dropTolerance;

        /**
         * AIMD: factor applied to the limit after a round with more drops than fail whatever the load (0.9 instead,
         * if higher, when the callee refused the call at once); at least 0.1 and below 1. Unset: the default.
         */
        private Double backoffRatio;

        /**
         * Exceptions (fully qualified class names, nested ones as Outer$Inner) that make a failed @Bulkhead method
         * or executor task an overload signal (a drop) when thrown or among its causes; other failures count as
         * answers, except a call that never reached the callee (an unknown host, no pooled connection in time): no
         * sample. Bulkheads of HTTP clients classify exchanges themselves (timeouts, refused connections, 503, 429).
         * Unset: the default.
         */
        private List<String> dropExceptions;

        public Boolean getEnabled() {
            return this.enabled;
        }

        public void setEnabled(Boolean enabled) {
            this.enabled = enabled;
        }

        public String getAlgorithm() {
            return this.algorithm;
        }

        public void setAlgorithm(String algorithm) {
            this.algorithm = algorithm;
        }

        public Integer getInitialLimit() {
            return this.initialLimit;
        }

        public void setInitialLimit(Integer initialLimit) {
            this.initialLimit = initialLimit;
        }

        public Integer getMinLimit() {
            return this.minLimit;
        }

        public void setMinLimit(Integer minLimit) {
            this.minLimit = minLimit;
        }

        public Double getRttTolerance() {
            return this.rttTolerance;
        }

        public void setRttTolerance(Double rttTolerance) {
            this.rttTolerance = rttTolerance;
        }

        public Double getIncreaseRatio() {
            return this.increaseRatio;
        }

        public void setIncreaseRatio(Double increaseRatio) {
            this.increaseRatio = increaseRatio;
        }

        public Integer getWindowSamples() {
            return this.windowSamples;
        }

        public void setWindowSamples(Integer windowSamples) {
            this.windowSamples = windowSamples;
        }

        public Double getDropBackoff() {
            return this.dropBackoff;
        }

        public void setDropBackoff(Double dropBackoff) {
            this.dropBackoff = dropBackoff;
        }

        public Double getDropTolerance() {
            return this.dropTolerance;
        }

        public void setDropTolerance(Double dropTolerance) {
            this.dropTolerance = dropTolerance;
        }

        public Double getBackoffRatio() {
            return this.backoffRatio;
        }

        public void setBackoffRatio(Double backoffRatio) {
            this.backoffRatio = backoffRatio;
        }

        public List<String> getDropExceptions() {
            return this.dropExceptions;
        }

        public void setDropExceptions(List<String> dropExceptions) {
            this.dropExceptions = dropExceptions;
        }
    }
}
