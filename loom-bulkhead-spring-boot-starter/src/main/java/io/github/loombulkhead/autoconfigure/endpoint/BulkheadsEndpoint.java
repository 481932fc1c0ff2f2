package io.github.loombulkhead.autoconfigure.endpoint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.RejectionReason;
import io.github.loombulkhead.autoconfigure.BulkheadConfigMapper;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.LimitAlgorithm;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.convert.DurationStyle;

/**
 * {@code /actuator/bulkheads}: every bulkhead's configuration and live state (for an adaptive one also its
 * algorithm and estimates), and (when write access is granted with
 * {@code management.endpoint.bulkheads.access=unrestricted}) runtime changes of one bulkhead's ceiling
 * ({@code maxConcurrentCalls}, a static one's limit) and maximum wait. A write is validated as a whole: an invalid
 * value changes nothing. One bulkhead is addressed by its name written as is, slashes included
 * ({@code /actuator/bulkheads/https://host:443}).
 */
@Endpoint(id = BulkheadsEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class BulkheadsEndpoint {

    /** The endpoint's id: {@code /actuator/bulkheads}. */
    public static final String ID = "bulkheads";

    private final BulkheadRegistry registry;

    private final LeasedLimitFallback fallback;

    public BulkheadsEndpoint(BulkheadRegistry registry) {
        this(registry, (bulkhead) -> false);
    }

    /** With {@code fallback} telling which leased limits are their fallback's now, so a limit write says so. */
    public BulkheadsEndpoint(BulkheadRegistry registry, LeasedLimitFallback fallback) {
        this.registry = registry;
        this.fallback = fallback;
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

    /**
     * One bulkhead, or 404 if there is none of that name.
     * @param nameSegments the name's path segments (see {@link BulkheadPaths}); a name no request key uses, since
     * Spring Boot lets a query or body key replace a path variable of the same name
     */
    @ReadOperation
    public @Nullable BulkheadDescriptor bulkhead(@Selector(match = Match.ALL_REMAINING) String[] nameSegments) {
        return find(nameSegments).map(BulkheadDescriptor::of).orElse(null);
    }

    /**
     * The write as the web layers call it: every value arrives as written (a JSON number as its digits) and is parsed
     * here, so a bad one is refused naming the field. A {@code name} in the body or the query string must be the
     * addressed bulkhead's. The settings a running bulkhead cannot change are refused by name instead of being
     * ignored, and so is any other key, before this method runs ({@link WriteFieldsAdvisor}).
     * @param nameSegments the name's path segments (see {@link #bulkhead(String[])})
     * @throws InvalidEndpointRequestException (400) naming what was wrong; nothing is changed then
     */
    @WriteOperation
    public BulkheadDescriptor write(@Selector(match = Match.ALL_REMAINING) String[] nameSegments,
            @Nullable String name, @Nullable String maxConcurrentCalls, @Nullable String maxWaitDuration,
            @Nullable String queueCapacity, @Nullable String fair) {
        Bulkhead bulkhead = existing(nameSegments);
        if (name != null && !name.equals(bulkhead.getName())) {
            throw invalid("The request names bulkhead '" + name + "' but is addressed to '" + bulkhead.getName()
                    + "'; write to /actuator/bulkheads/" + name + " to change '" + name + "'; nothing changed");
        }
        List<String> fixed = new ArrayList<>();
        if (queueCapacity != null) {
            fixed.add("queueCapacity");
        }
        if (fair != null) {
            fixed.add("fair");
        }
        if (!fixed.isEmpty()) {
            String key = BulkheadConfigMapper.instanceKey(bulkhead.getName());
            throw invalid(String.join(" and ", fixed) + " cannot be changed at runtime; set "
                    + String.join(" and ", fixed.stream().map((field) -> key + "." + propertyName(field)).toList())
                    + " and restart; nothing changed");
        }
        return update(bulkhead, parseLimit(maxConcurrentCalls), parseWait(maxWaitDuration));
    }

    /**
     * Changes the ceiling and/or the maximum wait of one existing bulkhead. {@code maxConcurrentCalls} is the
     * ceiling: a static bulkhead's limit; an adaptive one's algorithm restarts below it from its current limit.
     * The response's {@code change} says which.
     * @param nameSegments the name's path segments (see {@link #bulkhead(String[])})
     * @throws InvalidEndpointRequestException (400) for an unknown bulkhead, no change requested or an
     * invalid value; nothing is changed then
     */
    public BulkheadDescriptor update(String[] nameSegments, @Nullable Integer maxConcurrentCalls,
            @Nullable Duration maxWaitDuration) {
        return update(existing(nameSegments), maxConcurrentCalls, maxWaitDuration);
    }

    private Bulkhead existing(String[] nameSegments) {
        return find(nameSegments).orElseThrow(() -> invalid("No bulkhead named '" + String.join("/", nameSegments)
                + "'; existing bulkheads: " + bulkheads().bulkheads().keySet()));
    }

    private BulkheadDescriptor update(Bulkhead bulkhead, @Nullable Integer maxConcurrentCalls,
            @Nullable Duration maxWaitDuration) {
        if (maxConcurrentCalls == null && maxWaitDuration == null) {
            throw invalid("Nothing to change: give maxConcurrentCalls and/or maxWaitDuration (e.g. 30s)");
        }
        validate(bulkhead, maxConcurrentCalls, maxWaitDuration);
        List<String> changes = new ArrayList<>();
        if (maxWaitDuration != null) {
            try {
                // First: what only the bulkhead can refuse is refused before anything changed.
                bulkhead.changeMaxWaitDuration(maxWaitDuration);
            }
            catch (IllegalArgumentException ex) {
                throw invalid(ex.getMessage() + "; nothing changed");
            }
            changes.add("maxWaitDuration set to " + maxWaitDuration);
        }
        if (maxConcurrentCalls != null) {
            bulkhead.changeLimit(maxConcurrentCalls);
            changes.addFirst(limitChange(bulkhead, maxConcurrentCalls));
        }
        return BulkheadDescriptor.of(bulkhead, String.join("; ", changes));
    }

    private static @Nullable Integer parseLimit(@Nullable String value) {
        if (value == null) {
            return null;
        }
        try {
            return Integer.valueOf(value.trim());
        }
        catch (NumberFormatException ex) {
            throw invalid("maxConcurrentCalls must be a whole number from 1 to " + Integer.MAX_VALUE + " but was '"
                    + value + "'; nothing changed");
        }
    }

    private static @Nullable Duration parseWait(@Nullable String value) {
        if (value == null) {
            return null;
        }
        String trimmed = value.trim();
        if (trimmed.matches("[-+]?\\d+")) {
            if (trimmed.matches("[-+]?0+")) {
                // As in the properties: 0 is 0 in any unit.
                return Duration.ZERO;
            }
            // Spring Boot would read it as milliseconds; someone meaning seconds would cut every wait a thousandfold.
            throw invalid("maxWaitDuration needs a unit (30s, 500ms, PT30S) but was '" + value + "'; nothing changed");
        }
        try {
            return DurationStyle.detectAndParse(trimmed);
        }
        catch (IllegalArgumentException ex) {
            throw invalid("maxWaitDuration must be a duration such as 30s, 500ms or PT30S but was '" + value
                    + "'; nothing changed");
        }
    }

    private static String propertyName(String field) {
        return field.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
    }

    /** Checks a change as a whole before anything is applied. */
    private static void validate(Bulkhead bulkhead, @Nullable Integer maxConcurrentCalls,
            @Nullable Duration maxWaitDuration) {
        // The adaptive limit is checked below as changeLimit restarts it, not from its initial limit at startup.
        BulkheadConfig.Builder check = BulkheadConfig.from(bulkhead.getConfig()).adaptive(null);
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
            throw invalid("Bulkhead '" + bulkhead.getName() + "' not changed: " + ex.getMessage());
        }
        AdaptiveLimitConfig adaptive = bulkhead.getConfig().getAdaptive();
        if (adaptive != null && maxConcurrentCalls != null && maxConcurrentCalls < adaptive.getMinLimit()) {
            throw invalid("Bulkhead '" + bulkhead.getName() + "' not changed: maxConcurrentCalls is the ceiling of "
                    + "its adaptive limit and must be at least its minLimit " + adaptive.getMinLimit() + " but was "
                    + maxConcurrentCalls);
        }
    }

    private String limitChange(Bulkhead bulkhead, int maxConcurrentCalls) {
        LimitAlgorithm algorithm = bulkhead.getLimitAlgorithm();
        if (algorithm == null) {
            if (!bulkhead.isLimitLeased()) {
                return "maxConcurrentCalls (the limit) set to " + maxConcurrentCalls;
            }
            if (this.fallback.isInFallback(bulkhead)) {
                // The leases are out of reach: the value waits to be stored, and the limit here is the fallback's.
                return "maxConcurrentCalls set to " + maxConcurrentCalls + ", stored for all processes once Redis is "
                        + "back; meanwhile the limit here is the fallback's " + bulkhead.getLimit();
            }
            // A limit leased from a cluster is what this process holds of the bound, not the bound.
            return "maxConcurrentCalls set to " + maxConcurrentCalls + " for all processes; the limit here is the "
                    + bulkhead.getLimit() + " permits this process holds of them now";
        }
        return "maxConcurrentCalls is the ceiling of this adaptive bulkhead: set to " + maxConcurrentCalls
                + "; the " + algorithm.getName() + " algorithm restarted at limit " + bulkhead.getLimit()
                + " and finds the limit between " + bulkhead.getConfig().getAdaptive().getMinLimit() + " and "
                + maxConcurrentCalls;
    }

    /** The bulkhead named by the path segments of a request (see {@link BulkheadPaths}). */
    private Optional<Bulkhead> find(String[] nameSegments) {
        return BulkheadPaths.find(nameSegments, this.registry::find, this.registry.getAllBulkheads(),
                Bulkhead::getName);
    }

    private static InvalidEndpointRequestException invalid(String message) {
        return new InvalidEndpointRequestException(message, message);
    }

    /** All bulkheads, by name. */
    public record BulkheadsDescriptor(Map<String, BulkheadDescriptor> bulkheads) implements OperationResponseBody {
    }

    /**
     * One bulkhead's configuration, live state and totals since start; {@code algorithm} only when the limit is
     * adaptive, {@code change} only in the response to a write.
     */
    public record BulkheadDescriptor(String name, ConfigDescriptor config, int limit, int active, int waiting,
            int availablePermits, long permitted, long completed, long rejected, Map<String, Long> rejectedByReason,
            boolean adaptive, @Nullable AlgorithmDescriptor algorithm, @Nullable String change)
            implements OperationResponseBody {

        static BulkheadDescriptor of(Bulkhead bulkhead) {
            return of(bulkhead, null);
        }

        static BulkheadDescriptor of(Bulkhead bulkhead, @Nullable String change) {
            Map<String, Long> byReason = new LinkedHashMap<>();
            for (RejectionReason reason : RejectionReason.values()) {
                byReason.put(reason.tag(), bulkhead.getRejectedCount(reason));
            }
            BulkheadConfig config = bulkhead.getConfig();
            LimitAlgorithm algorithm = bulkhead.getLimitAlgorithm();
            return new BulkheadDescriptor(bulkhead.getName(), ConfigDescriptor.of(config), bulkhead.getLimit(),
                    bulkhead.getActiveCount(), bulkhead.getWaitingCount(), bulkhead.getAvailablePermits(),
                    bulkhead.getPermittedCount(), bulkhead.getCompletedCount(), bulkhead.getRejectedCount(), byReason,
                    algorithm != null, (algorithm != null) ? AlgorithmDescriptor.of(algorithm, config) : null, change);
        }
    }

    /**
     * The algorithm that finds an adaptive bulkhead's limit between {@code minLimit} and {@code ceiling}
     * ({@code maxConcurrentCalls}): the limit it proposes (the bulkhead's limit reaches a higher one in steps over
     * half a round trip) and what it believes now (names documented by each algorithm, durations in nanoseconds).
     */
    public record AlgorithmDescriptor(String name, int proposedLimit, int minLimit, int ceiling,
            Map<String, Number> estimates) {

        static AlgorithmDescriptor of(LimitAlgorithm algorithm, BulkheadConfig config) {
            return new AlgorithmDescriptor(algorithm.getName(),
                    Math.min(algorithm.getLimit(), config.getMaxConcurrentCalls()), config.getAdaptive().getMinLimit(),
                    config.getMaxConcurrentCalls(), new TreeMap<>(algorithm.getEstimates()));
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
