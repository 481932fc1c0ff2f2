package io.github.loombulkhead.autoconfigure.server;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;

import io.github.loombulkhead.BulkheadRejectedException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServletServerHttpResponse;

/**
 * Answers a rejected request with {@code 503 Service Unavailable}, a {@code Retry-After} header and an RFC 9457
 * {@code application/problem+json} body whose {@code bulkhead} and {@code reason} properties say who refused it
 * and why.
 */
public class ProblemDetailRejectionHandler implements ServerBulkheadRejectionHandler {

    private final HttpMessageConverter<Object> converter;

    private final String retryAfter;

    /**
     * @param converter writes {@link ProblemDetail} as {@code application/problem+json}
     * @param retryAfter the {@code Retry-After} value, rounded up to whole seconds
     */
    public ProblemDetailRejectionHandler(HttpMessageConverter<Object> converter, Duration retryAfter) {
        this.converter = converter;
        this.retryAfter = seconds(retryAfter);
    }

    /** A {@code Retry-After} value: {@code duration} in whole seconds, rounded up. */
    static String seconds(Duration duration) {
        return Long.toString(duration.toSeconds() + ((duration.toNanosPart() > 0) ? 1 : 0));
    }

    /**
     * The request's path as a URI, as sent ({@code %20} stays {@code %20}); characters a container may let through
     * (e.g. Tomcat's {@code relaxed-path-chars}) but a URI may not hold are percent-encoded. {@code null} if it is no
     * path at all.
     */
    static URI instance(String path) {
        try {
            return URI.create(path);
        }
        catch (IllegalArgumentException notAUri) {
            try {
                return new URI(null, null, path, null);
            }
            catch (URISyntaxException ex) {
                return null;
            }
        }
    }

    @Override
    public void reject(HttpServletRequest request, HttpServletResponse response, BulkheadRejectedException rejection)
            throws IOException {
        response.setStatus(HttpStatus.SERVICE_UNAVAILABLE.value());
        response.setHeader(HttpHeaders.RETRY_AFTER, this.retryAfter);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, rejection.getMessage());
        problem.setInstance(instance(request.getRequestURI()));
        problem.setProperty("bulkhead", rejection.getBulkheadName());
        problem.setProperty("reason", rejection.getReason().tag());
        ServletServerHttpResponse output = new ServletServerHttpResponse(response);
        this.converter.write(problem, MediaType.APPLICATION_PROBLEM_JSON, output);
        output.flush();
    }
}
