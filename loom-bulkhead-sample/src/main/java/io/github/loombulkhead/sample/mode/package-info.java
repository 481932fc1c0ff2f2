/**
 * One {@link io.github.loombulkhead.sample.mode.ConcurrencyStrategy} per mode: the executor the calls are
 * submitted to and what each task does around its call.
 */
@NullMarked
package io.github.loombulkhead.sample.mode;

import org.jspecify.annotations.NullMarked;
