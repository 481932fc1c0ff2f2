package io.github.loombulkhead.annotation;

import java.util.concurrent.ThreadFactory;

import io.github.loombulkhead.BulkheadRegistry;

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
        Object proxy = super.postProcessAfterInitialization(bean, beanName);
        if (eligible && AopUtils.isCglibProxy(proxy)) {
            this.bulkheadAdvisor.validateClassProxy(targetClass);
        }
        return proxy;
    }
}
