package io.github.loombulkhead.benchmarks.jmh;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.web.client.RestClient;

/**
 * One {@code RestClient} call over Apache HttpClient 5 to a loopback server, with and without a limiter in
 * front; the latency distribution (p50) tells how much the limiter adds to a real, if very fast, call.
 * Each method runs in its own fork, so a few percent between rows can be drift of the machine; the
 * interleaved {@link io.github.loombulkhead.benchmarks.http.HttpLatencyPaired} harness removes that.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class HttpPathBenchmark {

    private LoopbackClients loopback;

    private RestClient plain;

    private RestClient noopInterceptor;

    private RestClient semaphoreLimited;

    private RestClient loomPerClient;

    private RestClient loomPerHost;

    @Setup(Level.Trial)
    public void setUp() {
        this.loopback = new LoopbackClients();
        this.plain = this.loopback.clients().get("plain");
        this.noopInterceptor = this.loopback.clients().get("noopInterceptor");
        this.semaphoreLimited = this.loopback.clients().get("semaphoreInterceptor");
        this.loomPerClient = this.loopback.clients().get("loomPerClient");
        this.loomPerHost = this.loopback.clients().get("loomPerHost");
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        this.loopback.close();
    }

    /** No limiter: the latency of the call itself. */
    @Benchmark
    public String plain() {
        return LoopbackClients.call(this.plain);
    }

    /** A pass-through interceptor, no limiter: what having any interceptor costs in Spring's request path. */
    @Benchmark
    public String noopInterceptor() {
        return LoopbackClients.call(this.noopInterceptor);
    }

    /** The baseline limiter: a hand-written interceptor around a {@code Semaphore(100)}. */
    @Benchmark
    public String semaphoreInterceptor() {
        return LoopbackClients.call(this.semaphoreLimited);
    }

    /** loom-bulkhead's interceptor with one bulkhead for the client. */
    @Benchmark
    public String loomPerClient() {
        return LoopbackClients.call(this.loomPerClient);
    }

    /** loom-bulkhead's interceptor with a bulkhead per target host (looked up on every call). */
    @Benchmark
    public String loomPerHost() {
        return LoopbackClients.call(this.loomPerHost);
    }
}
