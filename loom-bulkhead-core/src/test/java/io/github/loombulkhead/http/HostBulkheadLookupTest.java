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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = ' ', textBlock = """
            https://API.example.com/v1/items?q=1 https://api.example.com:443
            http://api.example.com/ http://api.example.com:80
            http://api.example.com:8080/x http://api.example.com:8080
            HTTP://[::1]:9000/x http://[::1]:9000
            """)
    void theTargetIsSchemeHostAndPortWithDefaultPortsFilledIn(String uri, String target) {
        assertThat(HostBulkheadLookup.target(URI.create(uri))).isEqualTo(target);
    }

    /**
     * Docker Compose service names (underscores make java.net.URI treat the authority as registry-based) and
     * internationalized names, as given and as RestClient percent-encodes them: one ASCII spelling.
     */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = ' ', textBlock = """
            http://my_service:8080/x http://my_service:8080
            http://user@My_Service/x http://my_service:80
            https://Bücher.example/buch https://xn--bcher-kva.example:443
            https://b%C3%BCcher.example/buch https://xn--bcher-kva.example:443
            https://xn--bcher-kva.example/buch https://xn--bcher-kva.example:443
            """)
    void hostsThatUriGetHostCannotParseAreReadFromTheAuthority(String uri, String target) {
        assertThat(HostBulkheadLookup.target(URI.create(uri))).isEqualTo(target);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = ' ', textBlock = """
            http://api.example.com./x http://api.example.com:80
            http://[0:0:0:0:0:0:0:1]:9000/x http://[::1]:9000
            http://[0000::0001]:9000/x http://[::1]:9000
            http://[2001:DB8:0:0:1:0:0:1]/x http://[2001:db8::1:0:0:1]:80
            http://[2001:db8:0:1:1:1:1:1]/x http://[2001:db8:0:1:1:1:1:1]:80
            http://[::ffff:127.0.0.1]:9000/x http://127.0.0.1:9000
            http://[fe80:0::1%25eth0]:9000/x http://[fe80::1%25eth0]:9000
            """)
    void eachHostHasOneSpelling(String uri, String target) {
        assertThat(HostBulkheadLookup.target(URI.create(uri))).isEqualTo(target);
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
