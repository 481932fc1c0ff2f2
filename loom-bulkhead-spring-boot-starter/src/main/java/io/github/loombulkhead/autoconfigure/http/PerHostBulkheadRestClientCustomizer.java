package io.github.loombulkhead.autoconfigure.http;

import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;

import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.web.client.RestClient;

/**
 * Adds one shared per-host bulkhead interceptor to every RestClient built from the auto-configured
 * {@code RestClient.Builder}, so all clients together hold at most the host's limit of calls to each host.
 */
public class PerHostBulkheadRestClientCustomizer implements RestClientCustomizer {

    private final BulkheadClientHttpRequestInterceptor interceptor;

    public PerHostBulkheadRestClientCustomizer(BulkheadClientHttpRequestInterceptor interceptor) {
        this.interceptor = interceptor;
    }

    /** The shared interceptor, e.g. to find the bulkhead of a request. */
    public BulkheadClientHttpRequestInterceptor getInterceptor() {
        return this.interceptor;
    }

    @Override
    public void customize(RestClient.Builder builder) {
        builder.requestInterceptor(this.interceptor);
    }
}
