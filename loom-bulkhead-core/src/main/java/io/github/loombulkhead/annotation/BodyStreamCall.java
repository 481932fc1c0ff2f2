package io.github.loombulkhead.annotation;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.CallChain;
import io.github.loombulkhead.limit.Outcome;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.io.InputStreamResource;
import org.springframework.http.ResponseEntity;
import org.springframework.web.service.annotation.HttpExchange;

/**
 * A call of an HTTP interface method that returns the response body as an {@link InputStream} or an
 * {@link InputStreamResource} (alone or in a {@link ResponseEntity}): the exchange goes on while the caller reads, so
 * the permit is held until the stream is closed, exactly once. That includes a default method of the interface that
 * returns the body of one of its exchanges (the exchange itself runs under this permit). An adaptive bulkhead samples
 * the exchange as {@code @Bulkhead} methods are sampled, with the time until the method returned. Loaded only when
 * Spring Web is present.
 */
final class BodyStreamCall {

    private BodyStreamCall() {
    }

    /**
     * Whether {@code method} is an HTTP exchange, or a method of an HTTP interface, returning {@code InputStream} or
     * {@code InputStreamResource}, or a response entity of one.
     */
    static boolean returnsBodyStream(Method method, Class<?> targetClass) {
        if (!MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).isPresent(HttpExchange.class)
                && !isHttpInterface(method.getDeclaringClass())) {
            return false;
        }
        ResolvableType type = ResolvableType.forMethodReturnType(method, targetClass);
        if (type.toClass() == ResponseEntity.class) {
            type = type.getGeneric(0);
        }
        return type.toClass() == InputStream.class || type.toClass() == InputStreamResource.class;
    }

    /** An interface with {@code @HttpExchange} on it or on one of its methods. */
    private static boolean isHttpInterface(Class<?> type) {
        if (!type.isInterface()) {
            return false;
        }
        if (MergedAnnotations.from(type, SearchStrategy.TYPE_HIERARCHY).isPresent(HttpExchange.class)) {
            return true;
        }
        for (Method method : type.getMethods()) {
            if (MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).isPresent(HttpExchange.class)) {
                return true;
            }
        }
        return false;
    }

    static Object invoke(Bulkhead bulkhead, MethodInvocation invocation) throws Throwable {
        bulkhead.acquirePermit();
        Permit permit = new Permit(bulkhead);
        Object result;
        // The RestClient's interceptor, or a nested @Bulkhead call, of the same bulkhead runs under this permit.
        try (CallChain.Scope held = CallChain.enter(bulkhead)) {
            result = invocation.proceed();
        }
        catch (Throwable ex) {
            permit.answered(bulkhead.outcomeOf(ex));
            permit.release();
            throw ex;
        }
        if (Thread.currentThread().isInterrupted()) {
            // Cut short by an interrupt although it returned: no round trip to learn from.
            permit.answered(Outcome.IGNORED);
        }
        else if (result instanceof ResponseEntity<?> entity) {
            permit.answered(Outcome.ofStatus(entity.getStatusCode().value()));
        }
        else {
            permit.answered(Outcome.SUCCESS);
        }
        if (result instanceof InputStream body) {
            return new ReleasingStream(body, permit);
        }
        if (result instanceof ResponseEntity<?> entity && entity.getBody() instanceof InputStream body) {
            return new ResponseEntity<>(new ReleasingStream(body, permit), entity.getHeaders(), entity.getStatusCode());
        }
        if (result instanceof InputStreamResource resource) {
            return releasing(resource, permit);
        }
        if (result instanceof ResponseEntity<?> entity && entity.getBody() instanceof InputStreamResource resource) {
            return new ResponseEntity<>(releasing(resource, permit), entity.getHeaders(), entity.getStatusCode());
        }
        // No body to read.
        permit.release();
        return result;
    }

    /** {@code resource} with its stream releasing the permit when closed; its name and length as the resource says. */
    private static InputStreamResource releasing(InputStreamResource resource, Permit permit) throws IOException {
        InputStream body;
        try {
            body = resource.getInputStream();
        }
        catch (IOException | RuntimeException ex) {
            permit.release();
            throw ex;
        }
        return new InputStreamResource(new ReleasingStream(body, permit), resource.getDescription()) {

            @Override
            public String getFilename() {
                return resource.getFilename();
            }

            @Override
            public long contentLength() throws IOException {
                return resource.contentLength();
            }
        };
    }

    /**
     * The permit of one exchange and, for an adaptive bulkhead, its sample: the round trip until the method returned
     * (the response headers), not until the body was closed, and what the answer or failure says about the callee.
     */
    private static final class Permit {

        private final Bulkhead bulkhead;

        private final long start = System.nanoTime();

        private final int inflight;

        private final AtomicBoolean released = new AtomicBoolean();

        private long rtt = -1;

        private Outcome outcome = Outcome.SUCCESS;

        Permit(Bulkhead bulkhead) {
            this.bulkhead = bulkhead;
            this.inflight = bulkhead.callStarted();
        }

        void answered(Outcome outcome) {
            this.rtt = System.nanoTime() - this.start;
            this.outcome = outcome;
        }

        void release() {
            if (this.released.compareAndSet(false, true)) {
                long held = System.nanoTime() - this.start;
                this.bulkhead.onComplete(held, (this.rtt >= 0) ? this.rtt : held, this.inflight, this.outcome);
            }
        }
    }

    private static final class ReleasingStream extends FilterInputStream {

        private final Permit permit;

        ReleasingStream(InputStream body, Permit permit) {
            super(body);
            this.permit = permit;
        }

        @Override
        public void close() throws IOException {
            try {
                super.close();
            }
            finally {
                this.permit.release();
            }
        }
    }
}
