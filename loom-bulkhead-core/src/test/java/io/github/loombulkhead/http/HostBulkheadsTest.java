package io.github.loombulkhead.http;

import java.net.URI;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** How a request's target is named for its per-host bulkhead. */
class HostBulkheadsTest {

    @Test
    void theTargetIsSchemeHostAndPortWithDefaultPortsFilledIn() {
        assertThat(HostBulkheads.target(URI.create("https://API.example.com/v1/items?q=1")))
            .isEqualTo("https://api.example.com:443");
        assertThat(HostBulkheads.target(URI.create("http://api.example.com/"))).isEqualTo("http://api.example.com:80");
        assertThat(HostBulkheads.target(URI.create("http://api.example.com:8080/x")))
            .isEqualTo("http://api.example.com:8080");
        assertThat(HostBulkheads.target(URI.create("HTTP://[::1]:9000/x"))).isEqualTo("http://[::1]:9000");
    }

    @Test
    void aRelativeUriIsRefusedWithAHint() {
        assertThatIllegalArgumentException().isThrownBy(() -> HostBulkheads.target(URI.create("/relative/path")))
            .withMessageContaining("'/relative/path'")
            .withMessageContaining("set a base URL");
    }
}
