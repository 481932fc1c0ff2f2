package io.github.loombulkhead.autoconfigure.server;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Warns once at startup when {@code loom.bulkhead.server.enabled=true} is set in an application that is not a servlet
 * web application (a WebFlux one, or none): the server bulkhead bounds servlet requests only, so nothing is bounded.
 * Under the switches that make loom-bulkhead active; when it is inactive, the inactive starter's warning says so.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "loom.bulkhead.enabled", matchIfMissing = true)
@ConditionalOnThreading(Threading.VIRTUAL)
@ConditionalOnBooleanProperty("loom.bulkhead.server.enabled")
@Conditional(LoomBulkheadServerWarningAutoConfiguration.NotServlet.class)
public final class LoomBulkheadServerWarningAutoConfiguration {

    /** What the WARN says. */
    static final String MESSAGE = "loom.bulkhead.server.enabled is true but this is not a servlet web application, "
            + "so no requests are bounded: the server bulkhead bounds the requests of a servlet application "
            + "(spring-boot-starter-webmvc). Remove loom.bulkhead.server.enabled, or bound the calls themselves "
            + "with @Bulkhead.";

    private static final Log logger = LogFactory.getLog(LoomBulkheadServerWarningAutoConfiguration.class);

    @Bean
    static SmartInitializingSingleton serverBulkheadNotServletReporter() {
        return () -> logger.warn(MESSAGE);
    }

    /** Matches unless the application is a servlet web application. */
    static final class NotServlet extends NoneNestedConditions {

        NotServlet() {
            super(ConfigurationPhase.PARSE_CONFIGURATION);
        }

        @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
        static final class Servlet {

        }
    }
}
