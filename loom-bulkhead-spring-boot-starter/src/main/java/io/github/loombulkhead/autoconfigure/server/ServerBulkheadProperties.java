package io.github.loombulkhead.autoconfigure.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The inbound bulkhead of a servlet application under {@code loom.bulkhead.server}: which bulkhead bounds which
 * requests, and what a rejected request is told.
 */
public class ServerBulkheadProperties {

    /**
     * Whether every request of the servlet application holds a permit of a bulkhead while it is handled. A request
     * that must wait holds no thread.
     */
    private boolean enabled = false;

    /**
     * Bulkhead that bounds requests no route matches; its settings come from loom.bulkhead.instances.<name>.
     */
    private String bulkhead = "server";

    /**
     * Value of the Retry-After header of a rejected request, rounded up to whole seconds.
     */
    private Duration retryAfter = Duration.ofSeconds(1);

    /**
     * Time between two checks of the connections of waiting requests for a client that went away; such a request
     * leaves the queue without running. Zero turns the check off.
     */
    private Duration disconnectCheckInterval = Duration.ofMillis(500);

    /**
     * Bulkheads of request paths: the first route whose pattern matches the path (without the context path)
     * bounds the request.
     */
    private final List<Route> routes = new ArrayList<>();

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getBulkhead() {
        return this.bulkhead;
    }

    public void setBulkhead(String bulkhead) {
        this.bulkhead = bulkhead;
    }

    public Duration getRetryAfter() {
        return this.retryAfter;
    }

    public void setRetryAfter(Duration retryAfter) {
        this.retryAfter = retryAfter;
    }

    public Duration getDisconnectCheckInterval() {
        return this.disconnectCheckInterval;
    }

    public void setDisconnectCheckInterval(Duration disconnectCheckInterval) {
        this.disconnectCheckInterval = disconnectCheckInterval;
    }

    public List<Route> getRoutes() {
        return this.routes;
    }

    /** Requests whose path matches {@code pattern} hold a permit of {@code bulkhead}. */
    public static class Route {

        /**
         * Path pattern in Spring's PathPattern syntax, e.g. /api/reports/**.
         */
        private String pattern;

        /**
         * Bulkhead that bounds requests matching the pattern.
         */
        private String bulkhead;

        public String getPattern() {
            return this.pattern;
        }

        public void setPattern(String pattern) {
            this.pattern = pattern;
        }

        public String getBulkhead() {
            return this.bulkhead;
        }

        public void setBulkhead(String bulkhead) {
            this.bulkhead = bulkhead;
        }
    }
}
