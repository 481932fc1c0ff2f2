package io.github.loombulkhead.http;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A response that gives its exchange's permit back when it, or its body stream, is closed, after
 * the underlying response has released its connection. A body that fails to read turns the exchange's
 * sample into that failure.
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
                public int read() throws IOException {
                    try {
                        return super.read();
                    }
                    catch (IOException ex) {
                        throw failed(ex);
                    }
                }

                @Override
                public int read(byte[] buffer, int offset, int length) throws IOException {
                    try {
                        return super.read(buffer, offset, length);
                    }
                    catch (IOException ex) {
                        throw failed(ex);
                    }
                }

                @Override
                public long skip(long n) throws IOException {
                    try {
                        return super.skip(n);
                    }
                    catch (IOException ex) {
                        throw failed(ex);
                    }
                }

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

    /**
     * Reading the body failed: the exchange's sample is that failure (a read timeout is a drop, as before the headers),
     * not the answer its headers were.
     */
    private IOException failed(IOException failure) {
        this.permit.bodyFailed(failure);
        return failure;
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
