package io.github.loombulkhead.benchmarks.jmh;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * One {@code RestClient} call over Apache HttpClient 5 to a loopback server, with and without a limiter in
 * front; the latency distribution (p50) tells how much the limiter adds to a real, if very fast, call.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class HttpPathBenchmark {

    private static final int LIMIT = 100;

    private LoopbackServer server;

    private CloseableHttpClient httpClient;

    private RestClient plain;

    private RestClient semaphoreLimited;

    private RestClient loomPerClient;

    private RestClient loomPerHost;

    @Setup(Level.Trial)
    public void setUp() {
        this.server = LoopbackServer.start();
        this.httpClient = HttpClients.custom()
            .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnTotal(LIMIT)
                .setMaxConnPerRoute(LIMIT)
                .build())
            .build();
        RestClient.Builder builder = RestClient.builder()
            .baseUrl(this.server.baseUrl())
            .requestFactory(new HttpComponentsClientHttpRequestFactory(this.httpClient));
        this.plain = builder.clone().build();
        this.semaphoreLimited = builder.clone().requestInterceptor(semaphoreInterceptor(new Semaphore(LIMIT))).build();
        BulkheadConfig config = BulkheadConfig.custom().maxConcurrentCalls(LIMIT).build();
        this.loomPerClient = builder.clone()
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(new Bulkhead("http", config)))
            .build();
        this.loomPerHost = builder.clone()
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perHost(BulkheadRegistry.builder().build(),
                    "http-", config, 16))
            .build();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        this.httpClient.close();
        this.server.close();
    }

    /** No limiter: the latency of the call itself. */
    @Benchmark
    public String plain() {
        return call(this.plain);
    }

    /** The baseline limiter: a hand-written interceptor around a {@code Semaphore(100)}. */
    @Benchmark
    public String semaphoreInterceptor() {
        return call(this.semaphoreLimited);
    }

    /** loom-bulkhead's interceptor with one bulkhead for the client. */
    @Benchmark
    public String loomPerClient() {
        return call(this.loomPerClient);
    }

    /** loom-bulkhead's interceptor with a bulkhead per target host (looked up on every call). */
    @Benchmark
    public String loomPerHost() {
        return call(this.loomPerHost);
    }

    private static String call(RestClient client) {
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
}
