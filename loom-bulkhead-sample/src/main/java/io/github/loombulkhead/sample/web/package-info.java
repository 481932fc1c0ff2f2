/**
 * The caller as a web application: the reference's endpoints and one per mode, each running the mode once
 * against the callee and answering with its measurements.
 */
@NullMarked
package io.github.loombulkhead.sample.web;

import org.jspecify.annotations.NullMarked;
