package io.github.loombulkhead.redis;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/** A native image has the Lua scripts of the cluster bulkheads, and only them. */
class LeaseScriptRuntimeHintsTest {

    @Test
    void registeredForAheadOfTimeProcessing() {
        assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
            .load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(LeaseScriptRuntimeHints.class);
    }

    @Test
    void everyScriptThatLeaseScriptReadsIsIncluded() {
        RuntimeHints hints = new RuntimeHints();
        new LeaseScriptRuntimeHints().registerHints(hints, getClass().getClassLoader());
        for (LeaseScript script : new LeaseScript[] { LeaseScript.SYNC, LeaseScript.INIT, LeaseScript.CHANGE_LIMIT }) {
            assertThat(RuntimeHintsPredicates.resource().forResource("io/github/loombulkhead/redis/" + script.name()))
                .accepts(hints);
        }
        // The functions that SYNC and INIT start with.
        assertThat(RuntimeHintsPredicates.resource().forResource("io/github/loombulkhead/redis/lease-keys.lua"))
            .accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("io/github/loombulkhead/redis/LeaseScript.class"))
            .rejects(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("io/github/loombulkhead/sync.lua")).rejects(hints);
    }
}
