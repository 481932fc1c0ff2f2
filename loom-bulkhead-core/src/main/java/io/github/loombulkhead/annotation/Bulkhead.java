package io.github.loombulkhead.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.core.annotation.AliasFor;

/**
 * Bounds concurrent calls of a method, or of every public instance method of a type (except
 * {@code equals}, {@code hashCode} and {@code toString}), with the named bulkhead
 * from the {@link io.github.loombulkhead.BulkheadRegistry}. Works on Spring beans and on HTTP
 * interface clients ({@code @HttpExchange} interfaces imported with {@code @ImportHttpServices}).
 *
 * <pre>{@code
 * @Bulkhead("callee")
 * @HttpExchange("/api/test")
 * interface TestClient {
 *     @GetExchange("/slow") String slow();
 * }
 * }</pre>
 *
 * <ul>
 * <li>A method annotation wins over a type annotation; an annotation on a class or its method wins
 * over one on an interface.</li>
 * <li>Synchronous methods: the caller parks (never pins) until a permit is free, at most the
 * bulkhead's {@code maxWaitDuration}, then gets a
 * {@link io.github.loombulkhead.BulkheadRejectedException}; the permit is released when the method
 * returns or throws. A method of an HTTP interface returning {@code InputStream} or
 * {@code InputStreamResource}, or a {@code ResponseEntity} of one (an exchange, or a default method
 * that returns an exchange's body), holds it until the caller closes that stream, as the exchange
 * goes on while the body is read.</li>
 * <li>Methods returning {@link java.util.concurrent.CompletionStage} or
 * {@link java.util.concurrent.CompletableFuture}: the caller gets a stage at once and never waits;
 * the method runs on a new virtual thread, once a permit is granted, and holds the permit until
 * its own stage completes. Called by code that holds a permit of the same bulkhead already, it runs at
 * once on the caller's thread under that permit (one permit per call chain).</li>
 * <li>Other {@link java.util.concurrent.Future} types, reactive types, Kotlin {@code Deferred} and
 * {@code Job}, and Kotlin suspend functions are refused when the proxy is created, because their
 * completion cannot be observed without blocking.</li>
 * </ul>
 * The name must not be blank; a name with no configuration of its own gets the registry's defaults.
 * <p>Ahead-of-time processing registers the annotated methods for reflective invocation, which the proxy's call of
 * the target uses in a native image (as for Spring's own {@code @ConcurrencyLimit}).
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface Bulkhead {

    /** Name of the bulkhead; alias for {@link #name()}. */
    @AliasFor("name")
    String value() default "";

    /** Name of the bulkhead; alias for {@link #value()}. */
    @AliasFor("value")
    String name() default "";
}
