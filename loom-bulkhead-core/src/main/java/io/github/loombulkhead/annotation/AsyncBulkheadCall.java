package io.github.loombulkhead.annotation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRejectedException;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.task.TaskDecorator;

/**
 * One call of an asynchronous {@code @Bulkhead} method. It is the bulkhead's thread-less waiter when
 * no permit is free, so the caller gets its stage at once; completing or cancelling that stage while
 * the call still waits withdraws it from the queue.
 */
final class AsyncBulkheadCall extends Bulkhead.Waiter {

    private final Bulkhead bulkhead;

    private final CompletableFuture<Object> result = new CompletableFuture<>();

    private final ThreadFactory threadFactory;

    private Runnable deferred;

    private volatile boolean granted;

    private AsyncBulkheadCall(Bulkhead bulkhead, ThreadFactory threadFactory) {
        this.bulkhead = bulkhead;
        this.threadFactory = threadFactory;
    }

    /** Starts the call now if a permit is free, otherwise queues it; never blocks the caller. */
    static CompletableFuture<Object> start(Bulkhead bulkhead, MethodInvocation invocation, ThreadFactory threadFactory,
            TaskDecorator decorator) {
        AsyncBulkheadCall call = new AsyncBulkheadCall(bulkhead, threadFactory);
        if (bulkhead.tryAcquirePermission()) {
            call.run(invocation);
            return call.result;
        }
        // It may run later on another thread, after the caller (and any outer advice) moved on.
        MethodInvocation later = (invocation instanceof ProxyMethodInvocation proxyInvocation)
                ? proxyInvocation.invocableClone() : invocation;
        Runnable task = () -> call.run(later);
        call.deferred = (decorator != null) ? decorator.decorate(task) : task;
        boolean permitted;
        try {
            permitted = bulkhead.acquireOrEnqueue(call);
        }
        catch (BulkheadRejectedException ex) {
            call.result.completeExceptionally(ex);
            return call.result;
        }
        if (permitted) {
            call.run(invocation);
        }
        else {
            call.result.whenComplete((value, ex) -> call.withdrawIfWaiting());
        }
        return call.result;
    }

    @Override
    protected void onPermit(long waitNanos) {
        this.granted = true;
        if (this.result.isDone()) {
            this.bulkhead.releasePermission();
            return;
        }
        Thread thread;
        try {
            thread = this.threadFactory.newThread(this.deferred);
            if (thread == null) {
                throw new RejectedExecutionException("Bulkhead '" + this.bulkhead.getName()
                        + "': the thread factory refused to create a thread for a call that got a permit");
            }
            thread.start();
        }
        catch (Throwable ex) {
            this.bulkhead.releasePermission();
            this.result.completeExceptionally(ex);
        }
    }

    @Override
    protected void onReject(BulkheadRejectedException rejection) {
        this.result.completeExceptionally(rejection);
    }

    private void withdrawIfWaiting() {
        if (!this.granted) {
            this.bulkhead.withdraw(this);
        }
    }

    /** Runs the method holding a permit; the permit goes back once the returned stage completes. */
    private void run(MethodInvocation invocation) {
        if (this.result.isDone()) {
            this.bulkhead.releasePermission();
            return;
        }
        long start = System.nanoTime();
        Object returned;
        try {
            returned = invocation.proceed();
        }
        catch (Throwable ex) {
            this.bulkhead.onComplete(System.nanoTime() - start);
            this.result.completeExceptionally(ex);
            return;
        }
        if (!(returned instanceof CompletionStage<?> stage)) {
            this.bulkhead.onComplete(System.nanoTime() - start);
            this.result.completeExceptionally(new IllegalStateException(BulkheadOperationSource.describe(
                    invocation.getMethod(), null) + ": the method returned " + returned
                    + " instead of a CompletionStage"));
            return;
        }
        stage.whenComplete((value, ex) -> {
            this.bulkhead.onComplete(System.nanoTime() - start);
            if (ex != null) {
                this.result.completeExceptionally(ex);
            }
            else {
                this.result.complete(value);
            }
        });
    }
}
