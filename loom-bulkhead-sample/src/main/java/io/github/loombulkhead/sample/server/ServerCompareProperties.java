package io.github.loombulkhead.sample.server;

import java.nio.file.Path;
import java.util.List;

import io.github.loombulkhead.sample.SampleArgumentException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the server comparison ({@code --loom.sample.run=server-compare}), bound from
 * {@code loom.sample.server.*}.
 *
 * @param concurrency Concurrency levels ab runs each setup at (ab -c), in this order.
 * @param requests Requests ab sends per setup and level (ab -n); at least the highest level.
 * @param warmupRequests Requests sent to each front server before it is measured, so it runs compiled code. 0 to
 * skip.
 * @param setups Setups to run, in this order. Default: all of them.
 * @param ab The ab binary (Debian package apache2-utils).
 * @param samples File a front server appends its samples to (set by the comparison for the JVMs it starts).
 */
@ConfigurationProperties("loom.sample.server")
public record ServerCompareProperties(@DefaultValue({ "100", "1000" }) List<Integer> concurrency,
        @DefaultValue("1000") int requests, @DefaultValue("500") int warmupRequests, @Nullable List<String> setups,
        @DefaultValue("ab") String ab, @Nullable Path samples) {

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
        if (warmupRequests < 0) {
            throw new SampleArgumentException(
                    "loom.sample.server.warmup-requests must be 0 or more, but was " + warmupRequests);
        }
        if (setups != null) {
            for (String setup : setups) {
                if (ServerSetup.fromId(setup) == null) {
                    throw new SampleArgumentException("loom.sample.server.setups contains unknown setup '" + setup
                            + "'; valid setups: " + String.join(",", ServerSetup.ids()));
                }
            }
        }
    }

    /** The setups to run, in order. */
    public List<ServerSetup> setupList() {
        return (this.setups != null) ? this.setups.stream().map(ServerSetup::fromId).toList()
                : List.of(ServerSetup.values());
    }
}
