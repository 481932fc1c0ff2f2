package io.github.loombulkhead.examples.server;

import io.github.loombulkhead.autoconfigure.server.ServerBulkheadRejectionHandler;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The inbound bulkhead's own rejection response, as docs/server.md shows it. */
@Configuration(proxyBeanMethods = false)
class ServerRejectionConfig {

    // tag::rejection-handler[]
    @Bean   // replaces the default 503 Problem Details answer of the inbound bulkhead
    ServerBulkheadRejectionHandler tooManyRequests() {
        return (request, response, rejection) -> {
            response.setStatus(429);
            response.setHeader("Retry-After", "5");
            response.getWriter().write("busy: " + rejection.getReason().tag());
        };
    }
    // end::rejection-handler[]
}
