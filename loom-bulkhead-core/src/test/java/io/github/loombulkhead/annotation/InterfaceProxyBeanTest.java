package io.github.loombulkhead.annotation;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Beans that are interface proxies whose target implements only part of the interface, as Spring Data makes its
 * repositories: {@code @Bulkhead} on the repository interface bounds the methods it inherits too, and is checked at
 * startup.
 */
class InterfaceProxyBeanTest {

    private final BulkheadRegistry registry = BulkheadRegistry.builder()
        .config("repo", BulkheadConfig.custom().maxConcurrentCalls(1).build())
        .build();

    @Test
    void aTypeLevelBulkheadBoundsInheritedAndDeclaredMethodsAndExistsFromStartup() {
        try (AnnotationConfigApplicationContext context = context(UserRepository.class)) {
            assertThat(this.registry.find("repo")).isPresent();
            io.github.loombulkhead.Bulkhead repo = this.registry.bulkhead("repo");
            UserRepository repository = context.getBean(UserRepository.class);
            assertThat(repository.findByName("a")).isEqualTo(1);
            assertThat(repository.count()).isEqualTo(1);
            assertThat(repo.getPermittedCount()).isEqualTo(2);
            assertThat(repo.getActiveCount()).isZero();
        }
    }

    @Test
    void aBadReturnTypeOnSuchAnInterfaceFailsStartup() {
        assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> context(BadRepository.class))
            .havingRootCause()
            .withMessageContaining("findLater");
    }

    @Test
    void aBadReturnTypeThatOnlyAGenericInterfaceBindsFailsStartupNotTheFirstCall() {
        // The proxy class's own method returns Object (erased); the interface method, as the call resolves it, Future.
        assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> context(GenericRepository.class))
            .havingRootCause()
            .withMessageContaining("findLater")
            .withMessageContaining("java.util.concurrent.Future is not supported");
    }

    @Test
    void anAnnotatedTargetBehindAProxyWithAnExtraInterfaceIsStillCheckedAtStartup() {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        BulkheadRegistry registry = this.registry;
        context.registerBean(BulkheadAnnotationBeanPostProcessor.class,
                () -> new BulkheadAnnotationBeanPostProcessor(registry));
        context.registerBean("introduced", BaseRepository.class, () -> {
            // An introduction: the proxy has an interface its (annotated) target does not implement.
            ProxyFactory factory = new ProxyFactory(new BadImplementation());
            factory.addInterface(Extra.class);
            factory.addAdvice((MethodInterceptor) (invocation) -> invocation.getMethod().getName().equals("extra")
                    ? "extra" : invocation.proceed());
            return (BaseRepository) factory.getProxy();
        });
        assertThatExceptionOfType(BeanCreationException.class).isThrownBy(context::refresh)
            .havingRootCause()
            .withMessageContaining("later");
        context.close();
    }

    private AnnotationConfigApplicationContext context(Class<? extends BaseRepository> repositoryInterface) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        BulkheadRegistry registry = this.registry;
        context.registerBean(BulkheadAnnotationBeanPostProcessor.class,
                () -> new BulkheadAnnotationBeanPostProcessor(registry));
        context.registerBean("repository", BaseRepository.class, () -> {
            // What Spring Data does: the target implements the base interface, an advice answers the rest.
            ProxyFactory factory = new ProxyFactory(new BaseImplementation(registry));
            factory.addInterface(repositoryInterface);
            factory.addAdvice((MethodInterceptor) (invocation) -> invocation.getMethod().getName().startsWith("find")
                    ? activeOf(registry) : invocation.proceed());
            return (BaseRepository) factory.getProxy();
        });
        try {
            context.refresh();
        }
        catch (RuntimeException ex) {
            context.close();
            throw ex;
        }
        return context;
    }

    private static Integer activeOf(BulkheadRegistry registry) {
        return registry.find("repo").map(io.github.loombulkhead.Bulkhead::getActiveCount).orElse(-1);
    }

    public interface BaseRepository {

        long count();
    }

    @Bulkhead("repo")
    public interface UserRepository extends BaseRepository {

        Integer findByName(String name);
    }

    @Bulkhead("repo")
    public interface BadRepository extends BaseRepository {

        java.util.concurrent.Future<Integer> findLater();
    }

    public interface Finder<R> {

        R findLater();
    }

    @Bulkhead("repo")
    public interface GenericRepository extends BaseRepository, Finder<java.util.concurrent.Future<Integer>> {
    }

    public interface Extra {

        String extra();
    }

    @Bulkhead("repo")
    public static class BadImplementation implements BaseRepository {

        @Override
        public long count() {
            return 0;
        }

        public java.util.concurrent.Future<Integer> later() {
            return java.util.concurrent.CompletableFuture.completedFuture(1);
        }
    }

    static final class BaseImplementation implements BaseRepository {

        private final BulkheadRegistry registry;

        private final AtomicInteger calls = new AtomicInteger();

        BaseImplementation(BulkheadRegistry registry) {
            this.registry = registry;
        }

        @Override
        public long count() {
            this.calls.incrementAndGet();
            return activeOf(this.registry);
        }
    }
}
