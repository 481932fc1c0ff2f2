/**
 * Carries the submitter's context (MDC, context-propagation thread locals, TaskDecorator beans) into bulkhead tasks.
 */
package io.github.loombulkhead.autoconfigure.propagation;
