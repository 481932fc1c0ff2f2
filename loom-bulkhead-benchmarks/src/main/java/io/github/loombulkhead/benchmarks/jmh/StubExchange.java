package io.github.loombulkhead.benchmarks.jmh;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpResponse;

/** An HTTP exchange that does no I/O: isolates what an interceptor itself costs. */
final class StubExchange {

    static final HttpRequest REQUEST = new HttpRequest() {

        private final URI uri = URI.create("http://127.0.0.1:8080/ok");

        private final HttpHeaders headers = new HttpHeaders();

        private final Map<String, Object> attributes = new HashMap<>();

        @Override
        public HttpMethod getMethod() {
            return HttpMethod.GET;
        }

        @Override
        public URI getURI() {
            return this.uri;
        }

        @Override
        public Map<String, Object> getAttributes() {
            return this.attributes;
        }

        @Override
        public HttpHeaders getHeaders() {
            return this.headers;
        }
    };

    static final ClientHttpResponse RESPONSE = new ClientHttpResponse() {

        private final HttpHeaders headers = new HttpHeaders();

        @Override
        public HttpStatusCode getStatusCode() {
            return HttpStatus.OK;
        }

        @Override
        public String getStatusText() {
            return "OK";
        }

        @Override
        public HttpHeaders getHeaders() {
            return this.headers;
        }

        @Override
        public InputStream getBody() {
            return new ByteArrayInputStream(new byte[0]);
        }

        @Override
        public void close() {
        }
    };

    static final ClientHttpRequestExecution EXECUTION = (request, body) -> RESPONSE;

    static final byte[] NO_BODY = new byte[0];

    private StubExchange() {
    }
}
