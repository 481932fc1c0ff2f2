package io.github.loombulkhead.autoconfigure.http;

import org.springframework.http.ResponseEntity;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;

/** An HTTP interface client without annotations, bounded only through configuration. */
@HttpExchange
public interface PlainClient {

    @GetExchange("/held")
    String slow();

    @GetExchange("/redirect")
    ResponseEntity<String> redirect();
}
