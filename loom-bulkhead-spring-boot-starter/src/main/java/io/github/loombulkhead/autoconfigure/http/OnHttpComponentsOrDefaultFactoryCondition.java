package io.github.loombulkhead.autoconfigure.http;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientsProperties.Factory;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code spring.http.clients.imperative.factory} is unset or chooses Apache HttpClient 5, read with
 * Spring Boot's own enum binding so every form it accepts counts ({@code http-components},
 * {@code HTTP_COMPONENTS} from an environment variable, {@code httpComponents}).
 */
class OnHttpComponentsOrDefaultFactoryCondition extends SpringBootCondition {

    static final String PROPERTY = "spring.http.clients.imperative.factory";

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        String other = otherFactory(context.getEnvironment());
        return (other != null) ? ConditionOutcome.noMatch(PROPERTY + " chooses " + other)
                : ConditionOutcome.match(PROPERTY + " is unset or chooses HttpClient 5");
    }

    /**
     * The value of {@code spring.http.clients.imperative.factory} as written when it chooses another client than
     * HttpClient 5 (or cannot be bound), otherwise {@code null}.
     */
    static String otherFactory(Environment environment) {
        try {
            Factory factory = Binder.get(environment).bind(PROPERTY, Factory.class).orElse(null);
            return (factory == null || factory == Factory.HTTP_COMPONENTS) ? null : environment.getProperty(PROPERTY);
        }
        catch (BindException ex) {
            // Spring Boot reports the bad value when it binds its own properties.
            return environment.getProperty(PROPERTY);
        }
    }
}
