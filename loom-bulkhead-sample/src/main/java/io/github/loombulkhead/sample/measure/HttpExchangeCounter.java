package io.github.loombulkhead.sample.measure;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Counts HTTP exchanges with the callee as they happen on the wire, below any bulkhead or semaphore, so
 * "in flight" means the same thing in every mode.
 */
public final class HttpExchangeCounter implements ClientHttpRequestInterceptor {

    private final AtomicInteger inFlight = new AtomicInteger();

    private final AtomicLong started = new AtomicLong();

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        this.started.incrementAndGet();
        this.inFlight.incrementAndGet();
        try {
            return execution.execute(request, body);
        }
        finally {
            this.inFlight.decrementAndGet();
        }
    }

    /** Exchanges in progress right now. */
    public int inFlight() {
        return this.inFlight.get();
    }

    /** Exchanges started since this counter was created. */
    public long started() {
        return this.started.get();
    }
}
