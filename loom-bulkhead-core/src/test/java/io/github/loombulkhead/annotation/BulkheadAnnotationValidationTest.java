package io.github.loombulkhead.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.reactivex.rxjava3.core.Single;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;
import org.springframework.web.service.registry.ImportHttpServices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Bad {@code @Bulkhead} declarations fail the application context while it starts, with a message that
 * names the method and the fix; no bad method is ever called.
 */
class BulkheadAnnotationValidationTest {

    @Test
    void aBlankNameFailsStartup() {
        assertStartupFails(BlankName.class, "Invalid @Bulkhead on " + BlankName.class.getName() + ".call()",
                "the bulkhead name is blank", "@Bulkhead(\"call\")");
    }

    @Test
    void differentValueAndNameFailStartup() {
        assertStartupFails(ConflictingAlias.class, "ConflictingAlias.call()",
                "value and name are aliases and must not differ", "[first]", "[second]");
    }

    @Test
    void aPlainFutureReturnTypeFailsStartup() {
        assertStartupFails(PlainFuture.class, "PlainFuture.call()", "java.util.concurrent.Future is not supported",
                "return CompletableFuture or CompletionStage");
    }

    @Test
    void aReactiveReturnTypeFailsStartup() {
        assertStartupFails(Reactive.class, "Reactive.call()", "reactive return type org.reactivestreams.Publisher");
    }

    @Test
    void aReactiveTypeThatIsNoPublisherFailsStartup() {
        // RxJava's Single is known to Spring's ReactiveAdapterRegistry, though it implements no Publisher.
        assertStartupFails(RxJavaSingle.class, "RxJavaSingle.call()",
                "reactive return type io.reactivex.rxjava3.core.Single");
    }

    @Test
    void aKotlinDeferredFailsStartupAlsoWithoutTheReactorBridge() {
        // kotlinx-coroutines-core alone (an MVC application in Kotlin): Spring's ReactiveAdapterRegistry knows no
        // Deferred, and the coroutine would run on, unbounded, after the permit went back.
        assertStartupFails(KotlinDeferred.class, "KotlinDeferred.call()",
                "Kotlin coroutine return type kotlinx.coroutines.Deferred is not supported");
        assertStartupFails(KotlinJob.class, "KotlinJob.call()",
                "Kotlin coroutine return type kotlinx.coroutines.Job is not supported");
    }

    @Test
    void aCompletableFutureSubclassFailsStartup() {
        assertStartupFails(FutureSubclass.class, "FutureSubclass.call()",
                "declare CompletableFuture or CompletionStage");
    }

    @Test
    void aBlankNameOnAPackagePrivateMethodFailsStartup() {
        assertStartupFails(PackagePrivateBlankName.class, "PackagePrivateBlankName.call()",
                "the bulkhead name is blank");
    }

    @Test
    void aPlainFutureOnAProtectedMethodFailsStartup() {
        assertStartupFails(ProtectedFuture.class, "ProtectedFuture.call()",
                "java.util.concurrent.Future is not supported");
    }

    @Test
    void aPrivateMethodFailsStartup() {
        assertStartupFails(PrivateMethod.class, "PrivateMethod.hidden()", "cannot intercept a private method");
    }

    @Test
    void aFinalMethodOfAClassBasedProxyFailsStartup() {
        assertStartupFails(FinalMethod.class, "FinalMethod.call()", "cannot intercept a final method",
                "remove final");
    }

    @Test
    void aFinalMethodUnderATypeAnnotationFailsStartup() {
        assertStartupFails(TypeWithFinalMethod.class, "TypeWithFinalMethod.last()",
                "cannot intercept a final method");
    }

    @Test
    void aFinalMethodInheritedFromABaseClassWithoutTheAnnotationDoesNotFailStartup() {
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        try (AnnotationConfigApplicationContext context = context(registry, TypeOnAFrameworkSubclass.class)) {
            TypeOnAFrameworkSubclass bean = context.getBean(TypeOnAFrameworkSubclass.class);
            bean.configure("ignored");
            bean.call();
            assertThat(registry.bulkhead("subclass").getCompletedCount()).as("only call() was bounded").isEqualTo(1);
        }
    }

    @Test
    void aFinalClassFailsStartupNamingTheAnnotation() {
        assertStartupFails(FinalClass.class, "Invalid @Bulkhead on ", "FinalClass.call()", "FinalClass is final",
                "a class-based (CGLIB) proxy cannot subclass a final class, so its calls would not be bounded",
                "remove final");
    }

    @Test
    void aRecordFailsStartupNamingTheAnnotation() {
        assertStartupFails(RecordBean.class, "RecordBean.call()", "RecordBean is final (a record",
                "cannot subclass a final class");
    }

    @Test
    void aFinalClassReachedThroughAnInterfaceProxyIsBounded() {
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        try (AnnotationConfigApplicationContext context = context(registry, FinalClassBehindInterface.class)) {
            assertThat(context.getBean(Greeter.class).greet()).isEqualTo("hello");
            assertThat(registry.bulkhead("final-greeter").getCompletedCount()).isEqualTo(1);
        }
    }

