package io.github.loombulkhead.autoconfigure.http;

import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.core.Ordered;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * Adds the shared per-host bulkhead interceptor to every RestClient built from the auto-configured
 * {@code RestClient.Builder} and, when the application chose no request factory, a pooled HttpClient 5
 * factory sized for the per-host limits. Runs first among the {@code RestClientCustomizer}s, so a request
 * factory set by one of the application's customizers wins; a service group's client keeps the factory
 * {@link BulkheadPoolHttpServiceGroupConfigurer} made with the group's settings.
 */
public class PerHostBulkheadRestClientCustomizer implements RestClientCustomizer, Ordered {

    private final PerHostBulkheads bulkheads;

    private final BulkheadRequestFactories requestFactories;

    /**
     * @param requestFactories the pooled factories, or {@code null} to keep the builder's request factory
     */
    public PerHostBulkheadRestClientCustomizer(PerHostBulkheads bulkheads, BulkheadRequestFactories requestFactories) {
        this.bulkheads = bulkheads;
        this.requestFactories = requestFactories;
    }

    /** The per-host bulkheads this customizer applies. */
    public PerHostBulkheads getBulkheads() {
        return this.bulkheads;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public void customize(RestClient.Builder builder) {
        builder.requestInterceptor(this.bulkheads.interceptor());
        if (this.requestFactories != null && !this.requestFactories.serviceGroupClients().contains(builder)) {
            ClientHttpRequestFactory factory = this.requestFactories.forHosts(this.bulkheads.registry(),
                    this.bulkheads.namePrefix(), this.bulkheads.template(), this.bulkheads.maxHosts(), null);
            if (factory != null) {
                builder.requestFactory(factory);
            }
        }
    }
}
