package io.github.loombulkhead.autoconfigure.http;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * Says, once per bounded client, when the connection pool was not sized from its bulkheads, naming the bulkhead
 * limit and the pool's own per-route limit if known: a pool smaller than the limit is a second, hidden limit.
 */
final class PoolSizeReporter {

    private static final Log logger = LogFactory.getLog(PoolSizeReporter.class);

    private final BulkheadRequestFactories requestFactories;

    private final String unsizedReason;

    /**
     * @param requestFactories the pooled factories, or {@code null} when the starter sizes no pool
     * @param unsizedReason why there are no pooled factories, when {@code requestFactories} is {@code null}
     */
    PoolSizeReporter(BulkheadRequestFactories requestFactories, String unsizedReason) {
        this.requestFactories = requestFactories;
        this.unsizedReason = unsizedReason;
    }

    /**
     * Reports on {@code builder}'s request factory after all configuration.
     * @param client e.g. "HTTP service group 'callee'"
     * @param bounds e.g. "bulkhead 'callee'"
     * @param limit the connections per route the bounded calls can use at once
     */
    void report(String client, String bounds, int limit, RestClient.Builder builder) {
        ClientHttpRequestFactory factory = ConnectionLimits.requestFactory(builder);
        boolean own = this.requestFactories != null && this.requestFactories.isOwn(factory);
        if (factory == null && this.requestFactories != null) {
            logger.debug(client + ": the request factory could not be read; its pool may not fit " + bounds);
            return;
        }
        int maxPerRoute = (factory != null) ? ConnectionLimits.maxPerRoute(factory) : ConnectionLimits.UNKNOWN;
        boolean tooSmall = maxPerRoute != ConnectionLimits.UNKNOWN && maxPerRoute < limit;
        if (own && !tooSmall) {
            return;
        }
        String reason = own ? "the application's ClientHttpRequestFactoryBuilderCustomizer beans set a smaller pool"
                : (this.requestFactories == null) ? this.unsizedReason
                        : "the application set its own request factory on the client's RestClient.Builder (a "
                                + "RestClientCustomizer, RestClientHttpServiceGroupConfigurer or "
                                + "ClientHttpRequestFactoryBuilderCustomizer), which loom-bulkhead does not replace";
        String message = client + " is bounded by " + bounds + " (" + limit + " calls at once per host) but loom-bulkhead "
                + (own ? "could not size" : "did not size") + " its connection pool: " + reason + ". Its request factory: "
                + ((factory != null) ? ConnectionLimits.describe(factory) : "unknown") + ".";
        if (tooSmall) {
            logger.warn(message + " Calls holding a permit beyond " + maxPerRoute + " per host wait again for a "
                    + "connection, a second limit not shown in the bulkhead's metrics; allow at least " + limit
                    + " connections per route in that factory.");
        }
        else {
            logger.info(message + (maxPerRoute == ConnectionLimits.UNKNOWN
                    ? " Make sure it allows at least " + limit + " connections per route." : ""));
        }
    }
}
