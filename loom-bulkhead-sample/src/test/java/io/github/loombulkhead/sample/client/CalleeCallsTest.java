package io.github.loombulkhead.sample.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientAdapter;
import org.springframework.web.service.invoker.HttpServiceProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** Waiting for an idle callee tells a callee that is gone from one that is still busy. */
class CalleeCallsTest {

    @Test
    void aCalleeThatRefusesConnectionsIsReportedGoneLongBeforeTheTimeout() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        RestClient client = RestClient.create("http://127.0.0.1:" + closedPort);
        SlowApi api = HttpServiceProxyFactory.builderFor(RestClientAdapter.create(client))
            .build()
            .createClient(SlowApi.class);
        CalleeCalls calls = new CalleeCalls(api, null, null, null, null);
        long start = System.nanoTime();
        assertThatIllegalStateException().isThrownBy(() -> calls.awaitIdleCallee(Duration.ofMinutes(2)))
            .withMessageContaining("The callee refuses connections")
            .withMessageContaining("See its log");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(60));
    }
}
