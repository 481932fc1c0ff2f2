package io.github.loombulkhead.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.CallChain;
import io.github.loombulkhead.annotation.BulkheadOperationSource.BulkheadOperation;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.task.TaskDecorator;

/**
 * Runs {@link io.github.loombulkhead.annotation.Bulkhead @Bulkhead} methods under their named bulkhead.
 * Synchronous methods park the caller for a permit and release it in {@code finally}. Methods
 * returning {@code CompletionStage}/{@code CompletableFuture} return a stage at once and always run
 * on a new virtual thread, once a permit is free, keeping it until the stage they return completes.
 * HTTP interface methods returning the response body as an {@code InputStream} keep the permit until
 * the caller closes it. A call nested in one that holds the same bulkhead's permit runs under that
 * permit ({@link CallChain}).
 */
public class BulkheadMethodInterceptor implements MethodInterceptor {

    private final BulkheadOperationSource operations;

    private volatile ThreadFactory threadFactory = Thread.ofVirtual()
        .name("loom-bulkhead-call")
        .inheritInheritableThreadLocals(false)
        .factory();

    private volatile TaskDecorator taskDecorator;

    /** An interceptor that looks bulkheads up by name in {@code registry}. */
    public BulkheadMethodInterceptor(BulkheadRegistry registry) {
        this(new BulkheadOperationSource(registry));
    }

    BulkheadMethodInterceptor(BulkheadOperationSource operations) {
        this.operations = operations;
    }

    /** Creates the thread that runs each asynchronous call, whether it waited or not (default: new virtual threads). */
    public void setThreadFactory(ThreadFactory threadFactory) {
        this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory must not be null");
    }

    /**
     * Decorates each asynchronous call on the caller's thread, so it can carry context (MDC, security,
     * observations) to the thread that runs it; {@code null} for none.
     */
    public void setTaskDecorator(TaskDecorator taskDecorator) {
        this.taskDecorator = taskDecorator;
    }

    /**
     * The class whose annotations apply to calls on {@code bean}: its target class, unless {@code bean} is an
     * interface proxy whose target implements only part of its interfaces (a Spring Data repository: the target is
     * the store's base implementation, the repository interface is the proxy's), then the proxy's class, which has
     * every interface, so an {@code @Bulkhead} on the repository interface applies to the methods it inherits too.
     */
    static Class<?> annotatedClassOf(Object bean) {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        if (Proxy.isProxyClass(bean.getClass()) && targetClass != bean.getClass()) {
            // A Spring interface proxy (it knows its target's class): its user interfaces, without Spring's own.
            for (Class<?> userInterface : AopProxyUtils.proxiedUserInterfaces(bean)) {
                if (!userInterface.isAssignableFrom(targetClass)) {
                    return bean.getClass();
                }
            }
        }
        return targetClass;
    }

    BulkheadOperationSource getOperationSource() {
        return this.operations;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        BulkheadOperation operation = this.operations.getOperation(method, targetClass(invocation));
        if (operation == null) {
            return invocation.proceed();
        }
        Bulkhead bulkhead = operation.bulkhead();
        if (CallChain.holds(bulkhead)) {
            // Nested in a call that holds this bulkhead's permit already: one permit per call chain.
            return operation.async() ? AsyncBulkheadCall.passThrough(invocation) : invocation.proceed();
        }
        if (operation.async()) {
            return AsyncBulkheadCall.start(bulkhead, invocation, this.threadFactory, this.taskDecorator);
        }
        if (operation.bodyStream()) {
            return BodyStreamCall.invoke(bulkhead, invocation);
        }
        return invokeBlocking(bulkhead, invocation);
    }

    private static Object invokeBlocking(Bulkhead bulkhead, MethodInvocation invocation) throws Throwable {
        bulkhead.acquirePermit();
        long start = System.nanoTime();
        int inflight = bulkhead.callStarted();
        Throwable failure = null;
        try (CallChain.Scope held = CallChain.enter(bulkhead)) {
            return invocation.proceed();
        }
        catch (Throwable ex) {
            failure = ex;
            throw ex;
        }
        finally {
            long ran = System.nanoTime() - start;
            bulkhead.onComplete(ran, ran, inflight, bulkhead.outcomeOf(failure));
        }
    }

    /** The class the call is made on; for target-less proxies (HTTP interface clients) the proxy's. */
    private static Class<?> targetClass(MethodInvocation invocation) {
        Object target = invocation.getThis();
        if (target != null) {
            return annotatedClassOf(target);
        }
        if (invocation instanceof ProxyMethodInvocation proxyInvocation) {
            return proxyInvocation.getProxy().getClass();
        }
        return invocation.getMethod().getDeclaringClass();
    }
}
