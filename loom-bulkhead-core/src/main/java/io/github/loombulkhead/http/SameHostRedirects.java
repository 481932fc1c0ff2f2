package io.github.loombulkhead.http;

import java.net.URI;

import org.apache.hc.client5.http.impl.DefaultRedirectStrategy;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * HttpClient 5's redirects, followed only within the host a per-host bulkhead bounds (scheme, host and port, as
 * {@link BulkheadClientHttpRequestInterceptor#perHost} tells hosts apart). A redirect to another host is answered to
 * the caller: followed inside the client, it would run under the first host's permit, uncounted by the other host's
 * bulkhead, and wait for one of that host's pooled connections. The caller follows it through the client, which takes
 * the other host's permit. {@link PooledHttpRequestFactories#forHosts} clients use it.
 */
public final class SameHostRedirects extends DefaultRedirectStrategy {

    /** The one instance; it holds no state. */
    public static final SameHostRedirects INSTANCE = new SameHostRedirects();

    private SameHostRedirects() {
    }

    @Override
    public boolean isRedirectAllowed(HttpHost currentTarget, HttpHost newTarget, HttpRequest redirect,
            HttpContext context) {
        return sameHost(currentTarget, newTarget)
                && super.isRedirectAllowed(currentTarget, newTarget, redirect, context);
    }

    private static boolean sameHost(HttpHost current, HttpHost next) {
        try {
            return HostBulkheadLookup.target(URI.create(current.toURI()))
                .equals(HostBulkheadLookup.target(URI.create(next.toURI())));
        }
        catch (IllegalArgumentException ex) {
            // Not a host a per-host bulkhead could name: not followed.
            return false;
        }
    }
}
