package io.github.loombulkhead.http;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A response that gives its exchange's permit back when it, or its body stream, is closed, after
 * the underlying response has released its connection.
 */
final class PermitReleasingResponse implements ClientHttpResponse {

    private final ClientHttpResponse delegate;

    private final Permit permit;

    private InputStream body;

    PermitReleasingResponse(ClientHttpResponse delegate, Permit permit) {
        this.delegate = delegate;
        this.permit = permit;
    }

    @Override
    public HttpStatusCode getStatusCode() throws IOException {
        return this.delegate.getStatusCode();
    }

    @Override
    public String getStatusText() throws IOException {
        return this.delegate.getStatusText();
    }

    @Override
    public HttpHeaders getHeaders() {
        return this.delegate.getHeaders();
    }

    @Override
    public InputStream getBody() throws IOException {
        if (this.body == null) {
            InputStream delegateBody;
            try {
                delegateBody = this.delegate.getBody();
            }
            catch (IOException | RuntimeException ex) {
                close();
                throw ex;
            }
            this.body = new FilterInputStream(delegateBody) {
                @Override
                public void close() throws IOException {
                    try {
                        super.close();
                    }
                    finally {
                        PermitReleasingResponse.this.permit.release();
                    }
                }
            };
        }
        return this.body;
    }

    @Override
    public void close() {
        try {
            this.delegate.close();
        }
        finally {
            this.permit.release();
        }
    }
}
