package io.github.loombulkhead.autoconfigure.server;

import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.autoconfigure.server.WithdrawnRequests.Reason;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The life of one request's permit against a real bulkhead, driven by the async events a container sends and by
 * checks of its connection: a request that ends while it waits, or whose client is found gone, leaves the queue at
 * once; a permit goes back exactly once; a grant waits for a check that reads the connection.
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
    void requestWhoseDispatchIsRefusedBeforeTheContainerReportsItsEndIsCountedAsWithdrawn() throws Exception {
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        RecordingAsyncContext refusing = new RecordingAsyncContext();
        refusing.refusesDispatch = true;
        RequestPermit ended = waiting(refusing);
        this.bulkhead.onComplete(0);
        refusing.complete();
        assertThat(ended.start()).isFalse();
        // It ran not, nor was it rejected: it left the queue, and says so once.
        assertThat(this.withdrawn).hasValue(1);
        assertThat(this.bulkhead.getActiveCount()).isZero();
        assertThat(this.bulkhead.getRejectedCount()).isZero();
        assertThat(this.bulkhead.getPermittedCount()).isEqualTo(1);
    }

    @Test
    void requestThatEndsWhileItsDispatchIsOnItsWayGivesThePermitBackOnce() throws Exception {
        endsWhileItsDispatchIsOnItsWay(new IllegalStateException("the request has ended"));
    }

    @Test
    void requestThatEndsWhileItsDispatchFailsOtherwiseGivesThePermitBackOnce() throws Exception {
        // A container that recycled the async context meanwhile may fail with something else than the
        // IllegalStateException the servlet API names.
        endsWhileItsDispatchIsOnItsWay(new NullPointerException("the async context was recycled"));
    }

    private void endsWhileItsDispatchIsOnItsWay(RuntimeException dispatchFailure) throws Exception {
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        RecordingAsyncContext ending = new RecordingAsyncContext();
        ending.endsDuringDispatch = dispatchFailure;
        RecordingAsyncContext next = new RecordingAsyncContext();
        RequestPermit ended = waiting(ending);
        RequestPermit following = waiting(next);
        this.bulkhead.onComplete(0);
        // The ended request's end gave the permit back, which then went to the next request: once, not twice.
        assertThat(ended.start()).isFalse();
        assertThat(next.dispatches).isEqualTo(1);
        assertThat(this.bulkhead.getActiveCount()).isEqualTo(1);
        assertThat(this.bulkhead.getWaitingCount()).isZero();
        assertThat(following.start()).isTrue();
        assertThat(this.bulkhead.tryAcquirePermit()).as("the limit of 1 is taken").isFalse();
        next.complete();
        assertThat(this.bulkhead.getActiveCount()).isZero();
        // The first holder, the ended request (its permit went back without running) and the next one.
        assertThat(this.bulkhead.getPermittedCount()).isEqualTo(3);
        assertThat(this.bulkhead.getCompletedCount()).isEqualTo(2);
    }

    @Test
    void requestThatEndsAsTheQueueChoosesItCountsAsWithdrawnOnce() throws Exception {
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        RecordingAsyncContext async = new RecordingAsyncContext();
        RequestPermit ended = waiting(async, null, Reason.REQUEST_ENDED);
        // The container's end, after the queue took the request out for a grant (its withdraw failed).
        ended.release(null, null);
        this.bulkhead.releasePermit();
        assertThat(this.withdrawn).hasValue(1);
        assertThat(async.dispatches).isZero();
        assertThat(this.bulkhead.getActiveCount()).isZero();
        assertThat(this.bulkhead.getPermittedCount()).isEqualTo(1);
        assertThat(this.bulkhead.getRejectedCount()).isZero();
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

    @Test
    void checkThatFindsTheClientGoneWithdrawsTheRequestOnce() throws Exception {
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        RecordingAsyncContext async = new RecordingAsyncContext();
        CheckedStream stream = new CheckedStream(1);
        RequestPermit permit = waiting(async, new ClientConnection(stream), Reason.CLIENT_DISCONNECTED);
        assertThat(permit.checkConnection()).isFalse();
        assertThat(this.bulkhead.getWaitingCount()).isZero();
        assertThat(this.withdrawn).hasValue(1);
        // The end of the request that follows changes nothing, and no permit goes to it.
        async.complete();
        assertThat(permit.checkConnection()).isFalse();
        this.bulkhead.releasePermit();
        assertThat(this.withdrawn).hasValue(1);
        assertThat(async.dispatches).isZero();
        assertThat(this.bulkhead.getActiveCount()).isZero();
        assertThat(stream.reads.get()).isEqualTo(2);
    }

    @Test
    void checkOfAClientThatStaysKeepsTheRequestWaiting() throws Exception {
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        RecordingAsyncContext async = new RecordingAsyncContext();
        RequestPermit permit = waiting(async, new ClientConnection(new CheckedStream(0)), Reason.CLIENT_DISCONNECTED);
        assertThat(permit.checkConnection()).isTrue();
        assertThat(this.bulkhead.getWaitingCount()).isEqualTo(1);
        this.bulkhead.releasePermit();
        assertThat(async.dispatches).isEqualTo(1);
        assertThat(permit.checkConnection()).isFalse();
        assertThat(this.withdrawn).hasValue(0);
    }

    @Test
    void requestsThatStartToWaitDoNotHurryTheNextCheck() throws Exception {
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        List<CheckedStream> streams = new ArrayList<>();
        try (DisconnectCheck check = new DisconnectCheck(Duration.ofSeconds(30))) {
            for (int i = 0; i < 10; i++) {
                CheckedStream stream = new CheckedStream(0);
                streams.add(stream);
                check.watch(waiting(new RecordingAsyncContext(), new ClientConnection(stream),
                        Reason.CLIENT_DISCONNECTED));
            }
            assertThat(check.size()).isEqualTo(10);
            // Each arrival unparks the check's thread; with a 30 s interval no connection may be read yet.
            Thread.sleep(300);
            assertThat(streams).allSatisfy((stream) -> assertThat(stream.reads).hasValue(0));
        }
    }

    @Test
    void checksRunEveryInterval() throws Exception {
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        CheckedStream stream = new CheckedStream(0);
        try (DisconnectCheck check = new DisconnectCheck(Duration.ofMillis(20))) {
            check.watch(waiting(new RecordingAsyncContext(), new ClientConnection(stream), Reason.CLIENT_DISCONNECTED));
            await().atMost(Duration.ofSeconds(10)).until(() -> stream.reads.get() >= 3);
        }
    }

    @Test
    void aWithdrawalThatThrowsAnErrorDoesNotEndTheChecksOfTheOtherRequests() throws Exception {
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        AtomicInteger failed = new AtomicInteger();
        RequestPermit failing = RequestPermit.waiting(this.bulkhead, new RecordingAsyncContext(),
                new RequestPermit.Ending() {

                    @Override
                    public void rejected(BulkheadRejectedException rejection) {
                        throw new AssertionError("not rejected: " + rejection);
                    }

                    @Override
                    public void withdrawn(Reason reason) {
                        failed.incrementAndGet();
                        throw new AssertionError("a bug where the request is withdrawn");
                    }
                }, new ClientConnection(new CheckedStream(1)));
        assertThat(this.bulkhead.acquireOrEnqueue(failing)).isFalse();
        try (DisconnectCheck check = new DisconnectCheck(Duration.ofMillis(20))) {
            check.watch(failing);
            await().atMost(Duration.ofSeconds(10)).until(() -> failed.get() == 1);
            RequestPermit gone = waiting(new RecordingAsyncContext(), new ClientConnection(new CheckedStream(1)),
                    Reason.CLIENT_DISCONNECTED);
            check.watch(gone);
            // The check goes on: the next client that went away is found too.
            await().atMost(Duration.ofSeconds(10)).until(() -> this.withdrawn.get() == 1);
            assertThat(check.size()).isZero();
        }
    }

    @Test
    void permitGrantedDuringACheckIsDispatchedOnlyOnceTheCheckIsOver() throws Exception {
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        RecordingAsyncContext async = new RecordingAsyncContext();
        CheckedStream stream = new CheckedStream(0);
        stream.blocked = new CountDownLatch(1);
        RequestPermit permit = waiting(async, new ClientConnection(stream), Reason.CLIENT_DISCONNECTED);
        Thread check = Thread.ofVirtual().start(permit::checkConnection);
        assertThat(stream.reading.await(10, TimeUnit.SECONDS)).isTrue();
        Thread release = Thread.ofVirtual().start(this.bulkhead::releasePermit);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10)).until(() -> async.dispatches == 0);
        stream.blocked.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> async.dispatches == 1);
        check.join();
        release.join();
        assertThat(permit.start()).isTrue();
        assertThat(this.withdrawn).hasValue(0);
    }

    private RequestPermit waiting(RecordingAsyncContext async) {
        return waiting(async, null, Reason.REQUEST_ENDED);
    }

    private RequestPermit waiting(RecordingAsyncContext async, ClientConnection connection, Reason expected) {
        RequestPermit permit = RequestPermit.waiting(this.bulkhead, async, new RequestPermit.Ending() {

            @Override
            public void rejected(BulkheadRejectedException rejection) {
                throw new AssertionError("not rejected: " + rejection);
            }

            @Override
            public void withdrawn(Reason reason) {
                assertThat(reason).isEqualTo(expected);
                RequestPermitTest.this.withdrawn.incrementAndGet();
            }
        }, connection);
        assertThat(this.bulkhead.acquireOrEnqueue(permit)).isFalse();
        return permit;
    }

    /** The input stream of a request without a body as Tomcat reports it: {@code available} bytes on every read. */
    private static final class CheckedStream extends ServletInputStream {

        private final int available;

        final AtomicInteger reads = new AtomicInteger();

        final CountDownLatch reading = new CountDownLatch(1);

        volatile CountDownLatch blocked;

        CheckedStream(int available) {
            this.available = available;
        }

        @Override
        public int available() {
            this.reads.incrementAndGet();
            this.reading.countDown();
            if (this.blocked != null) {
                try {
                    this.blocked.await(10, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(ex);
                }
            }
            return this.available;
        }

        @Override
        public boolean isFinished() {
            return true;
        }

        @Override
        public boolean isReady() {
            return false;
        }

        @Override
        public void setReadListener(ReadListener listener) {
        }

        @Override
        public int read() {
            return -1;
        }
    }

    /** An async cycle that tells its listeners what a container tells them, and counts dispatches. */
    private static final class RecordingAsyncContext implements AsyncContext {

        private final List<AsyncListener> listeners = new ArrayList<>();

        volatile int dispatches;

        /** The container ends the request as the dispatch is asked for, and fails the dispatch with this. */
        RuntimeException endsDuringDispatch;

        /** The request ended and the container refuses the dispatch; it reports the end to listeners after that. */
        boolean refusesDispatch;

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
            if (this.endsDuringDispatch != null) {
                complete();
                throw this.endsDuringDispatch;
            }
            if (this.refusesDispatch) {
                throw new IllegalStateException("the request has ended; the container tells listeners after this");
            }
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
