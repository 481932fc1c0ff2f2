package io.github.loombulkhead.sample;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the sample, bound from {@code loom.sample.*}. Scenario values left unset come from the
 * {@link Scale} preset; every value is checked here so a bad one fails at startup with its name.
 *
 * @param run What to do instead of staying up as a web application: 'compare' runs the comparison, writes
 * the report and exits; 'server-compare' runs the server comparison (front servers driven by ab) likewise.
 * @param role Role of this process: 'caller' fires the requests, 'callee' is the slow service.
 * @param scale Preset for the scenario values that are not set: 'default' (about a minute) or 'reference'
 * (the reference's exact numbers, about four minutes).
 * @param requests Number of requests each mode fires at once.
 * @param limit Maximum number of concurrent calls in the bounded modes with a static limit (the adaptive modes
 * use loom.sample.adaptive.max-limit).
 * @param readTimeout Read timeout of the caller's HTTP client.
 * @param connectTimeout Connect timeout of the caller's HTTP client.
 * @param modes Modes to run, in this order. Default: all of them.
 * @param reportDir Directory that receives report.json, report.md, report.html and the callee's log.
 * @param sampleInterval Interval between two points of the time series.
 * @param warmupRequests Quick requests sent before the first mode, spread over the modes, so that both JVMs
 * run compiled code when measured. 0 to skip.
 * @param retainedHeap Whether to take a full GC once the first request of a bounded mode has ended, to
 * measure the heap its queued, parked and running tasks hold.
 * @param progress Whether to draw a progress bar per mode when the console is a terminal (otherwise one line
 * per mode is printed when it ends).
 * @param callee The slow service.
 * @param adaptive The modes that find their limit while they run.
 * @param replicas Number of caller processes (JVMs of this jar) the comparison runs at once against the one callee,
 * each with its share of loom.sample.requests; 1 runs every mode in this JVM.
 * @param replica A caller process of a comparison with several replicas.
 */
@ConfigurationProperties("loom.sample")
public record SampleProperties(@Nullable String run, @DefaultValue("caller") Role role,
        @DefaultValue("default") Scale scale, @Nullable Integer requests, @Nullable Integer limit,
        @Nullable Duration readTimeout, @DefaultValue("500ms") Duration connectTimeout,
        @Nullable List<String> modes, @DefaultValue("target/loom-bulkhead-report") Path reportDir,
        @DefaultValue("100ms") Duration sampleInterval, @DefaultValue("3500") int warmupRequests,
        @DefaultValue("true") boolean retainedHeap, @DefaultValue("true") boolean progress,
        @DefaultValue Callee callee, @DefaultValue Adaptive adaptive, @DefaultValue("1") int replicas,
        @DefaultValue Replica replica) {

    /** The value of {@code loom.sample.run} that runs the client comparison. */
    public static final String RUN_COMPARE = "compare";

    /** The value of {@code loom.sample.run} that runs the server comparison. */
    public static final String RUN_SERVER_COMPARE = "server-compare";

    public SampleProperties {
        if (run != null && !run.isBlank() && !RUN_COMPARE.equals(run) && !RUN_SERVER_COMPARE.equals(run)) {
            throw new SampleArgumentException("loom.sample.run must be 'compare' or 'server-compare' (or left out to "
                    + "start the web application), but was '" + run + "'");
        }
        atLeast("loom.sample.requests", requests, 1);
        atLeast("loom.sample.limit", limit, 1);
        positive("loom.sample.read-timeout", readTimeout);
        positive("loom.sample.connect-timeout", connectTimeout);
        positive("loom.sample.sample-interval", sampleInterval);
        atLeast("loom.sample.warmup-requests", warmupRequests, 0);
        atLeast("loom.sample.replicas", replicas, 1);
        if (modes != null) {
            checkModes(modes);
        }
        checkReplicasHaveRequests(replicas, requests, scale);
    }

    /** Whether this process runs the comparison and exits. */
    public boolean isCompare() {
        return RUN_COMPARE.equals(this.run);
    }

    /** Whether this process coordinates a comparison whose modes run in several caller processes. */
    public boolean isReplicated() {
        return isCompare() && this.replicas > 1 && this.replica.index() == null;
    }

    /** Whether this process is one of the callers of a comparison with several replicas. */
    public boolean isReplica() {
        return this.replica.index() != null;
    }

    /** Whether this process runs the server comparison and exits. */
    public boolean isServerCompare() {
        return RUN_SERVER_COMPARE.equals(this.run);
    }

    private static void checkReplicasHaveRequests(int replicas, @Nullable Integer requests, Scale scale) {
        int resolved = (requests != null) ? requests : scale.requests();
        if (resolved < replicas) {
            String value = (requests != null) ? String.valueOf(requests)
                    : resolved + ", the preset of loom.sample.scale=" + scale.name().toLowerCase(Locale.ROOT);
            throw new SampleArgumentException("loom.sample.requests (" + value + ") must be at least "
                    + "loom.sample.replicas (" + replicas + "), so that every replica has a request; set "
                    + "loom.sample.requests to at least " + replicas + " or run fewer replicas");
        }
    }

    private static void checkModes(List<String> modes) {
        if (modes.isEmpty()) {
            throw new SampleArgumentException("loom.sample.modes must name at least one mode; valid modes: "
                    + String.join(", ", Mode.ids()));
        }
        Set<String> seen = new HashSet<>();
        for (String mode : modes) {
            if (Mode.fromId(mode).isEmpty()) {
                throw new SampleArgumentException("loom.sample.modes contains unknown mode '" + mode
                        + "'; valid modes: " + String.join(", ", Mode.ids()));
            }
            if (!seen.add(mode)) {
                throw new SampleArgumentException("loom.sample.modes names '" + mode + "' twice");
            }
        }
    }

    static void atLeast(String name, @Nullable Integer value, int min) {
        if (value != null && value < min) {
            throw new SampleArgumentException(name + " must be at least " + min + ", but was " + value);
        }
    }

    static void positive(String name, @Nullable Duration value) {
        if (value != null && (value.isNegative() || value.isZero())) {
            throw new SampleArgumentException(name + " must be a positive duration such as 500ms, but was " + value);
        }
    }

    /** The two roles one jar can play. */
    public enum Role {

        /** Fires the requests (the comparison, or the web endpoints that run one mode each). */
        CALLER,

        /** The slow service: {@code GET /api/test/slow} on Tomcat with a bounded number of worker threads. */
        CALLEE

    }

    /**
     * The slow service.
     *
     * @param capacity Number of Tomcat worker threads (platform threads) of the callee; excess requests queue.
     * @param latency How long GET /api/test/slow takes to answer.
     * @param url Base URL of an already running callee to call instead of starting one, such as
     * http://localhost:8081.
     * @param port Loopback port for the callee the caller starts. 0 picks a free one.
     * @param startupTimeout How long the caller waits for the callee it started to answer.
     * @param jvmArguments JVM options of the callee the caller starts.
     * @param capacityChanges Changes of the callee's worker threads during each mode, as capacity@time since the
     * mode started, comma-separated, such as 60@2s,200@6s. Each mode starts at loom.sample.callee.capacity.
     */
    public record Callee(@Nullable Integer capacity, @Nullable Duration latency, @Nullable URI url,
            @DefaultValue("0") int port, @DefaultValue("60s") Duration startupTimeout,
            @DefaultValue("-Xmx512m") List<String> jvmArguments, @Nullable String capacityChanges) {

        /** Name of the capacity changes setting. */
        static final String CAPACITY_CHANGES = "loom.sample.callee.capacity-changes";

        public Callee {
            atLeast("loom.sample.callee.capacity", capacity, 1);
            if (latency != null && latency.isNegative()) {
                throw new SampleArgumentException(
                        "loom.sample.callee.latency must not be negative, but was " + latency);
            }
            if (port < 0 || port > 65_535) {
                throw new SampleArgumentException(
                        "loom.sample.callee.port must be between 0 (any free port) and 65535, but was " + port);
            }
            positive("loom.sample.callee.startup-timeout", startupTimeout);
            if (url != null && (url.getScheme() == null || url.getHost() == null)) {
                throw new SampleArgumentException(
                        "loom.sample.callee.url must be an absolute http URL such as http://localhost:8081, but was "
                                + url);
            }
            CapacityChange.parseAll(CAPACITY_CHANGES, capacityChanges);
        }

        /** The parsed {@link #capacityChanges()}, in increasing time; empty when there are none. */
        public List<CapacityChange> capacityChangeList() {
            return CapacityChange.parseAll(CAPACITY_CHANGES, this.capacityChanges);
        }
    }

    /**
     * The adaptive modes ({@code loom-bulkhead-adaptive} and the Netflix ones).
     *
     * @param maxLimit Most concurrent calls an adaptive mode may ever allow; otherwise each algorithm starts from
     * and keeps to its own defaults.
     */
    public record Adaptive(@DefaultValue("1000") int maxLimit) {

        public Adaptive {
            atLeast("loom.sample.adaptive.max-limit", maxLimit, 1);
        }
    }

    /**
     * A caller process of a comparison with several replicas, and how the comparison starts them.
     *
     * @param index Position of this process among the replicas, from 0; set by the comparison that started it.
     * @param gate Directory through which the replicas start each mode at the same moment; set by the comparison.
     * @param jvmArguments JVM options of each replica the comparison starts.
     * @param startupTimeout How long the comparison waits, beyond twice a mode's deadline, for every replica to be
     * ready for the first mode; a replica, given it by the comparison, waits as long for the first mode to start.
     * @param redisServer The redis-server binary started for loom-bulkhead-cluster when spring.data.redis.* is not
     * set (Debian package redis-server).
     * @param modeDeadline Upper bound for each mode of this replica: the comparison's, which counts all the
     * requests and the callee's capacity changes that only the comparison knows; set by the comparison.
     */
    public record Replica(@Nullable Integer index, @Nullable Path gate,
            @DefaultValue("-Xmx512m") List<String> jvmArguments, @DefaultValue("120s") Duration startupTimeout,
            @DefaultValue("redis-server") String redisServer, @Nullable Duration modeDeadline) {

        public Replica {
            atLeast("loom.sample.replica.index", index, 0);
            positive("loom.sample.replica.startup-timeout", startupTimeout);
            positive("loom.sample.replica.mode-deadline", modeDeadline);
            if (redisServer.isBlank()) {
                throw new SampleArgumentException("loom.sample.replica.redis-server must name the redis-server binary, "
                        + "such as redis-server or /usr/bin/redis-server");
            }
        }
    }
}
