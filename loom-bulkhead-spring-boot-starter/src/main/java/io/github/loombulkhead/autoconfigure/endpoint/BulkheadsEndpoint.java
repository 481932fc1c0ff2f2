package io.github.loombulkhead.autoconfigure.endpoint;

import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.RejectionReason;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * {@code /actuator/bulkheads}: every bulkhead's configuration and live state, and (when write access is
 * granted with {@code management.endpoint.bulkheads.access=unrestricted}) runtime changes of one bulkhead's
 * limit and maximum wait. A write is validated as a whole: an invalid value changes nothing.
 */
@Endpoint(id = "bulkheads", defaultAccess = Access.READ_ONLY)
public class BulkheadsEndpoint {

    private final BulkheadRegistry registry;

    public BulkheadsEndpoint(BulkheadRegistry registry) {
        this.registry = registry;
    }

    /** All bulkheads by name, sorted. */
    @ReadOperation
    public BulkheadsDescriptor bulkheads() {
        Map<String, BulkheadDescriptor> bulkheads = new LinkedHashMap<>();
        this.registry.getAllBulkheads()
            .stream()
            .sorted(Comparator.comparing(Bulkhead::getName))
            .forEach((bulkhead) -> bulkheads.put(bulkhead.getName(), BulkheadDescriptor.of(bulkhead)));
        return new BulkheadsDescriptor(bulkheads);
    }

    /** One bulkhead, or 404 if there is none of that name. */
    @ReadOperation
    public @Nullable BulkheadDescriptor bulkhead(@Selector String name) {
        return this.registry.find(name).map(BulkheadDescriptor::of).orElse(null);
    }

    /**
     * Changes the limit and/or the maximum wait of one existing bulkhead.
     * @throws InvalidEndpointRequestException (400) for an unknown bulkhead, no change requested or an
     * invalid value; nothing is changed then
     */
    @WriteOperation
    public BulkheadDescriptor update(@Selector String name, @Nullable Integer maxConcurrentCalls,
            @Nullable Duration maxWaitDuration) {
        Bulkhead bulkhead = this.registry.find(name)
            .orElseThrow(() -> new InvalidEndpointRequestException("No bulkhead named '" + name + "'",
                    "No bulkhead named '" + name + "'; existing bulkheads: " + bulkheads().bulkheads().keySet()));
        if (maxConcurrentCalls == null && maxWaitDuration == null) {
            throw invalid("Nothing to change: give maxConcurrentCalls and/or maxWaitDuration (e.g. 30s)");
        }
        BulkheadConfig.Builder check = BulkheadConfig.from(bulkhead.getConfig());
        if (maxConcurrentCalls != null) {
            check.maxConcurrentCalls(maxConcurrentCalls);
        }
        if (maxWaitDuration != null) {
            check.maxWaitDuration(maxWaitDuration);
        }
        try {
            check.build();
        }
        catch (IllegalArgumentException ex) {
            throw invalid("Bulkhead '" + name + "' not changed: " + ex.getMessage());
        }
        if (maxWaitDuration != null) {
            bulkhead.changeMaxWaitDuration(maxWaitDuration);
        }
        if (maxConcurrentCalls != null) {
            bulkhead.changeLimit(maxConcurrentCalls);
        }
        return BulkheadDescriptor.of(bulkhead);
    }

    private static InvalidEndpointRequestException invalid(String message) {
        return new InvalidEndpointRequestException(message, message);
    }

    /** All bulkheads, by name. */
    public record BulkheadsDescriptor(Map<String, BulkheadDescriptor> bulkheads) implements OperationResponseBody {
    }

    /** One bulkhead's configuration, live state and totals since start. */
    public record BulkheadDescriptor(String name, ConfigDescriptor config, int limit, int active, int waiting,
            int availablePermits, long permitted, long completed, long rejected, Map<String, Long> rejectedByReason)
            implements OperationResponseBody {

        static BulkheadDescriptor of(Bulkhead bulkhead) {
            Map<String, Long> byReason = new LinkedHashMap<>();
            for (RejectionReason reason : RejectionReason.values()) {
                byReason.put(reason.tag(), bulkhead.getRejectedCount(reason));
            }
            return new BulkheadDescriptor(bulkhead.getName(), ConfigDescriptor.of(bulkhead.getConfig()),
                    bulkhead.getLimit(), bulkhead.getActiveCount(), bulkhead.getWaitingCount(),
                    bulkhead.getAvailablePermits(), bulkhead.getPermittedCount(), bulkhead.getCompletedCount(),
                    bulkhead.getRejectedCount(), byReason);
        }
    }

    /** A bulkhead's current configuration; {@code maxWaitDuration} in ISO-8601, e.g. {@code PT1M}. */
    public record ConfigDescriptor(int maxConcurrentCalls, String maxWaitDuration, int queueCapacity, boolean fair) {

        static ConfigDescriptor of(BulkheadConfig config) {
            return new ConfigDescriptor(config.getMaxConcurrentCalls(), config.getMaxWaitDuration().toString(),
                    config.getQueueCapacity(), config.isFair());
        }
    }
}
