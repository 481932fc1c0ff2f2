package io.github.loombulkhead.annotation;

import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** The name lookup that the advice and the starter share follows the precedence rules stated on {@code @Bulkhead}. */
class BulkheadNameResolverTest {

    @Test
    void aMethodAnnotationWinsOverTheTypeAnnotation() throws Exception {
        assertThat(BulkheadNameResolver.resolve(method(TypeAndMethod.class, "own"), TypeAndMethod.class))
            .isEqualTo("method");
    }

    @Test
    void aTypeAnnotationNamesThePublicMethods() throws Exception {
        assertThat(BulkheadNameResolver.resolve(method(TypeAndMethod.class, "inherited"), TypeAndMethod.class))
            .isEqualTo("type");
    }

    @Test
    void aTypeAnnotationLeavesPackagePrivateMethodsAlone() throws Exception {
        assertThat(BulkheadNameResolver.resolve(method(TypeAndMethod.class, "internal"), TypeAndMethod.class))
            .isNull();
    }

    @Test
    void theImplementingClassWinsOverItsInterface() throws Exception {
        assertThat(BulkheadNameResolver.resolve(method(Implementation.class, "call"), Implementation.class))
            .isEqualTo("class");
    }

    @Test
    void eachOfTwoAnnotatedInterfacesNamesTheMethodsItDeclares() throws Exception {
        assertThat(BulkheadNameResolver.resolve(method(Gateway.class, "order"), Gateway.class)).isEqualTo("orders");
        assertThat(BulkheadNameResolver.resolve(method(Gateway.class, "pay"), Gateway.class)).isEqualTo("payments");
        // A method of the class's own: neither interface declares it, so the two names are a conflict.
        assertThatIllegalStateException()
            .isThrownBy(() -> BulkheadNameResolver.resolve(method(Gateway.class, "audit"), Gateway.class))
            .withMessageContaining("unrelated interfaces declare @Bulkhead with different names")
            .withMessageContaining("'orders'")
            .withMessageContaining("'payments'");
    }

    @Test
    void anUnannotatedMethodHasNoName() throws Exception {
        assertThat(BulkheadNameResolver.isAnnotated(method(Plain.class, "call"), Plain.class)).isFalse();
        assertThat(BulkheadNameResolver.resolve(method(Plain.class, "call"), Plain.class)).isNull();
    }

    @Test
    void aBlankNameIsRefusedWithTheMethodAndTheFix() throws Exception {
        assertThatIllegalStateException()
            .isThrownBy(() -> BulkheadNameResolver.resolve(method(Blank.class, "call"), Blank.class))
            .withMessageContaining("Invalid @Bulkhead on " + Blank.class.getName() + ".call()")
            .withMessageContaining("@Bulkhead(\"call\")");
    }

    @Test
    void annotatedMethodsAreThoseAProxyInterceptsAndTheAnnotationCovers() {
        assertThat(BulkheadNameResolver.annotatedMethods(TypeAndMethod.class)).extracting(Method::getName)
            .containsExactlyInAnyOrder("own", "inherited");
    }

    private static Method method(Class<?> type, String name) throws NoSuchMethodException {
        return type.getDeclaredMethod(name);
    }

    @Bulkhead("type")
    static class TypeAndMethod {

        @Bulkhead("method")
        public String own() {
            return "own";
        }

        public String inherited() {
            return "inherited";
        }

        String internal() {
            return "internal";
        }
    }

    interface Contract {

        @Bulkhead("interface")
        String call();
    }

    static class Implementation implements Contract {

        @Override
        @Bulkhead("class")
        public String call() {
            return "call";
        }
    }

    static class Plain {

        public String call() {
            return "call";
        }
    }

    static class Blank {

        @Bulkhead
        public String call() {
            return "call";
        }
    }

    @Bulkhead("orders")
    interface OrderApi {

        void order();
    }

    @Bulkhead("payments")
    interface PaymentApi {

        void pay();
    }

    static class Gateway implements OrderApi, PaymentApi {

        @Override
        public void order() {
        }

        @Override
        public void pay() {
        }

        public void audit() {
        }
    }
}
