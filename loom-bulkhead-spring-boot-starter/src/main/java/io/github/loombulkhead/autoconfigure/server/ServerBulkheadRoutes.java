package io.github.loombulkhead.autoconfigure.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.InvalidBulkheadPropertyException;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * Which bulkhead bounds a request: the first route whose pattern matches its path, else the default bulkhead.
 * Built from validated {@code loom.bulkhead.server.*} settings; the bulkheads exist from the start.
 */
public final class ServerBulkheadRoutes {

    private static final String PREFIX = "loom.bulkhead.server";

    private final List<Route> routes;

    private final Bulkhead fallback;

    private ServerBulkheadRoutes(List<Route> routes, Bulkhead fallback) {
        this.routes = routes;
        this.fallback = fallback;
    }

    /**
     * The routes of {@code properties}, their bulkheads taken from {@code registry}.
     * @param sources gives a property as set, for error messages; may return null
     * @throws InvalidBulkheadPropertyException naming the key of a blank bulkhead name, a blank or invalid
     * pattern, or a negative retry-after or disconnect-check-interval
     */
    public static ServerBulkheadRoutes of(ServerBulkheadProperties properties, BulkheadRegistry registry,
            Function<String, ConfigurationProperty> sources) {
        requireName(PREFIX + ".bulkhead", properties.getBulkhead(), sources);
        Duration retryAfter = properties.getRetryAfter();
        if (retryAfter == null || retryAfter.isNegative()) {
            throw invalid(PREFIX + ".retry-after", retryAfter, "must be 0 or more", "Set '" + PREFIX
                    + ".retry-after' to a duration of 0 or more, e.g. 1s.", sources);
        }
        Duration checkInterval = properties.getDisconnectCheckInterval();
        if (checkInterval == null || checkInterval.isNegative()) {
            throw invalid(PREFIX + ".disconnect-check-interval", checkInterval, "must be 0 or more",
                    "Set '" + PREFIX + ".disconnect-check-interval' to a duration such as 500ms, or to 0 to check no "
                            + "connections.",
                    sources);
        }
        List<Route> routes = new ArrayList<>();
        List<ServerBulkheadProperties.Route> configured = properties.getRoutes();
        for (int i = 0; i < configured.size(); i++) {
            String key = PREFIX + ".routes[" + i + "]";
            ServerBulkheadProperties.Route route = configured.get(i);
            requireName(key + ".bulkhead", route.getBulkhead(), sources);
            routes.add(new Route(parse(key + ".pattern", route.getPattern(), sources),
                    registry.bulkhead(route.getBulkhead())));
        }
        return new ServerBulkheadRoutes(List.copyOf(routes), registry.bulkhead(properties.getBulkhead()));
    }

    /** Every bulkhead of requests: the default one first, then those of the routes, each once. */
    public List<Bulkhead> bulkheads() {
        List<Bulkhead> bulkheads = new ArrayList<>();
        bulkheads.add(this.fallback);
        for (Route route : this.routes) {
            if (!bulkheads.contains(route.bulkhead())) {
                bulkheads.add(route.bulkhead());
            }
        }
        return List.copyOf(bulkheads);
    }

    /** The bulkhead that bounds {@code request}. */
    public Bulkhead bulkheadFor(HttpServletRequest request) {
        if (this.routes.isEmpty()) {
            return this.fallback;
        }
        String uri = request.getRequestURI();
        String contextPath = request.getContextPath();
        PathContainer path = PathContainer.parsePath(uri.startsWith(contextPath) ? uri.substring(contextPath.length())
                : uri);
        for (Route route : this.routes) {
            if (route.pattern().matches(path)) {
                return route.bulkhead();
            }
        }
        return this.fallback;
    }

    private static PathPattern parse(String key, String pattern, Function<String, ConfigurationProperty> sources) {
        if (pattern == null || pattern.isBlank()) {
            throw invalid(key, pattern, "a route needs a path pattern",
                    "Set '" + key + "' to a path pattern such as /api/**.", sources);
        }
        try {
            return PathPatternParser.defaultInstance.parse(pattern);
        }
        catch (PatternParseException ex) {
            throw invalid(key, pattern, "is not a path pattern: " + ex.toDetailedString().replace('\n', ' '),
                    "Set '" + key + "' in Spring's PathPattern syntax, e.g. /api/{id} or /static/**.", sources);
        }
    }

    private static void requireName(String key, String name, Function<String, ConfigurationProperty> sources) {
        if (name == null || name.isBlank()) {
            throw invalid(key, name, "a bulkhead name must not be blank",
                    "Set '" + key + "' to a bulkhead name, e.g. server.", sources);
        }
    }

    private static InvalidBulkheadPropertyException invalid(String key, Object value, String reason, String fix,
            Function<String, ConfigurationProperty> sources) {
        ConfigurationProperty property = sources.apply(key);
        Object written = (property != null && property.getValue() != null) ? property.getValue() : value;
        String origin = (property != null && property.getOrigin() != null) ? property.getOrigin().toString() : null;
        return new InvalidBulkheadPropertyException(key, written, origin, reason, fix);
    }

    private record Route(PathPattern pattern, Bulkhead bulkhead) {
    }
}
