package io.github.loombulkhead.annotation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.CallChain;
import io.github.loombulkhead.Waiter;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.task.TaskDecorator;

/**
 * One call of an asynchronous {@code @Bulkhead} method. It always runs on a new virtual thread, at
 * once when a permit is free, otherwise once one is handed over; meanwhile it is the bulkhead's
 * thread-less waiter, so the caller gets its stage at once. Completing or cancelling that stage
 * while the call still waits withdraws it from the queue.
 */
final class AsyncBulkheadCall extends Waiter {

    private final Bulkhead bulkhead;

    private final CompletableFuture<Object> result = new CompletableFuture<>();

    private final ThreadFactory threadFactory;

    private Runnable body;

    private volatile boolean granted;

    /**
     * Taken once, by {@link #run} (the task decorator ran the call) or by the decorated body that returned without
     * running it: whoever takes it owns the permit.
     */
    private final AtomicBoolean claimed = new AtomicBoolean();

    private AsyncBulkheadCall(Bulkhead bulkhead, ThreadFactory threadFactory) {
        this.bulkhead = bulkhead;
        this.threadFactory = threadFactory;
    }

    /** Starts the call on a new thread now if a permit is free, otherwise queues it; never blocks the caller. */
    static CompletableFuture<Object> start(Bulkhead bulkhead, MethodInvocation invocation, ThreadFactory threadFactory,
            TaskDecorator decorator) {
        AsyncBulkheadCall call = new AsyncBulkheadCall(bulkhead, threadFactory);
        // It runs on another thread, after the caller (and any outer advice) moved on.
        MethodInvocation later = (invocation instanceof ProxyMethodInvocation proxyInvocation)
                ? proxyInvocation.invocableClone() : invocation;
        Runnable task = () -> call.run(later);
        try {
            call.body = (decorator != null) ? call.decorated(decorator.decorate(task)) : task;
        }
        catch (RuntimeException | Error ex) {
            // No permit taken yet; the caller still gets a stage and nothing thrown.
            call.result.completeExceptionally(ex);
            return call.result;
        }
        boolean permitted;
        try {
            permitted = bulkhead.acquireOrEnqueue(call);
        }
        catch (BulkheadRejectedException ex) {
            call.result.completeExceptionally(ex);
            return call.result;
        }
        if (permitted) {
            call.granted = true;
            try {
                call.startThread();
            }
            catch (Throwable ex) {
                // Unless a thread the factory started anyway took the call (and with it the permit).
                if (call.claimed.compareAndSet(false, true)) {
                    call.giveBack();
                }
                call.result.completeExceptionally(ex);
            }
        }
        else {
            call.result.whenComplete((value, ex) -> call.withdrawIfWaiting());
        }
        return call.result;
    }

    /**
     * A call that returns without running what {@code decorated} wraps, or throws before, never ran: its permit goes
     * back and its future fails with what was thrown. Only a decorator that throws after the call ran (the future is
     * the method's then), or a {@link VirtualMachineError}, reaches the thread's handler too.
     */
    private Runnable decorated(Runnable decorated) {
        return () -> {
            try {
                decorated.run();
            }
            catch (Throwable ex) {
                if (!failUnlessRan(ex) || ex instanceof VirtualMachineError) {
                    throw ex;
                }
                return;
            }
            failUnlessRan(new IllegalStateException(
                    "Bulkhead '" + this.bulkhead.getName() + "': the task decorator returned without running the call"));
        };
    }

    /** Gives the permit back and fails the future with {@code failure} if the call never ran; whether it did so. */
    private boolean failUnlessRan(Throwable failure) {
        if (!this.claimed.compareAndSet(false, true)) {
            return false;
        }
        giveBack();
        this.result.completeExceptionally(failure);
        return true;
    }

    /** Gives back a permit this call held without running. */
    private void giveBack() {
        this.bulkhead.releasePermit();
    }

    /**
     * A call nested in one that holds its bulkhead's permit already: it runs now, on the caller's thread, under that
     * permit; as any asynchronous call, it hands back a stage and throws nothing.
     */
    static CompletionStage<?> passThrough(MethodInvocation invocation) {
        Object returned;
        try {
            returned = invocation.proceed();
        }
        catch (Throwable ex) {
            return CompletableFuture.failedFuture(ex);
        }
        if (returned instanceof CompletionStage<?> stage) {
            return stage;
        }
        return CompletableFuture.failedFuture(notAStage(invocation, returned));
    }

    private static IllegalStateException notAStage(MethodInvocation invocation, Object returned) {
        return new IllegalStateException(AnnotatedMethods.describe(invocation.getMethod(), null) + ": the method returned "
                + returned + " instead of a CompletionStage");
    }

    private void startThread() {
        Thread thread = this.threadFactory.newThread(this.body);
        if (thread == null) {
            throw new RejectedExecutionException("Bulkhead '" + this.bulkhead.getName()
                    + "': the thread factory refused to create a thread for a call that got a permit");
        }
        if (thread.getState() == Thread.State.NEW) {
            thread.start();
        }
        else if (!thread.isAlive() && !this.claimed.get()) {
            // A used thread: it ended without running the call, which would never run.
            throw new RejectedExecutionException("Bulkhead '" + this.bulkhead.getName() + "': the thread factory "
                    + "returned a thread that had already ended without running the call; a ThreadFactory must return "
                    + "a new, unstarted thread for each call");
        }
        // Otherwise the factory started the thread itself: it runs the call.
    }

    @Override
    protected boolean onPermit(long waitNanos) {
        this.granted = true;
        if (this.result.isDone()) {
            return false;
        }
        try {
            startThread();
            return true;
        }
        catch (Throwable ex) {
            this.result.completeExceptionally(ex);
            // The permit passes on, unless a thread the factory started anyway took the call with it.
            return !this.claimed.compareAndSet(false, true);
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

    private void completed(long start, int inflight, Throwable failure) {
        long ran = System.nanoTime() - start;
        this.bulkhead.onComplete(ran, ran, inflight, this.bulkhead.outcomeOf(failure));
    }

    /** Runs the method holding a permit; the permit goes back once the returned stage completes. */
    private void run(MethodInvocation invocation) {
        if (!this.claimed.compareAndSet(false, true)) {
            // The decorated body returned before this ran (it handed the call to another thread): failed already.
            return;
        }
        if (this.result.isDone()) {
            giveBack();
            return;
        }
        long start = System.nanoTime();
        int inflight = this.bulkhead.callStarted();
        Object returned;
        try (CallChain.Scope held = CallChain.enter(this.bulkhead)) {
            returned = invocation.proceed();
        }
        catch (Throwable ex) {
            completed(start, inflight, ex);
            this.result.completeExceptionally(ex);
            return;
        }
        if (!(returned instanceof CompletionStage<?> stage)) {
            completed(start, inflight, null);
            this.result.completeExceptionally(notAStage(invocation, returned));
            return;
        }
        stage.whenComplete((value, ex) -> {
            completed(start, inflight, (ex instanceof CompletionException wrapped && wrapped.getCause() != null)
                    ? wrapped.getCause() : ex);
            if (ex != null) {
                this.result.completeExceptionally(ex);
            }
            else {
                this.result.complete(value);
            }
        });
    }
}