    @Test
    void aFinalMethodReachedThroughAnInterfaceProxyIsBounded() {
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        try (AnnotationConfigApplicationContext context = context(registry, FinalBehindInterface.class)) {
            assertThat(context.getBean(Greeter.class).greet()).isEqualTo("hello");
            assertThat(registry.bulkhead("greeter").getCompletedCount()).isEqualTo(1);
        }
    }

    @Test
    void unrelatedInterfacesWithDifferentNamesFailStartup() {
        assertStartupFails(TwoInterfaces.class, "TwoInterfaces.call()", "unrelated interfaces",
                "'left'", "'right'", "annotate the implementing class or method");
    }

    @Test
    void aDirectAndAComposedAnnotationWithDifferentNamesFailStartup() {
        assertStartupFails(DirectAndComposed.class, "DirectAndComposed.call()", "more than one @Bulkhead",
                "[direct, composed]");
    }

    @Test
    void aTypeAnnotationWithAnUnsupportedPublicMethodFailsStartup() {
        assertStartupFails(TypeWithFuture.class, "TypeWithFuture.future()", "java.util.concurrent.FutureTask");
    }

    @Test
    void aConfigThatCannotBeResolvedFailsStartup() {
        BulkheadRegistry registry = BulkheadRegistry.builder().configResolver((name) -> {
            if (name.equals("misconfigured")) {
                return BulkheadConfig.custom().maxConcurrentCalls(0).build();
            }
            return null;
        }).build();
        assertStartupFails(registry, Misconfigured.class, "Misconfigured.call()",
                "bulkhead 'misconfigured' could not be created", "maxConcurrentCalls must be at least 1 but was 0");
    }

    @Test
    void aBlankNameOnAnHttpInterfaceFailsStartup() {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.registerBean(BulkheadRegistry.class, BulkheadRegistry::ofDefaults);
        context.registerBean(BulkheadAnnotationBeanPostProcessor.class,
                () -> new BulkheadAnnotationBeanPostProcessor(context.getBean(BulkheadRegistry.class)));
        context.registerBean(RestClientHttpServiceGroupConfigurer.class, () -> (groups) -> groups
            .forEachClient((group, builder) -> builder.baseUrl("http://127.0.0.1:9")));
        context.register(BlankHttpInterfaceConfig.class);

        assertThatExceptionOfType(BeanCreationException.class).isThrownBy(context::refresh)
            .withStackTraceContaining("Invalid @Bulkhead on " + BlankHttpClient.class.getName() + ".get()")
            .withStackTraceContaining("the bulkhead name is blank");
    }

    @Test
    void validDeclarationsStartAndCreateTheirBulkheadsEagerly() {
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        try (AnnotationConfigApplicationContext context = context(registry, TypeWithPrivateFuture.class,
                SameValueAndName.class, InheritingFromBothInterfaces.class)) {
            assertThat(registry.find("type")).isPresent();
            assertThat(registry.find("same")).isPresent();
            assertThat(registry.find("own")).isPresent();
            assertThat(registry.find("left")).isEmpty();
            assertThat(context.getBean(TypeWithPrivateFuture.class).call()).isEqualTo("ok");
            assertThat(registry.bulkhead("type").getCompletedCount()).isEqualTo(1);
        }
    }

    private static void assertStartupFails(Class<?> beanClass, String... messageParts) {
        assertStartupFails(BulkheadRegistry.ofDefaults(), beanClass, messageParts);
    }

    private static void assertStartupFails(BulkheadRegistry registry, Class<?> beanClass, String... messageParts) {
        var failure = assertThatExceptionOfType(BeanCreationException.class)
            .isThrownBy(() -> context(registry, beanClass).close());
        failure.withMessageContaining("Error creating bean with name '" + beanClass.getName() + "'");
        for (String part : messageParts) {
            failure.withMessageContaining(part);
        }
        assertThat(Invocations.COUNT.get()).as("no method ran").isZero();
    }

