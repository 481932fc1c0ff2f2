package io.github.loombulkhead.autoconfigure.endpoint;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.util.StringUtils;

/**
 * Finds a bulkhead by the path segments of an endpoint request ({@code @Selector(match = ALL_REMAINING)}). The web
 * layers split the path at every slash and drop empty segments, so {@code https://host:443} arrives as
 * {@code ["https:", "host:443"]}: a name matches when it splits into the same segments. An exact name wins over such
 * a match; two such matches are refused. Shared by the starter's endpoints; not meant for applications.
 */
public final class BulkheadPaths {

    private BulkheadPaths() {
    }

    /**
     * The one of {@code all} that {@code segments} name.
     * @param exact finds a bulkhead by its exact name
     * @param nameOf a bulkhead's name
     * @throws InvalidEndpointRequestException (400) when several bulkheads match
     */
    public static <T> Optional<T> find(String[] segments, Function<String, Optional<T>> exact, Collection<T> all,
            Function<T, String> nameOf) {
        String path = String.join("/", segments);
        Optional<T> named = exact.apply(path);
        if (named.isPresent()) {
            return named;
        }
        List<String> requested = segments(path);
        List<T> matches = all.stream()
            .filter((candidate) -> segments(nameOf.apply(candidate)).equals(requested))
            .toList();
        if (matches.size() > 1) {
            String message = "'" + path + "' matches several bulkheads "
                    + matches.stream().map(nameOf).sorted().toList()
                    + "; they differ only in repeated slashes, which a URL path cannot keep";
            throw new InvalidEndpointRequestException(message, message);
        }
        return matches.stream().findFirst();
    }

    private static List<String> segments(String name) {
        return Arrays.asList(StringUtils.tokenizeToStringArray(name, "/", false, true));
    }
}
