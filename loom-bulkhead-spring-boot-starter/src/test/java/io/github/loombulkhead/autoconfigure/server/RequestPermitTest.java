package io.github.loombulkhead.autoconfigure.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.autoconfigure.server.WithdrawnRequests.Reason;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The life of one request's permit against a real bulkhead, driven by the async events a container sends: a
 * request that ends while it waits leaves the queue at once, and a permit goes back exactly once.
 */
class RequestPermitTest {

    private final Bulkhead bulkhead = new Bulkhead("server",
            BulkheadConfig.custom().maxConcurrentCalls(1).queueCapacity(10).build());

    private final AtomicInteger withdrawn = new AtomicInteger();

    @Test
    void requestThatEndsWhileWaitingLeavesTheQueueAtOnce() throws Exception {
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        RecordingAsyncContext first = new RecordingAsyncContext();
        RecordingAsyncContext second = new RecordingAsyncContext();
        RequestPermit gone = waiting(first);
        RequestPermit staying = waiting(second);
        assertThat(this.bulkhead.getWaitingCount()).isEqualTo(2);
        first.error();
        assertThat(this.bulkhead.getWaitingCount()).isEqualTo(1);
        assertThat(this.withdrawn).hasValue(1);
        first.complete();
        assertThat(this.withdrawn).hasValue(1);
        this.bulkhead.releasePermit();
        assertThat(first.dispatches).isZero();
        assertThat(second.dispatches).isEqualTo(1);
        assertThat(staying.start()).isTrue();
        assertThat(gone.start()).isFalse();
        second.complete();
        second.complete();
        assertThat(this.bulkhead.getActiveCount()).isZero();
        assertThat(this.bulkhead.getCompletedCount()).isEqualTo(1);
    }

    @Test
    void dispatchedRequestThatEndsBeforeItRunsGivesThePermitBack() throws Exception {
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        RecordingAsyncContext async = new RecordingAsyncContext();
        RequestPermit permit = waiting(async);
        this.bulkhead.releasePermit();
        assertThat(async.dispatches).isEqualTo(1);
        assertThat(this.bulkhead.getActiveCount()).isEqualTo(1);
        async.error();
        async.complete();
        assertThat(permit.start()).isFalse();
        assertThat(this.bulkhead.getActiveCount()).isZero();
        assertThat(this.bulkhead.getCompletedCount()).isZero();
        assertThat(this.withdrawn).hasValue(0);
    }

    @Test
    void permitFollowsTheRequestIntoANewAsyncCycle() throws Exception {
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        RequestPermit permit = RequestPermit.running(this.bulkhead);
        RecordingAsyncContext controllerCycle = new RecordingAsyncContext();
        controllerCycle.addListener(permit);
        RecordingAsyncContext nextCycle = controllerCycle.startAgain();
        assertThat(this.bulkhead.getActiveCount()).isEqualTo(1);
        nextCycle.complete();
        assertThat(this.bulkhead.getActiveCount()).isZero();
        assertThat(this.bulkhead.getCompletedCount()).isEqualTo(1);
    }

    private RequestPermit waiting(RecordingAsyncContext async) {
        RequestPermit permit = RequestPermit.waiting(this.bulkhead, async, new RequestPermit.Ending() {

            @Override
            public void rejected(BulkheadRejectedException rejection) {
                throw new AssertionError("not rejected: " + rejection);
            }

            @Override
            public void withdrawn(Reason reason) {
                assertThat(reason).isEqualTo(Reason.REQUEST_ENDED);
                RequestPermitTest.this.withdrawn.incrementAndGet();
            }
        }, null);
        assertThat(this.bulkhead.acquireOrEnqueue(permit)).isFalse();
        return permit;
    }

    /** An async cycle that tells its listeners what a container tells them, and counts dispatches. */
    private static final class RecordingAsyncContext implements AsyncContext {

        private final List<AsyncListener> listeners = new ArrayList<>();

        int dispatches;

        void error() throws Exception {
            for (AsyncListener listener : List.copyOf(this.listeners)) {
                listener.onError(new AsyncEvent(this, new java.io.IOException("connection reset")));
            }
        }

        RecordingAsyncContext startAgain() throws Exception {
            RecordingAsyncContext next = new RecordingAsyncContext();
            List<AsyncListener> previous = List.copyOf(this.listeners);
            this.listeners.clear();
            for (AsyncListener listener : previous) {
                listener.onStartAsync(new AsyncEvent(next));
            }
            return next;
        }

        @Override
        public void complete() {
            for (AsyncListener listener : List.copyOf(this.listeners)) {
                try {
                    listener.onComplete(new AsyncEvent(this));
                }
                catch (java.io.IOException ex) {
                    throw new IllegalStateException(ex);
                }
            }
        }

        @Override
        public void dispatch() {
            this.dispatches++;
        }

        @Override
        public void addListener(AsyncListener listener) {
            this.listeners.add(listener);
        }

        @Override
        public void addListener(AsyncListener listener, ServletRequest request, ServletResponse response) {
            this.listeners.add(listener);
        }

        @Override
        public ServletRequest getRequest() {
            return null;
        }

        @Override
        public ServletResponse getResponse() {
            return null;
        }

        @Override
        public boolean hasOriginalRequestAndResponse() {
            return true;
        }

        @Override
        public void dispatch(String path) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void dispatch(ServletContext context, String path) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void start(Runnable run) {
            run.run();
        }

        @Override
        public <T extends AsyncListener> T createListener(Class<T> clazz) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void setTimeout(long timeout) {
        }

        @Override
        public long getTimeout() {
            return 0;
        }
    }
}
