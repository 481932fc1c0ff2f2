package io.github.loombulkhead.benchmarks.jmh;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Semaphore;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * A loopback server and the {@code RestClient}s compared on the HTTP path, all over one pooled Apache
 * HttpClient 5: no limiter, a pass-through interceptor (what any interceptor costs in Spring's request
 * path), a hand-written {@code Semaphore(100)} interceptor, loom's interceptor per client and per host.
 */
public final class LoopbackClients implements AutoCloseable {

    /** Limit of every limiter. */
    public static final int LIMIT = 100;

    private final LoopbackServer server = LoopbackServer.start();

    private final CloseableHttpClient httpClient = HttpClients.custom()
        .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
            .setMaxConnTotal(LIMIT)
            .setMaxConnPerRoute(LIMIT)
            .build())
        .build();

    private final Map<String, RestClient> clients = new LinkedHashMap<>();

    public LoopbackClients() {
        RestClient.Builder builder = RestClient.builder()
            .baseUrl(this.server.baseUrl())
            .requestFactory(new HttpComponentsClientHttpRequestFactory(this.httpClient));
        BulkheadConfig config = BulkheadConfig.custom().maxConcurrentCalls(LIMIT).build();
        this.clients.put("plain", builder.clone().build());
        this.clients.put("noopInterceptor", builder.clone()
            .requestInterceptor((request, body, execution) -> execution.execute(request, body))
            .build());
        this.clients.put("semaphoreInterceptor",
                builder.clone().requestInterceptor(semaphoreInterceptor(new Semaphore(LIMIT))).build());
        this.clients.put("loomPerClient", builder.clone()
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(new Bulkhead("http", config)))
            .build());
        this.clients.put("loomPerHost", builder.clone()
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perHost(BulkheadRegistry.builder().build(),
                    "http-", config, 16))
            .build());
    }

    /** The clients by name, in the order above. */
    public Map<String, RestClient> clients() {
        return this.clients;
    }

    /** One {@code GET /ok}, reading the body. */
    public static String call(RestClient client) {
        return client.get().uri("/ok").retrieve().body(String.class);
    }

    private static ClientHttpRequestInterceptor semaphoreInterceptor(Semaphore semaphore) {
        return (request, body, execution) -> {
            semaphore.acquireUninterruptibly();
            try {
                return execution.execute(request, body);
            }
            finally {
                semaphore.release();
            }
        };
    }

    @Override
    public void close() {
        try {
            this.httpClient.close();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        finally {
            this.server.close();
        }
    }
}
