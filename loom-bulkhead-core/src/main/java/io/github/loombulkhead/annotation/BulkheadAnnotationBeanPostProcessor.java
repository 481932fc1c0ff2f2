package io.github.loombulkhead.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.concurrent.ThreadFactory;

import io.github.loombulkhead.BulkheadRegistry;

import org.springframework.aop.framework.AopConfigException;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.Ordered;
import org.springframework.core.task.TaskDecorator;

/**
 * Advises beans and HTTP interface clients (the proxies {@code @ImportHttpServices} registers) whose
 * methods or types carry {@link Bulkhead @Bulkhead}, and checks every such annotation when the bean is
 * created, so a bad name or return type fails startup instead of the first call.
 *
 * <p>Position in the advice chain: by default the bulkhead is the <em>innermost</em> advice, right
 * around the target method, and for an HTTP interface client right around the HTTP exchange. So
 * Spring's {@code @Retryable}, {@code @ConcurrencyLimit} and {@code @Async} (which put themselves in
 * front of existing advice), {@code @Transactional} and AspectJ aspects such as resilience4j's
 * {@code @Retry}/{@code @CircuitBreaker} (applied earlier by the auto-proxy creator) all run outside
 * it: each retry attempt takes its own permit and no permit is held during a back-off. This matches
 * resilience4j's own order, where the bulkhead is innermost. Call
 * {@link #setBeforeExistingAdvisors(boolean) setBeforeExistingAdvisors(true)} to make it the
 * outermost advice of the chain that exists when this post-processor runs, and {@link #setOrder(int)}
 * (default {@link Ordered#LOWEST_PRECEDENCE}) to choose when it runs among post-processors.
 */
@SuppressWarnings("serial")
public class BulkheadAnnotationBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private final transient BulkheadAnnotationAdvisor bulkheadAdvisor;

    private final transient BulkheadMethodInterceptor interceptor;

    /** A post-processor whose annotations name bulkheads of {@code registry}. */
    public BulkheadAnnotationBeanPostProcessor(BulkheadRegistry registry) {
        this.interceptor = new BulkheadMethodInterceptor(registry);
        this.bulkheadAdvisor = new BulkheadAnnotationAdvisor(this.interceptor);
        this.advisor = this.bulkheadAdvisor;
    }

    /** Creates the thread that runs each asynchronous call, whether it waited or not (default: new virtual threads). */
    public void setThreadFactory(ThreadFactory threadFactory) {
        this.interceptor.setThreadFactory(threadFactory);
    }

    /** Decorates each asynchronous call on the caller's thread, to carry context to the thread that runs it. */
    public void setTaskDecorator(TaskDecorator taskDecorator) {
        this.interceptor.setTaskDecorator(taskDecorator);
    }

    /** Order of this post-processor and of its advisor. */
    @Override
    public void setOrder(int order) {
        super.setOrder(order);
        this.bulkheadAdvisor.setOrder(order);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof AopInfrastructureBean) {
            return super.postProcessAfterInitialization(bean, beanName);
        }
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        boolean eligible = isEligible(targetClass);
        if (eligible) {
            this.bulkheadAdvisor.validate(targetClass);
        }
        Class<?> proxyClass = BulkheadMethodInterceptor.annotatedClassOf(bean);
        if (proxyClass != targetClass && isEligible(proxyClass)) {
            // An interface proxy whose target implements only some of its interfaces (a Spring Data repository).
            this.bulkheadAdvisor.validate(proxyClass);
        }
        Object proxy;
        try {
            proxy = super.postProcessAfterInitialization(bean, beanName);
        }
        catch (AopConfigException ex) {
            if (eligible && Modifier.isFinal(targetClass.getModifiers())) {
                throw finalClass(targetClass, ex);
            }
            throw ex;
        }
        if (eligible && AopUtils.isCglibProxy(proxy)) {
            this.bulkheadAdvisor.validateClassProxy(targetClass);
        }
        return proxy;
    }

    /**
     * A class-based proxy was chosen for a final class (a record, a Kotlin class that is not open), which CGLIB cannot
     * subclass: says so naming the annotation, where Spring's own message would not. (When a final class is proxied
     * through its interfaces with a JDK proxy, nothing fails and nothing is said.)
     */
    private static IllegalStateException finalClass(Class<?> targetClass, AopConfigException cause) {
        List<Method> annotated = BulkheadNameResolver.annotatedMethods(targetClass);
        String problem = targetClass.getName() + " is final (a record, or a Kotlin class that is not open) and a "
                + "class-based (CGLIB) proxy cannot subclass a final class, so its calls would not be bounded; remove "
                + "final (in Kotlin: make the class open), call the bean through an interface it implements with "
                + "interface-based proxies (spring.aop.proxy-target-class=false), or remove the annotation";
        IllegalStateException failure = annotated.isEmpty()
                ? new IllegalStateException("Invalid @Bulkhead on " + targetClass.getName() + ": " + problem)
                : AnnotatedMethods.invalid(annotated.get(0), targetClass, problem);
        failure.initCause(cause);
        return failure;
    }
}
