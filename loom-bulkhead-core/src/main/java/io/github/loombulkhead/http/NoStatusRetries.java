package io.github.loombulkhead.http;

import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * HttpClient 5's default retries without those on a response status. By default a {@code 429} or {@code 503} is sent
 * again after its {@code Retry-After} (or a second), inside the exchange: the call would hold its permit while it
 * waits, the overloaded callee would get the request twice, and an adaptive limit would hear a success instead of the
 * drop. Retries of an idempotent request on an I/O error (a pooled connection the server closed) stay: they are
 * immediate. The pooled factories of this package use it; set it on an HttpClient 5 client of your own
 * ({@code HttpClientBuilder.setRetryStrategy(NoStatusRetries.INSTANCE)}) for the same behaviour.
 */
public final class NoStatusRetries extends DefaultHttpRequestRetryStrategy {

    /** The one instance; it holds no state. */
    public static final NoStatusRetries INSTANCE = new NoStatusRetries();

    private NoStatusRetries() {
    }

    @Override
    public boolean retryRequest(HttpResponse response, int execCount, HttpContext context) {
        return false;
    }
}
