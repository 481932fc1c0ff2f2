package io.github.loombulkhead.sample.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.loombulkhead.sample.SampleArgumentException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the server comparison ({@code --loom.sample.run=server-compare}), bound from
 * {@code loom.sample.server.*}.
 *
 * @param concurrency Concurrency levels ab runs each setup at (ab -c), in this order.
 * @param requests Requests ab sends per setup and level (ab -n); at least the highest level. More are sent when the
 * setup's Little's-law bound would serve them in less than {@code levelDuration}.
 * @param levelDuration How long each level runs at least, at the setup's Little's-law bound: ab sends
 * {@code max(requests, bound x levelDuration)}, so that opening the connections and the last, partly filled round of
 * requests weigh little. 0 sends exactly {@code requests}.
 * @param warmupRequests Requests sent to each front server before it is measured, spread over the levels (at least
 * one per connection at each level), so that it runs compiled code. 0 to skip.
 * @param warmupDuration How long the warm-up runs at most, at the setup's Little's-law bound, spread over the levels.
 * @param setups Setups to run, in this order. Default: all of them.
 * @param ab The ab binary (Debian package apache2-utils).
 * @param samples File a front server appends its samples to (set by the comparison for the JVMs it starts).
 */
@ConfigurationProperties("loom.sample.server")
public record ServerCompareProperties(@DefaultValue({ "100", "1000" }) List<Integer> concurrency,
        @DefaultValue("1000") int requests, @DefaultValue("10s") Duration levelDuration,
        @DefaultValue("10000") int warmupRequests, @DefaultValue("15s") Duration warmupDuration,
        @Nullable List<String> setups, @DefaultValue("ab") String ab, @Nullable Path samples) {

    public ServerCompareProperties {
        if (concurrency.isEmpty() || concurrency.stream().anyMatch((level) -> level == null || level < 1)) {
            throw new SampleArgumentException(
                    "loom.sample.server.concurrency must list levels of 1 or more, such as 100,1000, but was "
                            + concurrency);
        }
        int highest = concurrency.stream().mapToInt(Integer::intValue).max().orElse(1);
        if (requests < highest) {
            throw new SampleArgumentException("loom.sample.server.requests must be at least the highest concurrency ("
                    + highest + ": ab sends each connection at least one request), but was " + requests);
        }
        if (levelDuration.isNegative()) {
            throw new SampleArgumentException(
                    "loom.sample.server.level-duration must be 0 or more, such as 10s, but was " + levelDuration);
        }
        if (warmupDuration.isNegative()) {
            throw new SampleArgumentException(
                    "loom.sample.server.warmup-duration must be 0 or more, such as 15s, but was " + warmupDuration);
        }
        if (warmupRequests < 0) {
            throw new SampleArgumentException(
                    "loom.sample.server.warmup-requests must be 0 or more, but was " + warmupRequests);
        }
        if (setups != null) {
            checkSetups(setups);
        }
    }

    private static void checkSetups(List<String> setups) {
        if (setups.isEmpty()) {
            throw new SampleArgumentException("loom.sample.server.setups must name at least one setup, or be left out "
                    + "to run all of them; valid setups: " + String.join(",", ServerSetup.ids()));
        }
        Set<String> seen = new HashSet<>();
        for (String setup : setups) {
            if (ServerSetup.fromId(setup) == null) {
                throw new SampleArgumentException("loom.sample.server.setups contains unknown setup '" + setup
                        + "'; valid setups: " + String.join(",", ServerSetup.ids()));
            }
            if (!seen.add(setup)) {
                throw new SampleArgumentException("loom.sample.server.setups names '" + setup
                        + "' twice; name each setup once");
            }
        }
    }

    /** Requests ab sends to {@code setup} at {@code concurrency}: at least {@code requests}, enough for the level duration. */
    public int requestsAt(ServerSetup setup, int concurrency, int capacity, Duration latency) {
        double bound = setup.littlesLawBound(concurrency, capacity, latency);
        return (int) Math.max(this.requests, Math.ceil(bound * this.levelDuration.toMillis() / 1000.0));
    }

    /**
     * Warm-up requests for {@code setup} at {@code concurrency}, one of the levels: the warm-up runs at every level in
     * turn, so that the code paths of each level (requests that wait at the higher ones) run compiled when measured.
     * Each level gets an equal part of {@code warmupRequests} and of {@code warmupDuration} at the setup's bound, and
     * at least one request per connection.
     */
    public int warmupRequestsAt(ServerSetup setup, int concurrency, int capacity, Duration latency) {
        if (this.warmupRequests == 0) {
            return 0;
        }
        int levels = this.concurrency.size();
        double bound = setup.littlesLawBound(concurrency, capacity, latency);
        long inDuration = (long) Math.ceil(bound * this.warmupDuration.toMillis() / 1000.0 / levels);
        return (int) Math.max(concurrency, Math.min(this.warmupRequests / levels, inDuration));
    }

    /** The setups to run, in order. */
    public List<ServerSetup> setupList() {
        return (this.setups != null) ? this.setups.stream().map(ServerSetup::fromId).toList()
                : List.of(ServerSetup.values());
    }
}
