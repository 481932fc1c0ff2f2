package io.github.loombulkhead.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.thread.Threading;
import org.springframework.core.env.Environment;

/**
 * Logs one WARN at startup when {@code loom.bulkhead.server.enabled} is set but loom-bulkhead is inactive, so the
 * application does not believe its requests are bounded when they are not.
 */
class InactiveServerBulkheadReporter implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(InactiveServerBulkheadReporter.class);

    private final Environment environment;

    InactiveServerBulkheadReporter(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
        logger.warn(message());
    }

    /** The WARN text. */
    String message() {
        return "loom.bulkhead.server.enabled is true but loom-bulkhead is INACTIVE, so requests are NOT bounded: "
                + reason();
    }

    private String reason() {
        if (!this.environment.getProperty("loom.bulkhead.enabled", Boolean.class, true)) {
            return "loom.bulkhead.enabled is false. Remove that setting to bound them.";
        }
        if (!Threading.VIRTUAL.isActive(this.environment)) {
            return "virtual threads are off. Set spring.threads.virtual.enabled=true (Java 21+) to bound them.";
        }
        return "its auto-configuration was excluded or replaced.";
    }
}
