package io.github.loombulkhead.autoconfigure.server;

import java.io.IOException;

import io.github.loombulkhead.BulkheadRejectedException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Writes the response of a request the inbound bulkhead rejected. Define a bean of this type to replace the
 * default {@code 503} Problem Details response.
 */
@FunctionalInterface
public interface ServerBulkheadRejectionHandler {

    /**
     * Writes the whole response to a rejected request; it is not committed yet.
     * @param rejection names the bulkhead and the reason
     */
    void reject(HttpServletRequest request, HttpServletResponse response, BulkheadRejectedException rejection)
            throws IOException;
}
