package io.github.loombulkhead.redis;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * For a native image: the Lua scripts that {@link LeaseScript} reads from the class path, next to it, when the first
 * cluster bulkhead is created. Registered in {@code META-INF/spring/aot.factories}.
 */
class LeaseScriptRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        hints.resources().registerPattern(LeaseScript.class.getPackageName().replace('.', '/') + "/*.lua");
    }
}
