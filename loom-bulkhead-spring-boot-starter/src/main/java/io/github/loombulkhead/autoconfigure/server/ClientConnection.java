package io.github.loombulkhead.autoconfigure.server;

import java.io.IOException;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;

/**
 * The connection of a waiting HTTP/1.x request without a body, checked for a client that went away. Tomcat does not
 * watch the socket of a request in async mode, so the check reads it: with a {@link ReadListener} set,
 * {@link ServletInputStream#available()} makes Tomcat try one non-blocking read of the socket, and it reports a
 * byte available when that read hits the end of the stream or fails. The request has no body, so a byte that
 * really arrived can only be a pipelined next request: Tomcat keeps it, and the second read reports nothing.
 * Setting the listener is what Tomcat needs; its {@code dispatch()} and {@code complete()} clear it again.
 */
final class ClientConnection implements ReadListener {

    private static final String TOMCAT = "Apache Tomcat/";

    private final ServletInputStream input;

    ClientConnection(ServletInputStream input) {
        this.input = input;
    }

    /**
     * The connection of {@code request}, which is in async mode, or {@code null} when it cannot be checked: not on
     * Tomcat, not HTTP/1.x, or with a body (a body is read by the application, in blocking mode).
     */
    static ClientConnection of(HttpServletRequest request) throws IOException {
        if (!request.getServletContext().getServerInfo().startsWith(TOMCAT)
                || !request.getProtocol().startsWith("HTTP/1.") || request.getContentLengthLong() != -1
                || request.getHeader("Transfer-Encoding") != null) {
            return null;
        }
        ServletInputStream input = request.getInputStream();
        if (!input.isFinished()) {
            return null;
        }
        ClientConnection connection = new ClientConnection(input);
        input.setReadListener(connection);
        return connection;
    }

    /** Whether the client closed or reset the connection. Only while the request waits, one thread at a time. */
    boolean isClosed() {
        try {
            return this.input.available() > 0 && this.input.available() > 0;
        }
        catch (IOException ex) {
            return true;
        }
    }

    @Override
    public void onDataAvailable() {
        // The request has no body: nothing to read.
    }

    @Override
    public void onAllDataRead() {
        // Tomcat says so right after the filter returns; the body was empty from the start.
    }

    @Override
    public void onError(Throwable failure) {
        // The container ends the request as well, and the permit hears of it as an AsyncListener.
    }
}
