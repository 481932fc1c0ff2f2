package io.github.loombulkhead.annotation;

import java.io.InputStream;

import org.springframework.web.service.annotation.GetExchange;

/**
 * An HTTP interface client with a default method that returns the body of one of its exchanges. Public, as a proxy
 * can call a default method only of an interface it can access. No {@code @HttpExchange} on the type: its exchange
 * methods make it an HTTP interface.
 */
@Bulkhead("default-streams")
public interface DefaultMethodClient {

    @GetExchange("/stream")
    InputStream stream();

    /** Not an exchange itself: it returns one's body. */
    default InputStream latest() {
        return stream();
    }
}
