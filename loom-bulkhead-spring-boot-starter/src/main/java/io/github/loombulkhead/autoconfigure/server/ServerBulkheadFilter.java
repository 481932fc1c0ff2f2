package io.github.loombulkhead.autoconfigure.server;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.autoconfigure.server.WithdrawnRequests.Reason;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Bounds the requests of a servlet application with bulkheads. A request holds a permit from when it enters
 * until its response completes. A request that must wait is put into async mode and holds no thread; the
 * bulkhead dispatches it again when it hands it a permit. It leaves the queue without running when the container
 * reports its end (an error, a timeout) or when a periodic check finds its client gone; the latter is answered
 * {@value #CLIENT_CLOSED_REQUEST} for the logs. A rejected request is answered by the
 * {@link ServerBulkheadRejectionHandler}.
 * Must be registered for the {@code REQUEST} and {@code ASYNC} dispatcher types with async support.
 */
public class ServerBulkheadFilter implements Filter {

    /** Status of a waiting request whose client went away (nginx's "client closed request"); nobody reads it. */
    public static final int CLIENT_CLOSED_REQUEST = 499;

    /** The request attribute holding the request's {@code RequestPermit}. */
    static final String PERMIT_ATTRIBUTE = ServerBulkheadFilter.class.getName() + ".permit";

    private static final Log logger = LogFactory.getLog(ServerBulkheadFilter.class);

    private final ServerBulkheadRoutes routes;

    private final ServerBulkheadRejectionHandler rejectionHandler;

    private final WithdrawnRequests withdrawn;

    private final AtomicBoolean blockingWarned = new AtomicBoolean();

    /** Null when the connections of waiting requests are not checked. */
    private final DisconnectCheck disconnectCheck;

    /** A filter that checks the connections of waiting requests every 500 ms. */
    public ServerBulkheadFilter(ServerBulkheadRoutes routes, ServerBulkheadRejectionHandler rejectionHandler) {
        this(routes, rejectionHandler, new WithdrawnRequests(), Duration.ofMillis(500));
    }

    /**
     * @param withdrawn counts the requests that left a queue without running
     * @param disconnectCheckInterval time between two checks of the waiting requests' connections; zero for none
     */
    public ServerBulkheadFilter(ServerBulkheadRoutes routes, ServerBulkheadRejectionHandler rejectionHandler,
            WithdrawnRequests withdrawn, Duration disconnectCheckInterval) {
        this.routes = routes;
        this.rejectionHandler = rejectionHandler;
        this.withdrawn = withdrawn;
        this.disconnectCheck = disconnectCheckInterval.isZero() ? null : new DisconnectCheck(disconnectCheckInterval);
    }

    @Override
    public void doFilter(ServletRequest servletRequest, ServletResponse servletResponse, FilterChain chain)
            throws IOException, ServletException {
        if (!(servletRequest instanceof HttpServletRequest request)
                || !(servletResponse instanceof HttpServletResponse response)) {
            chain.doFilter(servletRequest, servletResponse);
            return;
        }
        if (request.getAttribute(PERMIT_ATTRIBUTE) instanceof RequestPermit permit) {
            // Our own dispatch after the wait runs the request; any later dispatch (an async controller's) passes.
            if (request.getDispatcherType() != DispatcherType.ASYNC || !permit.isDispatched()) {
                chain.doFilter(request, response);
            }
            else if (permit.start()) {
                chain.doFilter(permit.isConnectionChecked() ? new BodilessRequest(request) : request, response);
            }
            return;
        }
        Bulkhead bulkhead = this.routes.bulkheadFor(request);
        if (bulkhead.tryAcquirePermit()) {
            runHolding(RequestPermit.running(bulkhead), request, response, chain);
        }
        else if (request.isAsyncSupported()) {
            waitForPermit(bulkhead, request, response);
        }
        else {
            waitOnThisThread(bulkhead, request, response, chain);
        }
    }

    /**
     * A filter or servlet before this one does not support async mode, so the request cannot wait without a thread:
     * it waits on the thread that runs it (a virtual thread parks without pinning its carrier), as long as the
     * bulkhead's max wait, and runs or is rejected there. Said once, naming what to change.
     */
    private void waitOnThisThread(Bulkhead bulkhead, HttpServletRequest request, HttpServletResponse response,
            FilterChain chain) throws IOException, ServletException {
        if (this.blockingWarned.compareAndSet(false, true)) {
            logger.warn("A request to " + request.getRequestURI() + " waits for a permit of bulkhead '"
                    + bulkhead.getName() + "' on its own thread: a filter or servlet before the bulkhead's filter does "
                    + "not support async mode (a FilterRegistrationBean with setAsyncSupported(false), a @WebFilter "
                    + "without asyncSupported = true), so the request cannot wait without a thread. Enable async "
                    + "support on it. Logged once.");
        }
        try {
            bulkhead.acquirePermit();
        }
        catch (BulkheadRejectedException ex) {
            reject(request, response, ex);
            return;
        }
        runHolding(RequestPermit.running(bulkhead), request, response, chain);
    }

    private void runHolding(RequestPermit permit, HttpServletRequest request, HttpServletResponse response,
            FilterChain chain) throws IOException, ServletException {
        request.setAttribute(PERMIT_ATTRIBUTE, permit);
        Throwable failure = null;
        try {
            chain.doFilter(request, response);
        }
        catch (IOException | ServletException | RuntimeException | Error ex) {
            failure = ex;
            throw ex;
        }
        finally {
            if (request.isAsyncStarted()) {
                request.getAsyncContext().addListener(permit);
            }
            else {
                permit.release(response, failure);
            }
        }
    }

    /** Leaves the request in async mode, without a thread, until the bulkhead grants or refuses a permit. */
    private void waitForPermit(Bulkhead bulkhead, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        // With this request and response: the dispatch after the wait keeps what the filters before this one
        // wrapped them in (a form body parsed into parameters, a security context).
        AsyncContext async = request.startAsync(request, response);
        // The bulkhead's max wait times the request out; the container must not.
        async.setTimeout(0);
        RequestPermit permit = RequestPermit.waiting(bulkhead, async,
                new WaitingRequest(bulkhead.getName(), request, response, async), connectionToCheck(request));
        request.setAttribute(PERMIT_ATTRIBUTE, permit);
        try {
            if (bulkhead.acquireOrEnqueue(permit)) {
                permit.grantedAtOnce();
            }
            else if (permit.isConnectionChecked()) {
                this.disconnectCheck.watch(permit);
            }
        }
        catch (BulkheadRejectedException ex) {
            permit.rejected();
            rejectAndComplete(request, response, ex, async);
        }
    }

    private void rejectAndComplete(HttpServletRequest request, HttpServletResponse response,
            BulkheadRejectedException rejection, AsyncContext async) {
        try {
            reject(request, response, rejection);
        }
        finally {
            async.complete();
        }
    }

    private void reject(HttpServletRequest request, HttpServletResponse response, BulkheadRejectedException rejection) {
        try {
            this.rejectionHandler.reject(request, response, rejection);
        }
        catch (IOException ex) {
            // The client is gone, most likely.
            logger.debug("Could not write the rejection of " + request.getRequestURI(), ex);
        }
        catch (RuntimeException ex) {
            logger.warn("The rejection handler failed on the rejection of " + request.getRequestURI(), ex);
            if (!response.isCommitted()) {
                // Still refused, without the handler's body, instead of an empty 200.
                response.reset();
                response.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
            }
        }
    }

    private ClientConnection connectionToCheck(HttpServletRequest request) {
        if (this.disconnectCheck == null) {
            return null;
        }
        try {
            return ClientConnection.of(request);
        }
        catch (IOException | IllegalStateException ex) {
            // Its input stream is not to be had (an earlier filter took its reader): it is not checked.
            logger.debug("Cannot check the connection of " + request.getRequestURI() + " while it waits", ex);
            return null;
        }
    }

    /** Ends a request whose client went away while it waited; it never ran. */
    private static void endDisconnected(HttpServletResponse response, AsyncContext async) {
        try {
            response.setStatus(CLIENT_CLOSED_REQUEST);
            response.setHeader("Connection", "close");
            async.complete();
        }
        catch (IllegalStateException ex) {
            logger.debug("The request of a gone client ended meanwhile", ex);
        }
    }

    /** Requests that ended while they waited for a permit and left the queue without running. */
    public WithdrawnRequests getWithdrawnRequests() {
        return this.withdrawn;
    }

    @Override
    public void destroy() {
        if (this.disconnectCheck != null) {
            this.disconnectCheck.close();
        }
    }

    /** How one waiting request ends when it does not run. */
    private final class WaitingRequest implements RequestPermit.Ending {

        private final String bulkhead;

        private final HttpServletRequest request;

        private final HttpServletResponse response;

        private final AsyncContext async;

        WaitingRequest(String bulkhead, HttpServletRequest request, HttpServletResponse response, AsyncContext async) {
            this.bulkhead = bulkhead;
            this.request = request;
            this.response = response;
            this.async = async;
        }

        @Override
        public void rejected(BulkheadRejectedException rejection) {
            rejectAndComplete(this.request, this.response, rejection, this.async);
        }

        @Override
        public void withdrawn(Reason reason) {
            ServerBulkheadFilter.this.withdrawn.count(this.bulkhead, reason);
            if (reason == Reason.CLIENT_DISCONNECTED) {
                endDisconnected(this.response, this.async);
            }
        }
    }
}
