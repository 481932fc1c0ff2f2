package io.github.loombulkhead.sample.client;

import java.net.URI;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.web.util.DefaultUriBuilderFactory;
import org.springframework.web.util.UriBuilder;
import org.springframework.web.util.UriBuilderFactory;

/**
 * Resolves the clients' relative URLs against the callee's base URL, which is known only once the callee
 * has started (after the clients were built).
 */
final class CalleeUriBuilderFactory implements UriBuilderFactory {

    private final CalleeEndpoint callee;

    private volatile @Nullable DefaultUriBuilderFactory delegate;

    CalleeUriBuilderFactory(CalleeEndpoint callee) {
        this.callee = callee;
    }

    private UriBuilderFactory delegate() {
        DefaultUriBuilderFactory factory = this.delegate;
        if (factory == null) {
            factory = new DefaultUriBuilderFactory(this.callee.baseUrl().toString());
            this.delegate = factory;
        }
        return factory;
    }

    @Override
    public UriBuilder uriString(String uriTemplate) {
        return delegate().uriString(uriTemplate);
    }

    @Override
    public UriBuilder builder() {
        return delegate().builder();
    }

    @Override
    public URI expand(String uriTemplate, Map<String, ?> uriVariables) {
        return delegate().expand(uriTemplate, uriVariables);
    }

    @Override
    public URI expand(String uriTemplate, @Nullable Object... uriVariables) {
        return delegate().expand(uriTemplate, uriVariables);
    }
}
