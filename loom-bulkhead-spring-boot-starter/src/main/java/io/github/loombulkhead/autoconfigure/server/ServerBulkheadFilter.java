package io.github.loombulkhead.autoconfigure.server;

import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRejectedException;
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
 * bulkhead dispatches it again when it hands it a permit, and withdraws it at once when the container reports
 * its end while it waits (an error, a timeout, a disconnect the container noticed). A rejected request is
 * answered by the {@link ServerBulkheadRejectionHandler}.
 * Must be registered for the {@code REQUEST} and {@code ASYNC} dispatcher types with async support.
 */
public class ServerBulkheadFilter implements Filter {

    /** The request attribute holding the request's {@code RequestPermit}. */
    static final String PERMIT_ATTRIBUTE = ServerBulkheadFilter.class.getName() + ".permit";

    private static final Log logger = LogFactory.getLog(ServerBulkheadFilter.class);

    private final ServerBulkheadRoutes routes;

    private final ServerBulkheadRejectionHandler rejectionHandler;

    private final LongAdder withdrawn = new LongAdder();

    public ServerBulkheadFilter(ServerBulkheadRoutes routes, ServerBulkheadRejectionHandler rejectionHandler) {
        this.routes = routes;
        this.rejectionHandler = rejectionHandler;
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
                chain.doFilter(request, response);
            }
            return;
        }
        Bulkhead bulkhead = this.routes.bulkheadFor(request);
        if (bulkhead.tryAcquirePermit()) {
            runHolding(RequestPermit.running(bulkhead), request, response, chain);
        }
        else {
            waitForPermit(bulkhead, request, response);
        }
    }

    private void runHolding(RequestPermit permit, HttpServletRequest request, HttpServletResponse response,
            FilterChain chain) throws IOException, ServletException {
        request.setAttribute(PERMIT_ATTRIBUTE, permit);
        try {
            chain.doFilter(request, response);
        }
        finally {
            if (request.isAsyncStarted()) {
                request.getAsyncContext().addListener(permit);
            }
            else {
                permit.release();
            }
        }
    }

    /** Leaves the request in async mode, without a thread, until the bulkhead grants or refuses a permit. */
    private void waitForPermit(Bulkhead bulkhead, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        AsyncContext async = request.startAsync();
        // The bulkhead's max wait times the request out; the container must not.
        async.setTimeout(0);
        RequestPermit permit = RequestPermit.waiting(bulkhead, async,
                (rejection) -> rejectAndComplete(request, response, rejection, async), this.withdrawn::increment);
        request.setAttribute(PERMIT_ATTRIBUTE, permit);
        try {
            if (bulkhead.acquireOrEnqueue(permit)) {
                permit.grantedAtOnce();
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
            this.rejectionHandler.reject(request, response, rejection);
        }
        catch (IOException | RuntimeException ex) {
            logger.debug("Could not write the rejection of " + request.getRequestURI(), ex);
        }
        finally {
            async.complete();
        }
    }

    /** Requests that ended while they waited for a permit and left the queue without running. */
    public long getWithdrawnCount() {
        return this.withdrawn.sum();
    }
}
