package io.github.loombulkhead.autoconfigure.server;

import java.io.BufferedReader;
import java.io.Reader;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;

/**
 * A request without a body whose input stream the filter took to check the client's connection while it waited.
 * The container would now refuse {@link #getReader()}; here it gives the empty body, as it would have.
 */
final class BodilessRequest extends HttpServletRequestWrapper {

    BodilessRequest(HttpServletRequest request) {
        super(request);
    }

    @Override
    public BufferedReader getReader() {
        return new BufferedReader(Reader.nullReader());
    }
}
