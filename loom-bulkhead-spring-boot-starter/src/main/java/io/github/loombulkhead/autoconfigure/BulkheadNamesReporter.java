package io.github.loombulkhead.autoconfigure;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.task.BoundedVirtualTaskExecutor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.util.ClassUtils;

/**
 * Warns when bulkhead names in configuration and in code do not match: at startup, an entry under {@code loom.bulkhead.instances} that no
 * {@code @Bulkhead}, HTTP group, per-host client or executor refers to; and, whenever a bulkhead is created, one
 * without an entry of its own while a similarly named entry exists (a name with dots written without brackets,
 * another case, an environment variable's form), and entries that Spring Boot binds as one although they are spelled
 * differently. An entry nothing refers to names the bulkhead in use it is probably a typo of.
 */
class BulkheadNamesReporter implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(BulkheadNamesReporter.class);

    private static final ConfigurationPropertyName INSTANCES = ConfigurationPropertyName.of("loom.bulkhead.instances");

    /** {@code <scheme>://<host>:<port>}, the rest of a per-host bulkhead's name after the prefix. */
    private static final Pattern HOST = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://.+:[0-9]+");

    private final LoomBulkheadProperties properties;

    private final BulkheadRegistry registry;

    private final ConfigurableListableBeanFactory beanFactory;

    private final Environment environment;

    BulkheadNamesReporter(LoomBulkheadProperties properties, BulkheadRegistry registry,
            ConfigurableListableBeanFactory beanFactory, Environment environment) {
        this.properties = properties;
        this.registry = registry;
        this.beanFactory = beanFactory;
        this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<Spelling> spellings = spellings();
        Set<String> configured = new LinkedHashSet<>(this.properties.getInstances().keySet());
        spellings.forEach((spelling) -> configured.add(spelling.name()));
        Set<String> referenced = referencedNames();
        Set<String> aliases = new HashSet<>();
        for (List<Spelling> entry : boundAsOne(spellings)) {
            Set<String> names = new TreeSet<>(entry.stream().map(Spelling::name).toList());
            if (names.stream().anyMatch(referenced::contains)) {
                // Spring Boot binds every spelling into the entry in use: none of them is unused.
                aliases.addAll(names);
            }
            Set<String> written = new TreeSet<>(entry.stream()
                .filter((spelling) -> !spelling.fromEnvironment())
                .map(Spelling::name)
                .toList());
            if (written.size() > 1) {
                // An environment variable can only spell the lower-case form: overriding a file's entry is its use.
                logger.warn(boundAsOneWarning(written));
            }
        }
        for (String name : configured) {
            if (!referenced.contains(name) && !isPerHost(name) && !aliases.contains(name)) {
                logger.warn(unused(name, similar(name, referenced), nearestTypo(name, referenced)));
            }
        }
        this.registry.forEachBulkhead((bulkhead) -> {
            if (!configured.contains(bulkhead.getName())) {
                List<String> similar = similar(bulkhead.getName(), configured);
                if (!similar.isEmpty()) {
                    logger.warn(withoutEntry(bulkhead.getName(), similar));
                }
            }
        });
    }

    private String unused(String name, List<String> similar, @Nullable String typo) {
        String hint = !similar.isEmpty()
                ? "Similar names in use: " + similar + "; to configure '" + similar.get(0) + "', "
                        + howToConfigure(similar.get(0))
                : (typo != null) ? "Did you mean '" + typo + "'? Its entry would be "
                        + BulkheadConfigMapper.instanceKey(typo) : "Check the name";
        return "Bulkhead '" + name + "' is configured (" + BulkheadConfigMapper.instanceKey(name) + ") but nothing "
                + "refers to it: no @Bulkhead, HTTP service group, per-host client, bounded executor bean or @Async "
                + "executor names it. " + hint + ". Ignore this if application code asks the BulkheadRegistry for '"
                + name + "' by name.";
    }

    private static String boundAsOneWarning(Set<String> spellings) {
        return "Entries " + spellings + " under loom.bulkhead.instances are one entry to Spring Boot's binding, which "
                + "compares names written without brackets ignoring case and dashes: each of these bulkheads gets the "
                + "settings written under all of them. To configure them apart, write the names in brackets ("
                + String.join(", ", spellings.stream().map((name) -> "loom.bulkhead.instances[" + name + "]").toList())
                + ").";
    }

    private String withoutEntry(String name, List<String> similar) {
        return "Bulkhead '" + name + "' has no entry under loom.bulkhead.instances and runs with "
                + (isPerHost(name) ? "loom.bulkhead.http.per-host.template" : "loom.bulkhead.defaults")
                + ", but similarly named entries exist: "
                + similar.stream().map(BulkheadConfigMapper::instanceKey).toList()
                + ". Names are matched exactly: " + howToConfigure(name) + ".";
    }

    private static String howToConfigure(String name) {
        return "write loom.bulkhead.instances[" + name + "].max-concurrent-calls (brackets keep dots and capitals; an "
                + "environment variable spells only lower-case letters and digits, so it configures a bulkhead named "
                + "so, or overrides an entry that a file writes without brackets)";
    }

    /**
     * One entry name as a property source spells it: an unbracketed {@code instances.my.service.max-concurrent-calls}
     * names the entry {@code my}; {@code uniform} is how Spring Boot compares it (a bracketed name as written, others
     * in lower case without dashes).
     */
    private record Spelling(String name, String uniform, boolean fromEnvironment) {
    }

    /** Every spelling of an entry name under {@code loom.bulkhead.instances} in the environment's property sources. */
    private List<Spelling> spellings() {
        List<Spelling> spellings = new ArrayList<>();
        int index = INSTANCES.getNumberOfElements();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                boolean environment = source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource;
                iterable.filter(INSTANCES::isAncestorOf)
                    .stream()
                    .filter((name) -> name.getNumberOfElements() > index)
                    .forEach((name) -> spellings.add(new Spelling(name.getElement(index, Form.ORIGINAL),
                            name.getElement(index, Form.UNIFORM), environment)));
            }
        }
        return spellings;
    }

    /**
     * Spellings that Spring Boot binds as one entry although they differ: names without brackets that differ only in
     * case and dashes ({@code Callee} and {@code callee}, {@code my-service} and an environment variable's
     * {@code myservice}). Spring Boot creates an entry for each spelling and binds every one from the properties of
     * all.
     */
    private static List<List<Spelling>> boundAsOne(List<Spelling> spellings) {
        Map<String, List<Spelling>> byUniform = new LinkedHashMap<>();
        spellings.forEach((spelling) -> byUniform.computeIfAbsent(spelling.uniform(), (key) -> new ArrayList<>())
            .add(spelling));
        return byUniform.values()
            .stream()
            .filter((entry) -> entry.stream().map(Spelling::name).distinct().count() > 1)
            .toList();
    }

    /** Names of bulkheads that the application's annotations, configuration and executor beans refer to. */
    private Set<String> referencedNames() {
        Set<String> names = new LinkedHashSet<>();
        List<Class<?>> types = new ArrayList<>();
        for (String bean : this.beanFactory.getBeanDefinitionNames()) {
            Class<?> type = this.beanFactory.getType(bean, false);
            if (type != null) {
                types.add(ClassUtils.getUserClass(type));
            }
        }
        names.addAll(AnnotatedBulkheads.of(types));
        this.properties.getHttp().getGroups().forEach((group, settings) -> {
            if (settings.isEnabled()) {
                names.add((settings.getBulkhead() != null) ? settings.getBulkhead() : group);
            }
        });
        if (this.properties.getTaskExecution().isEnabled()) {
            names.add(this.properties.getTaskExecution().getBulkhead());
        }
        if (this.properties.getServer().isEnabled()) {
            names.add(this.properties.getServer().getBulkhead());
            this.properties.getServer().getRoutes().forEach((route) -> names.add(route.getBulkhead()));
        }
        this.beanFactory.getBeansOfType(BoundedVirtualExecutor.class, false, false)
            .values()
            .forEach((executor) -> names.add(executor.getBulkhead().getName()));
        this.beanFactory.getBeansOfType(BoundedVirtualTaskExecutor.class, false, false)
            .values()
            .forEach((executor) -> names.add(executor.getExecutor().getBulkhead().getName()));
        return names;
    }

    /** Whether {@code name} is a per-host bulkhead's, created at the first call to that host. */
    private boolean isPerHost(String name) {
        LoomBulkheadProperties.PerHost perHost = this.properties.getHttp().getPerHost();
        return perHost.isEnabled() && name.startsWith(perHost.getNamePrefix())
                && HOST.matcher(name.substring(perHost.getNamePrefix().length())).matches();
    }

    /**
     * The names among {@code candidates} that Spring Boot's binding could have derived from {@code name} or
     * {@code name} from them: equal but for case and characters other than letters and digits ({@code my.service},
     * {@code my-service}, {@code MyService}, {@code MYSERVICE}), or equal to the part before the first dot, which is
     * what an unbracketed {@code instances.my.service.*} binds as.
     */
    private static List<String> similar(String name, Set<String> candidates) {
        List<String> similar = new ArrayList<>();
        String uniformName = PropertyKeys.uniform(name);
        String uniformFirstPart = PropertyKeys.uniform(firstPart(name));
        for (String candidate : candidates) {
            String uniform = PropertyKeys.uniform(candidate);
            if (!candidate.equals(name) && (uniform.equals(uniformName) || uniform.equals(uniformFirstPart)
                    || PropertyKeys.uniform(firstPart(candidate)).equals(uniformName))) {
                similar.add(candidate);
            }
        }
        return similar;
    }

    /**
     * The name among {@code candidates} that {@code name} is most likely a typo of, or {@code null}: one letter
     * missing, added, replaced or two swapped in a name of 4 to 7 letters, up to two such slips from 8 letters on.
     * Stricter than the key suggestions of {@link PropertyKeys}, because bulkhead names are the user's own and often
     * close by design: names under 4 letters ({@code db}, {@code dc}) and names that differ only in digits or in their
     * last dash-separated part ({@code orders-eu}, {@code orders-us}; {@code partner-a}, {@code partner-c}) are
     * taken as different names, not typos.
     */
    private static @Nullable String nearestTypo(String name, Set<String> candidates) {
        String nearest = null;
        int fewest = Integer.MAX_VALUE;
        String a = PropertyKeys.uniform(name);
        for (String candidate : new TreeSet<>(candidates)) {
            String b = PropertyKeys.uniform(candidate);
            int shorter = Math.min(a.length(), b.length());
            int allowed = (shorter < 4) ? 0 : (shorter < 8) ? 1 : 2;
            if (allowed == 0 || Math.abs(a.length() - b.length()) > allowed || isVariantOf(name, candidate)) {
                continue;
            }
            int edits = PropertyKeys.edits(a, b);
            if (edits <= allowed && edits < fewest) {
                nearest = candidate;
                fewest = edits;
            }
        }
        return nearest;
    }

    /** Whether two names differ only in digits or only in their last dash-separated part. */
    private static boolean isVariantOf(String a, String b) {
        if (a.replaceAll("[0-9]", "").equals(b.replaceAll("[0-9]", ""))) {
            return true;
        }
        int dashA = a.lastIndexOf('-');
        int dashB = b.lastIndexOf('-');
        return dashA > 0 && dashB > 0 && a.substring(0, dashA).equals(b.substring(0, dashB));
    }

    private static String firstPart(String name) {
        int dot = name.indexOf('.');
        return (dot > 0) ? name.substring(0, dot) : name;
    }
}
