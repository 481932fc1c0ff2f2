package io.github.loombulkhead.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.env.Environment;

/**
 * Logs one WARN at startup when a switch of loom-bulkhead ({@code loom.bulkhead.server.enabled},
 * {@code loom.bulkhead.task-execution.enabled}, {@code loom.bulkhead.http.per-host.enabled}) is set but loom-bulkhead is inactive, so the application does not
 * believe that what the switch bounds is bounded when it is not.
 */
class InactiveSwitchReporter implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(InactiveSwitchReporter.class);

    private final Environment environment;

    private final String property;

    private final String bounded;

    /**
     * @param property the switch that is set
     * @param bounded what it bounds, as the subject of "are NOT bounded"
     */
    InactiveSwitchReporter(Environment environment, String property, String bounded) {
        this.environment = environment;
        this.property = property;
        this.bounded = bounded;
    }

    @Override
    public void afterSingletonsInstantiated() {
        logger.warn(message());
    }

    /** The WARN text. */
    String message() {
        return this.property + " is true but loom-bulkhead is INACTIVE, so " + this.bounded + " are NOT bounded: "
                + InactiveBulkheadsReporter.reason(this.environment);
    }
}
