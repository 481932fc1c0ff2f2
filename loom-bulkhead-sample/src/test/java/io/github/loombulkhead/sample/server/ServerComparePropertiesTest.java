package io.github.loombulkhead.sample.server;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.loombulkhead.sample.SampleArgumentException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * How many requests each level and warm-up sends, for the default scenario: a callee of 200 workers answering in
 * 200 ms, so a request with two calls in a row takes 400 ms and the callee serves 500 requests per second at most.
 */
class ServerComparePropertiesTest {

    private static final int CAPACITY = 200;

    private static final Duration LATENCY = Duration.ofMillis(200);

    private static ServerCompareProperties properties(int requests, Duration level, int warmup, Duration warmupFor) {
        return new ServerCompareProperties(List.of(100, 1000), requests, level, warmup, warmupFor, null, "ab", null);
    }

    @Test
    void aLevelRunsForTheLevelDurationAtItsBoundAndNeverSendsFewerThanRequests() {
        ServerCompareProperties defaults = properties(1000, Duration.ofSeconds(10), 10_000, Duration.ofSeconds(15));
        // tomcat-20: 20 threads / 0.4 s = 50 req/s, 500 in 10 s: the 1,000 asked for win.
        assertThat(defaults.requestsAt(ServerSetup.TOMCAT_20, 100, CAPACITY, LATENCY)).isEqualTo(1000);
        // tomcat-50: 125 req/s.
        assertThat(defaults.requestsAt(ServerSetup.TOMCAT_50, 1000, CAPACITY, LATENCY)).isEqualTo(1250);
        // virtual: 100 / 0.4 s = 250 req/s at 100; the callee's 500 req/s at 1,000.
        assertThat(defaults.requestsAt(ServerSetup.VIRTUAL, 100, CAPACITY, LATENCY)).isEqualTo(2500);
        assertThat(defaults.requestsAt(ServerSetup.VIRTUAL, 1000, CAPACITY, LATENCY)).isEqualTo(5000);
        // virtual-parallel: 100 / 0.2 s = 500 req/s already at 100.
        assertThat(defaults.requestsAt(ServerSetup.VIRTUAL_PARALLEL, 100, CAPACITY, LATENCY)).isEqualTo(5000);
        ServerCompareProperties exact = properties(1000, Duration.ZERO, 10_000, Duration.ofSeconds(15));
        assertThat(exact.requestsAt(ServerSetup.VIRTUAL, 1000, CAPACITY, LATENCY)).isEqualTo(1000);
    }

    @Test
    void theWarmupRunsAtEveryLevelForAnEqualPartOfTheWarmupDurationAndRequests() {
        ServerCompareProperties defaults = properties(1000, Duration.ofSeconds(10), 10_000, Duration.ofSeconds(15));
        // Two levels: 7.5 s and 5,000 requests at most for each. tomcat-20 serves 50 req/s: 375 in 7.5 s, and at
        // 1,000 one request per connection.
        assertThat(defaults.warmupRequestsAt(ServerSetup.TOMCAT_20, 100, CAPACITY, LATENCY)).isEqualTo(375);
        assertThat(defaults.warmupRequestsAt(ServerSetup.TOMCAT_20, 1000, CAPACITY, LATENCY)).isEqualTo(1000);
        // virtual: 250 req/s at 100, 500 at 1,000.
        assertThat(defaults.warmupRequestsAt(ServerSetup.VIRTUAL, 100, CAPACITY, LATENCY)).isEqualTo(1875);
        assertThat(defaults.warmupRequestsAt(ServerSetup.VIRTUAL, 1000, CAPACITY, LATENCY)).isEqualTo(3750);
        ServerCompareProperties few = properties(1000, Duration.ofSeconds(10), 3000, Duration.ofSeconds(15));
        assertThat(few.warmupRequestsAt(ServerSetup.VIRTUAL, 1000, CAPACITY, LATENCY)).isEqualTo(1500);
        ServerCompareProperties none = properties(1000, Duration.ofSeconds(10), 0, Duration.ofSeconds(15));
        assertThat(none.warmupRequestsAt(ServerSetup.VIRTUAL, 100, CAPACITY, LATENCY)).isZero();
        // A short warm-up still sends a request per connection.
        ServerCompareProperties brief = properties(1000, Duration.ofSeconds(10), 10_000, Duration.ofMillis(100));
        assertThat(brief.warmupRequestsAt(ServerSetup.TOMCAT_20, 100, CAPACITY, LATENCY)).isEqualTo(100);
    }

    @Test
    void negativeDurationsAreRejectedWithTheProperty() {
        assertThatExceptionOfType(SampleArgumentException.class)
            .isThrownBy(() -> properties(1000, Duration.ofSeconds(-1), 10, Duration.ofSeconds(15)))
            .withMessageContaining("loom.sample.server.level-duration").withMessageContaining("10s");
        assertThatExceptionOfType(SampleArgumentException.class)
            .isThrownBy(() -> properties(1000, Duration.ofSeconds(10), 10, Duration.ofSeconds(-2)))
            .withMessageContaining("loom.sample.server.warmup-duration");
    }

    @Test
    void anEmptySetupListIsRejectedAsTheModesAre() {
        // --loom.sample.server.setups= binds to an empty list, which would run nothing and write an empty report.
        assertThatExceptionOfType(BindException.class).isThrownBy(() -> bind(Map.of("loom.sample.server.setups", "")))
            .havingRootCause()
            .isInstanceOf(SampleArgumentException.class)
            .withMessage("loom.sample.server.setups must name at least one setup, or be left out to run all of "
                    + "them; valid setups: tomcat-20,tomcat-50,virtual,virtual-parallel,virtual-bulkhead,"
                    + "virtual-inbound,virtual-inbound-shed");
    }

    @Test
    void aSetupNamedTwiceIsRejected() {
        // Run twice, the second run would overwrite the first one's samples and chart the same series twice.
        assertThatExceptionOfType(BindException.class)
            .isThrownBy(() -> bind(Map.of("loom.sample.server.setups", "virtual,tomcat-20,virtual")))
            .havingRootCause()
            .isInstanceOf(SampleArgumentException.class)
            .withMessage("loom.sample.server.setups names 'virtual' twice; name each setup once");
    }

    @Test
    void setupsRunInTheOrderNamedAndAllWhenLeftOut() {
        assertThat(bind(Map.of("loom.sample.server.setups", "virtual-inbound,tomcat-20")).setupList())
            .containsExactly(ServerSetup.VIRTUAL_INBOUND, ServerSetup.TOMCAT_20);
        assertThat(bind(Map.of()).setupList()).containsExactly(ServerSetup.values());
    }

    private static ServerCompareProperties bind(Map<String, String> values) {
        return new Binder(new MapConfigurationPropertySource(values)).bindOrCreate("loom.sample.server",
                ServerCompareProperties.class);
    }
}
