package io.github.loombulkhead.autoconfigure.server;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.autoconfigure.server.WithdrawnRequests.Reason;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The meter of the inbound bulkheads besides every bulkhead's own: {@value #WITHDRAWN}, the requests that left a
 * queue without running, by bulkhead ({@code name}) and {@code reason}; every series starts at zero.
 */
public class ServerBulkheadMetrics implements MeterBinder {

    /** Requests that ended while they waited for a permit. */
    public static final String WITHDRAWN = "loom.bulkhead.server.withdrawn";

    private final ServerBulkheadRoutes routes;

    private final WithdrawnRequests withdrawn;

    public ServerBulkheadMetrics(ServerBulkheadRoutes routes, WithdrawnRequests withdrawn) {
        this.routes = routes;
        this.withdrawn = withdrawn;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (Bulkhead bulkhead : this.routes.bulkheads()) {
            String name = bulkhead.getName();
            for (Reason reason : Reason.values()) {
                FunctionCounter.builder(WITHDRAWN, this.withdrawn, (counts) -> counts.getCount(name, reason))
                    .description("Requests that left the queue of an inbound bulkhead without running: their client "
                            + "disconnected, or the container ended them, while they waited")
                    .baseUnit("requests")
                    .tag("name", name)
                    .tag("reason", reason.tag())
                    .register(registry);
            }
        }
    }
}
