package io.github.loombulkhead.annotation;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;

/**
 * Applies a {@link BulkheadMethodInterceptor} to methods annotated with {@code @Bulkhead} (or declared
 * by an annotated type). Usable on its own with an auto-proxy creator; the
 * {@link BulkheadAnnotationBeanPostProcessor} uses it to advise beans and HTTP interface clients.
 */
@SuppressWarnings("serial")
public class BulkheadAnnotationAdvisor extends AbstractPointcutAdvisor {

    private final transient BulkheadMethodInterceptor interceptor;

    private final transient BulkheadAnnotationPointcut pointcut;

    public BulkheadAnnotationAdvisor(BulkheadMethodInterceptor interceptor) {
        this.interceptor = interceptor;
        this.pointcut = new BulkheadAnnotationPointcut();
    }

    @Override
    public Pointcut getPointcut() {
        return this.pointcut;
    }

    @Override
    public Advice getAdvice() {
        return this.interceptor;
    }

    /**
     * Checks every annotated method of {@code targetClass} and creates the bulkheads they name.
     * @throws IllegalStateException naming the first bad annotation and how to fix it
     */
    public void validate(Class<?> targetClass) {
        this.interceptor.getOperationSource().validate(targetClass);
    }

    /**
     * Checks that a class-based proxy of {@code targetClass} intercepts every annotated method (none is final).
     * @throws IllegalStateException naming the first final method and how to fix it
     */
    void validateClassProxy(Class<?> targetClass) {
        this.interceptor.getOperationSource().validateClassProxy(targetClass);
    }
}