    private static AnnotationConfigApplicationContext context(BulkheadRegistry registry, Class<?>... beanClasses) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.registerBean(BulkheadAnnotationBeanPostProcessor.class,
                () -> new BulkheadAnnotationBeanPostProcessor(registry));
        for (Class<?> beanClass : beanClasses) {
            context.registerBean(beanClass.getName(), beanClass);
        }
        context.refresh();
        return context;
    }

    static final class Invocations {

        static final java.util.concurrent.atomic.AtomicInteger COUNT = new java.util.concurrent.atomic.AtomicInteger();

        private Invocations() {
        }
    }

    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @Bulkhead("composed")
    @interface ComposedBulkhead {
    }

    static class BlankName {

        @Bulkhead
        public void call() {
            Invocations.COUNT.incrementAndGet();
        }
    }

    static class PackagePrivateBlankName {

        @Bulkhead(" ")
        void call() {
            Invocations.COUNT.incrementAndGet();
        }
    }

    static class ProtectedFuture {

        @Bulkhead("protected-future")
        protected Future<String> call() {
            Invocations.COUNT.incrementAndGet();
            return CompletableFuture.completedFuture("never");
        }
    }

    static class ConflictingAlias {

        @Bulkhead(value = "first", name = "second")
        public void call() {
            Invocations.COUNT.incrementAndGet();
        }
    }

    static class PlainFuture {

        @Bulkhead("plain-future")
        public Future<String> call() {
            Invocations.COUNT.incrementAndGet();
            return CompletableFuture.completedFuture("never");
        }
    }

    static class Reactive {

        @Bulkhead("reactive")
        public Publisher<String> call() {
            Invocations.COUNT.incrementAndGet();
            return (subscriber) -> {
            };
        }
    }

    static class KotlinDeferred {

        @Bulkhead("kotlin")
        public kotlinx.coroutines.Deferred<String> call() {
            Invocations.COUNT.incrementAndGet();
            return null;
        }
    }

    static class KotlinJob {

        @Bulkhead("kotlin")
        public kotlinx.coroutines.Job call() {
            Invocations.COUNT.incrementAndGet();
            return null;
        }
    }

    static class RxJavaSingle {

        @Bulkhead("reactive")
        public Single<String> call() {
            Invocations.COUNT.incrementAndGet();
            return Single.just("never bounded");
        }
    }

    static class MyFuture<T> extends CompletableFuture<T> {
    }

    static class FutureSubclass {

        @Bulkhead("subclass")
        public MyFuture<String> call() {
            Invocations.COUNT.incrementAndGet();
            return new MyFuture<>();
        }
    }

    static class PrivateMethod {

        public void call() {
            hidden();
        }

        @Bulkhead("private")
        private void hidden() {
            Invocations.COUNT.incrementAndGet();
        }
    }

    static class FinalMethod {

        @Bulkhead("final")
        public final void call() {
            Invocations.COUNT.incrementAndGet();
        }
    }

    @Bulkhead("type")
    static class TypeWithFinalMethod {

        public void call() {
            Invocations.COUNT.incrementAndGet();
        }

        public final void last() {
            Invocations.COUNT.incrementAndGet();
        }
    }

    /** Like a framework's support class: public final methods, no {@code @Bulkhead}. */
    static class FrameworkSupport {

        public final void configure(String setting) {
        }
    }

    @Bulkhead("subclass")
    static class TypeOnAFrameworkSubclass extends FrameworkSupport {

        public void call() {
        }
    }

    interface Greeter {

        String greet();
    }

    static final class FinalClass {

        @Bulkhead("final-class")
        public void call() {
            Invocations.COUNT.incrementAndGet();
        }
    }

    record RecordBean() {

        @Bulkhead("record")
        public void call() {
            Invocations.COUNT.incrementAndGet();
        }
    }

    static final class FinalClassBehindInterface implements Greeter {

        @Override
        @Bulkhead("final-greeter")
        public String greet() {
            return "hello";
        }
    }

    static class FinalBehindInterface implements Greeter {

        @Override
        @Bulkhead("greeter")
        public final String greet() {
            return "hello";
        }
    }

    interface Left {

        @Bulkhead("left")
        void call();
    }

    interface Right {

        @Bulkhead("right")
        void call();
    }

    static class TwoInterfaces implements Left, Right {

        @Override
        public void call() {
            Invocations.COUNT.incrementAndGet();
        }
    }

    static class InheritingFromBothInterfaces implements Left, Right {

        @Override
        @Bulkhead("own")
        public void call() {
        }
    }

    static class DirectAndComposed {

        @Bulkhead("direct")
        @ComposedBulkhead
        public void call() {
            Invocations.COUNT.incrementAndGet();
        }
    }

    @Bulkhead("type")
    static class TypeWithFuture {

        public String call() {
            return "ok";
        }

        public FutureTask<String> future() {
            Invocations.COUNT.incrementAndGet();
            return new FutureTask<>(() -> "never");
        }
    }

    @Bulkhead("type")
    static class TypeWithPrivateFuture {

        public String call() {
            return "ok";
        }

        @SuppressWarnings("unused")
        private Future<String> helper() {
            return CompletableFuture.completedFuture("private methods are not covered by a type annotation");
        }
    }

    static class SameValueAndName {

        @Bulkhead(value = "same", name = "same")
        public void call() {
        }
    }

    static class Misconfigured {

        @Bulkhead("misconfigured")
        public void call() {
            Invocations.COUNT.incrementAndGet();
        }
    }

    @HttpExchange
    interface BlankHttpClient {

        @Bulkhead(" ")
        @GetExchange("/get")
        String get();
    }

    @ImportHttpServices(group = "blank", types = BlankHttpClient.class)
    static class BlankHttpInterfaceConfig {
    }
}
