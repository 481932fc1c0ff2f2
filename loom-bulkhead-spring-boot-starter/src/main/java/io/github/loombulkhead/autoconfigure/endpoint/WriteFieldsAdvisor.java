package io.github.loombulkhead.autoconfigure.endpoint;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;

/**
 * Refuses a write to {@code /actuator/bulkheads} that carries a key the write does not take, instead of letting the
 * web layer drop it: {@code maxWaitDuraton} next to a valid {@code maxConcurrentCalls} would otherwise change the
 * limit and silently leave the wait as it was. A field of a read's answer ({@code limit}, {@code config}, ...) is
 * named as read-only, with the field that changes it.
 */
final class WriteFieldsAdvisor implements OperationInvokerAdvisor {

    private static final EndpointId ENDPOINT = EndpointId.of(BulkheadsEndpoint.ID);

    private static final Set<String> READ_ONLY = Arrays
        .stream(BulkheadsEndpoint.BulkheadDescriptor.class.getRecordComponents())
        .map(RecordComponent::getName)
        .collect(Collectors.toUnmodifiableSet());

    @Override
    public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
            OperationInvoker invoker) {
        if (!ENDPOINT.equals(endpointId) || operationType != OperationType.WRITE) {
            return invoker;
        }
        Set<String> keys = parameters.stream().map(OperationParameter::getName).collect(Collectors.toSet());
        return (context) -> {
            List<String> unknown = new ArrayList<>();
            List<String> readOnly = new ArrayList<>();
            for (String key : new TreeSet<>(context.getArguments().keySet())) {
                if (!keys.contains(key)) {
                    (READ_ONLY.contains(key) ? readOnly : unknown).add("'" + key + "'");
                }
            }
            if (!unknown.isEmpty() || !readOnly.isEmpty()) {
                throw refused(unknown, readOnly);
            }
            return invoker.invoke(context);
        };
    }

    private static InvalidEndpointRequestException refused(List<String> unknown, List<String> readOnly) {
        List<String> reasons = new ArrayList<>();
        if (!unknown.isEmpty()) {
            reasons.add("unknown " + ((unknown.size() == 1) ? "field " : "fields ") + String.join(", ", unknown));
        }
        if (!readOnly.isEmpty()) {
            reasons.add("read-only " + ((readOnly.size() == 1) ? "field " : "fields ") + String.join(", ", readOnly)
                    + " (of a read's answer; maxConcurrentCalls sets the limit of a static bulkhead and the ceiling "
                    + "of an adaptive one)");
        }
        String message = "A write changes maxConcurrentCalls and/or maxWaitDuration but the request has "
                + String.join(" and ", reasons) + "; send only the fields to change; nothing changed";
        return new InvalidEndpointRequestException(message, message);
    }
}
