package io.github.loombulkhead.http;

import java.net.URI;
import java.util.List;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import org.apache.hc.core5.http.HttpHost;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;

/** How a request's target is named for its per-host bulkhead: one name per host, however it is spelled. */
@ExtendWith(LoopbackServerExtension.class)
class HostBulkheadLookupTest {

    @AutoClose
    private final Resources resources = new Resources();

    @Test
    void theTargetIsSchemeHostAndPortWithDefaultPortsFilledIn() {
        assertThat(HostBulkheadLookup.target(URI.create("https://API.example.com/v1/items?q=1")))
            .isEqualTo("https://api.example.com:443");
        assertThat(HostBulkheadLookup.target(URI.create("http://api.example.com/"))).isEqualTo("http://api.example.com:80");
        assertThat(HostBulkheadLookup.target(URI.create("http://api.example.com:8080/x")))
            .isEqualTo("http://api.example.com:8080");
        assertThat(HostBulkheadLookup.target(URI.create("HTTP://[::1]:9000/x"))).isEqualTo("http://[::1]:9000");
    }

    @Test
    void hostsThatUriGetHostCannotParseAreReadFromTheAuthority() {
        // Docker Compose service names: underscores make java.net.URI treat the authority as registry-based.
        assertThat(HostBulkheadLookup.target(URI.create("http://my_service:8080/x"))).isEqualTo("http://my_service:8080");
        assertThat(HostBulkheadLookup.target(URI.create("http://user@My_Service/x"))).isEqualTo("http://my_service:80");
        // Internationalized names, as given and as RestClient percent-encodes them: one ASCII spelling.
        assertThat(HostBulkheadLookup.target(URI.create("https://Bücher.example/buch")))
            .isEqualTo("https://xn--bcher-kva.example:443");
        assertThat(HostBulkheadLookup.target(URI.create("https://b%C3%BCcher.example/buch")))
            .isEqualTo("https://xn--bcher-kva.example:443");
        assertThat(HostBulkheadLookup.target(URI.create("https://xn--bcher-kva.example/buch")))
            .isEqualTo("https://xn--bcher-kva.example:443");
    }

    @Test
    void eachHostHasOneSpelling() {
        assertThat(HostBulkheadLookup.target(URI.create("http://api.example.com./x")))
            .isEqualTo("http://api.example.com:80");
        assertThat(HostBulkheadLookup.target(URI.create("http://[0:0:0:0:0:0:0:1]:9000/x"))).isEqualTo("http://[::1]:9000");
        assertThat(HostBulkheadLookup.target(URI.create("http://[0000::0001]:9000/x"))).isEqualTo("http://[::1]:9000");
        assertThat(HostBulkheadLookup.target(URI.create("http://[2001:DB8:0:0:1:0:0:1]/x")))
            .isEqualTo("http://[2001:db8::1:0:0:1]:80");
        assertThat(HostBulkheadLookup.target(URI.create("http://[2001:db8:0:1:1:1:1:1]/x")))
            .isEqualTo("http://[2001:db8:0:1:1:1:1:1]:80");
        assertThat(HostBulkheadLookup.target(URI.create("http://[::ffff:127.0.0.1]:9000/x")))
            .isEqualTo("http://127.0.0.1:9000");
        assertThat(HostBulkheadLookup.target(URI.create("http://[fe80:0::1%25eth0]:9000/x")))
            .isEqualTo("http://[fe80::1%25eth0]:9000");
    }

    @Test
    void aRealClientCountsEachHostOnceWhateverItsSpelling(LoopbackServer server) throws Exception {
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        BulkheadConfig template = BulkheadConfig.custom().maxConcurrentCalls(2).build();
        // The loopback server is the proxy, so the names need not resolve; the client still names the target.
        HttpComponentsClientHttpRequestFactory factory = PooledHttpRequestFactories
            .forHosts(registry, "out:", template, 3)
            .httpClient((client) -> client.setProxy(new HttpHost("127.0.0.1", server.port())))
            .build();
        this.resources.add(factory::destroy);
        RestClient client = RestClient.builder()
            .requestFactory(factory)
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perHost(registry, "out:", template, 3))
            .build();
        // As a Docker Compose service name is usually given: a base URL.
        for (String base : List.of("http://my_service:8080", "http://My_Service:8080")) {
            assertThat(client.mutate().baseUrl(base).build().get().uri("/slow?ms=0").retrieve().body(String.class))
                .isEqualTo("ok");
        }
        // RestClient's URI templates refuse non-ASCII hosts; a URI passes them as given.
        for (String base : List.of("http://bücher.example", "http://xn--bcher-kva.example", "http://api.example.",
                "http://API.example:80")) {
            assertThat(client.get().uri(URI.create(base + "/slow?ms=0")).retrieve().body(String.class))
                .isEqualTo("ok");
        }
        assertThat(server.requests()).isEqualTo(6);
        assertThat(registry.getAllBulkheads()).extracting(Bulkhead::getName, Bulkhead::getPermittedCount)
            .containsExactlyInAnyOrder(tuple("out:http://my_service:8080", 2L),
                    tuple("out:http://xn--bcher-kva.example:80", 2L), tuple("out:http://api.example:80", 2L));
    }

    @Test
    void anUnreadableHostIsRefusedNamingIt() {
        String tooLong = "a".repeat(64);
        assertThatIllegalArgumentException()
            .isThrownBy(() -> HostBulkheadLookup.target(URI.create("http://" + tooLong + "_x.example/")))
            .withMessageContaining("'" + tooLong + "_x.example'")
            .withMessageContaining("as a domain name");
    }

    @Test
    void aRelativeUriIsRefusedWithAHint() {
        assertThatIllegalArgumentException().isThrownBy(() -> HostBulkheadLookup.target(URI.create("/relative/path")))
            .withMessageContaining("'/relative/path'")
            .withMessageContaining("set a base URL");
    }
}
