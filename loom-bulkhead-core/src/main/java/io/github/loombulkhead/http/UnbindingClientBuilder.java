package io.github.loombulkhead.http;

import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;

/** A client builder whose client, when closed (directly or by destroying the factory), closes the binding. */
final class UnbindingClientBuilder extends HttpClientBuilder {

    private final PoolBinding binding;

    UnbindingClientBuilder(PoolBinding binding) {
        this.binding = binding;
        addCloseable(binding);
    }

    PoolBinding binding() {
        return this.binding;
    }
}
