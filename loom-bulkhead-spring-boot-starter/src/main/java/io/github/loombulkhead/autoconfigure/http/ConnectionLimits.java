package io.github.loombulkhead.autoconfigure.http;

import java.lang.reflect.Field;

import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;

import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.client.RestClient;

/**
 * Reads, for diagnostics only, which request factory a {@code RestClient.Builder} ended up with and how many
 * connections per route its pool allows; neither has a public accessor, so either may be unknown.
 */
final class ConnectionLimits {

    /** No limit on connections per route. */
    static final int UNLIMITED = Integer.MAX_VALUE;

    /** The limit could not be read. */
    static final int UNKNOWN = -1;

    private static final boolean HTTP_CLIENT_5_PRESENT = ClassUtils.isPresent(
            "org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager",
            ConnectionLimits.class.getClassLoader());

    private ConnectionLimits() {
    }

    /** The request factory set on {@code builder}, or {@code null} if none was set or it cannot be read. */
    static ClientHttpRequestFactory requestFactory(RestClient.Builder builder) {
        Object factory = read(builder, "requestFactory");
        return (factory instanceof ClientHttpRequestFactory requestFactory) ? requestFactory : null;
    }

    /** Connections per route that {@code factory} allows: a number, {@link #UNLIMITED} or {@link #UNKNOWN}. */
    static int maxPerRoute(ClientHttpRequestFactory factory) {
        if (factory instanceof JdkClientHttpRequestFactory || factory instanceof SimpleClientHttpRequestFactory) {
            return UNLIMITED;
        }
        if (HTTP_CLIENT_5_PRESENT && factory instanceof HttpComponentsClientHttpRequestFactory httpComponents) {
            return HttpClient5.maxPerRoute(httpComponents);
        }
        return UNKNOWN;
    }

    /** {@code factory}'s class and its limit, e.g. "HttpComponentsClientHttpRequestFactory (5 connections per route)". */
    static String describe(ClientHttpRequestFactory factory) {
        int maxPerRoute = maxPerRoute(factory);
        String limit = switch (maxPerRoute) {
            case UNLIMITED -> "no limit on connections per route";
            case UNKNOWN -> "a per-route connection limit unknown to loom-bulkhead";
            case 1 -> "1 connection per route";
            default -> maxPerRoute + " connections per route";
        };
        return factory.getClass().getSimpleName() + " (" + limit + ")";
    }

    private static Object read(Object target, String name) {
        try {
            Field field = ReflectionUtils.findField(target.getClass(), name);
            if (field == null) {
                return null;
            }
            ReflectionUtils.makeAccessible(field);
            return ReflectionUtils.getField(field, target);
        }
        catch (RuntimeException ex) {
            return null;
        }
    }

    private static final class HttpClient5 {

        static int maxPerRoute(HttpComponentsClientHttpRequestFactory factory) {
            Object manager = read(factory.getHttpClient(), "connManager");
            return (manager instanceof PoolingHttpClientConnectionManager pool) ? pool.getDefaultMaxPerRoute() : UNKNOWN;
        }
    }
}
