package io.github.loombulkhead.autoconfigure;

import java.util.List;

import io.github.loombulkhead.annotation.Bulkhead;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The starter sees the bulkhead names that the advice uses, by the same rules. */
class AnnotatedBulkheadsTest {

    @Test
    void aTypeNameThatEveryMethodOverridesIsNotInUse() {
        assertThat(AnnotatedBulkheads.of(List.of(EveryMethodOwnName.class))).containsExactly("method");
    }

    @Test
    void aTypeAnnotationNamesItsMethods() {
        assertThat(AnnotatedBulkheads.of(List.of(Bounded.class))).containsExactly("group");
    }

    @Test
    void aBlankNameNamesNothing() {
        assertThat(AnnotatedBulkheads.of(List.of(Blank.class))).isEmpty();
    }

    @Test
    void aTypeAnnotationCoversEveryMethod() {
        assertThat(AnnotatedBulkheads.coverEveryMethod(List.of(Bounded.class))).isTrue();
    }

    @Test
    void oneMethodWithoutAnnotationLeavesCallsUnbounded() {
        assertThat(AnnotatedBulkheads.coverEveryMethod(List.of(Bounded.class, Partly.class))).isFalse();
    }

    @Bulkhead("type")
    static class EveryMethodOwnName {

        @Bulkhead("method")
        public String call() {
            return "call";
        }
    }

    @Bulkhead("group")
    interface Bounded {

        String first();

        String second();
    }

    interface Partly {

        @Bulkhead("partly")
        String bounded();

        String unbounded();
    }

    interface Blank {

        @Bulkhead(" ")
        String call();
    }
}
