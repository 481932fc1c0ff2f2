package io.github.loombulkhead.http;

import java.io.IOException;
import java.util.Objects;
import java.util.function.Function;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.CallChain;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Bounds concurrent HTTP exchanges of a {@code RestClient} or {@code RestTemplate}, per client (one
 * bulkhead) or per target host (scheme, host and port each get their own bulkhead).
 *
 * <pre>{@code
 * RestClient client = RestClient.builder()
 *         .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(registry.bulkhead("callee")))
 *         .build();
 * }</pre>
 *
 * The calling thread parks (never pins) for a permit, up to the bulkhead's max wait, and gets a
 * {@link io.github.loombulkhead.BulkheadRejectedException} when refused. The permit covers the whole
 * exchange including reading the body: it is released exactly once, when the response or its body
 * stream is closed, or when the exchange fails. {@code RestClient.retrieve()} and
 * {@code RestTemplate} close responses themselves; a caller that takes the body as an
 * {@code InputStream} must close it. An exchange made by a task that already holds the bulkhead's
 * permit (a {@code BoundedVirtualExecutor} task or {@code @Bulkhead} method of the same bulkhead)
 * uses that permit instead of taking a second one; see {@link CallChain}.
 */
public final class BulkheadClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {

    private final Function<HttpRequest, Bulkhead> bulkheads;

    private BulkheadClientHttpRequestInterceptor(Function<HttpRequest, Bulkhead> bulkheads) {
        this.bulkheads = bulkheads;
    }

    /** Every exchange of the client shares {@code bulkhead}. */
    public static BulkheadClientHttpRequestInterceptor perClient(Bulkhead bulkhead) {
        Objects.requireNonNull(bulkhead, "bulkhead must not be null");
        return new BulkheadClientHttpRequestInterceptor((request) -> bulkhead);
    }

    /**
     * Each target (scheme + host + port) gets its own bulkhead in {@code registry}, called
     * {@code namePrefix + "https://host:port"} and created from {@code template} on first use.
     * @param maxHosts how many targets may be tracked; a request to one more target fails with
     * {@link TooManyHostsException}
     */
    public static BulkheadClientHttpRequestInterceptor perHost(BulkheadRegistry registry, String namePrefix,
            BulkheadConfig template, int maxHosts) {
        Objects.requireNonNull(template, "template config must not be null");
        return perHost(registry, namePrefix, (name) -> template, maxHosts);
    }

    /**
     * Like {@link #perHost(BulkheadRegistry, String, BulkheadConfig, int)}, with the config of each new
     * host's bulkhead chosen by its name, so single hosts can be tuned; a {@code null} config means the
     * registry's own config for that name.
     */
    public static BulkheadClientHttpRequestInterceptor perHost(BulkheadRegistry registry, String namePrefix,
            Function<String, BulkheadConfig> configByName, int maxHosts) {
        return new BulkheadClientHttpRequestInterceptor(
                new HostBulkheadLookup(registry, namePrefix, configByName, maxHosts));
    }

    /** The bulkhead that bounds {@code request}, creating it if this is a new host. */
    public Bulkhead bulkheadFor(HttpRequest request) {
        return this.bulkheads.apply(request);
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        Bulkhead bulkhead = bulkheadFor(request);
        if (CallChain.holds(bulkhead)) {
            // The calling task holds this bulkhead's permit already: one permit per call chain.
            return execution.execute(request, body);
        }
        bulkhead.acquirePermit();
        Permit permit = new Permit(bulkhead);
        ClientHttpResponse response;
        // While the exchange is sent, an exchange of the same bulkhead on this thread (an interceptor after this one
        // fetching a token from the same callee) runs before it, under its permit. The body is read afterwards,
        // outside this mark: an exchange made while it is still open takes a permit of its own.
        try (CallChain.Scope held = CallChain.enter(bulkhead)) {
            response = execution.execute(request, body);
        }
        catch (Throwable ex) {
            permit.failed(ex);
            permit.release();
            throw ex;
        }
        if (permit.isSampled()) {
            try {
                permit.answered(response.getStatusCode());
            }
            catch (IOException | RuntimeException ex) {
                // The status line is read only now (HttpURLConnection after sending a body), and failed: a read
                // timeout is a drop as anywhere else. The caller meets the error when it asks for the status.
                permit.failed(ex);
            }
        }
        return new PermitReleasingResponse(response, permit);
    }
}
