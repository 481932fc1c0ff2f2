package io.github.loombulkhead.autoconfigure.server;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.web.servlet.AbstractFilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletContextInitializer;
import org.springframework.boot.web.servlet.ServletContextInitializerBeans;
import org.springframework.core.Ordered;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Warns at startup of the application's filters that come after the server bulkhead's and would not see a request
 * that waited for a permit: that request continues in an {@code ASYNC} dispatch, which such a filter is not mapped
 * for or skips. A plain {@code @Bean Filter} without an order lands there, and if it checks credentials, requests
 * that waited (under load) pass unchecked. Reads the filters as Spring Boot registers them.
 */
final class FiltersAfterBulkheadReporter implements SmartInitializingSingleton {

    /** The {@code OncePerRequestFilter} method, called reflectively, telling whether a filter skips a waited request. */
    static final String SKIPS_ASYNC_DISPATCH = "shouldNotFilterAsyncDispatch";

    private static final Log logger = LogFactory.getLog(FiltersAfterBulkheadReporter.class);

    private final ListableBeanFactory beanFactory;

    FiltersAfterBulkheadReporter(ListableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public void afterSingletonsInstantiated() {
        try {
            report();
        }
        catch (RuntimeException ex) {
            // Only a warning: never a reason not to start.
            logger.debug("Could not check the filters after the server bulkhead's", ex);
        }
    }

    private void report() {
        // In the order Spring Boot registers them, which is the order they run in (registration beans before plain
        // filter beans of the same order).
        List<String> unseen = new ArrayList<>();
        Integer bulkheadOrder = null;
        for (ServletContextInitializer initializer : new ServletContextInitializerBeans(this.beanFactory)) {
            if (!(initializer instanceof AbstractFilterRegistrationBean<?> filter) || !filter.isEnabled()) {
                continue;
            }
            if (filter.getFilter() instanceof ServerBulkheadFilter) {
                bulkheadOrder = filter.getOrder();
            }
            else if (bulkheadOrder != null && !runsInAsyncDispatches(filter)) {
                unseen.add(filter.getFilterName() + " (order " + describe(filter.getOrder()) + ")");
            }
        }
        if (!unseen.isEmpty()) {
            logger.warn("Filters " + unseen + " come after the server bulkhead's filter (order " + describe(bulkheadOrder)
                    + ") and do not run for a request that waited for a permit: it continues in an ASYNC dispatch, "
                    + "which they are not mapped for or skip. Under load, such requests reach the controller without "
                    + "them. Give a filter that must see every request a lower order (@Order on its class, or "
                    + "setOrder on its FilterRegistrationBean), e.g. 0.");
        }
    }

    /** Whether the filter is mapped for {@code ASYNC} dispatches and does not skip them. */
    private static boolean runsInAsyncDispatches(AbstractFilterRegistrationBean<?> registration) {
        if (!registration.determineDispatcherTypes().contains(DispatcherType.ASYNC)) {
            return false;
        }
        Filter filter = registration.getFilter();
        if (filter instanceof OncePerRequestFilter) {
            Method skips = ReflectionUtils.findMethod(filter.getClass(), SKIPS_ASYNC_DISPATCH);
            if (skips == null) {
                return false;
            }
            ReflectionUtils.makeAccessible(skips);
            return Boolean.FALSE.equals(ReflectionUtils.invokeMethod(skips, filter));
        }
        return true;
    }

    private static String describe(int order) {
        return (order == Ordered.LOWEST_PRECEDENCE) ? "LOWEST_PRECEDENCE, none of its own"
                : (order > Ordered.LOWEST_PRECEDENCE - 1000) ? "LOWEST_PRECEDENCE - " + (Ordered.LOWEST_PRECEDENCE - order)
                        : Integer.toString(order);
    }
}
