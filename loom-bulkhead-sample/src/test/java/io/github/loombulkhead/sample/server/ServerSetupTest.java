package io.github.loombulkhead.sample.server;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The inbound setups' max wait: beyond the longest wait a request can have, so that "sheds nothing" holds however
 * slow the callee. A request holds its permit for at most two calls, each ending by its connect and read timeouts.
 */
class ServerSetupTest {

    private static final String MAX_WAIT = "--loom.bulkhead.instances.server.max-wait-duration=";

    @Test
    void theDefaultScenarioKeepsTheBulkheadsDefaultMaxWait() {
        // 1,000 requests, 200 at once: 5 rounds of 2 x (500 ms + 500 ms) = 10 s, twice that and 10 s is 30 s.
        assertThat(ServerSetup.inboundMaxWait(200, 1000, 2, Duration.ofMillis(500), Duration.ofMillis(500)))
            .isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void aSlowCalleeAndAHighConcurrencyGetAMaxWaitBeyondTheLongestWait() {
        // 5,000 requests, 10 at once: 500 rounds of 2 x (500 ms + 5 s) = 5,500 s; twice that and 10 s.
        Duration maxWait = ServerSetup.inboundMaxWait(10, 5000, 2, Duration.ofMillis(500), Duration.ofSeconds(5));
        assertThat(maxWait).isEqualTo(Duration.ofSeconds(11_010));
        assertThat(ServerSetup.VIRTUAL_INBOUND.arguments(10, 5000, maxWait))
            .contains(MAX_WAIT + "11010000ms", "--loom.bulkhead.instances.server.max-concurrent-calls=10",
                    "--loom.bulkhead.instances.server.queue-capacity=10000");
        assertThat(ServerSetup.VIRTUAL_INBOUND_SHED.arguments(10, 5000, maxWait)).contains(MAX_WAIT + "11010000ms");
        assertThat(ServerSetup.VIRTUAL.arguments(10, 5000, maxWait)).noneMatch((argument) -> argument.startsWith(MAX_WAIT));
        assertThat(ServerSetup.VIRTUAL_BULKHEAD.arguments(10, 5000, maxWait))
            .noneMatch((argument) -> argument.startsWith(MAX_WAIT));
    }
}
