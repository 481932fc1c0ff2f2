package io.github.loombulkhead.sample.launch;

import java.lang.management.ManagementFactory;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;

import io.github.loombulkhead.sample.LoomBulkheadSampleApplication;
import org.jspecify.annotations.Nullable;

/**
 * Command lines that start this application again with the very same {@code java} binary and class path,
 * whether it runs from the executable jar, from {@code spring-boot:run}, from an IDE or from a test.
 */
public final class JvmCommand {

    private static final String NESTED_JAR = "jar:nested:";

    private JvmCommand() {
    }

    /** The {@code java} binary running this JVM. */
    public static String javaExecutable() {
        return ProcessHandle.current()
            .info()
            .command()
            .orElseGet(() -> System.getProperty("java.home") + "/bin/java");
    }

    /**
     * A command that starts this application: {@code java <jvmArguments> -jar app.jar <arguments>} from the
     * executable jar, otherwise {@code java <jvmArguments> -cp <class path> <main class> <arguments>}. The JVM it
     * starts ends when this one does ({@link ExitWithParent}).
     */
    public static List<String> application(List<String> jvmArguments, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(exitingWithThisJvm(jvmArguments));
        String jar = executableJar();
        if (jar != null) {
            command.add("-jar");
            command.add(jar);
        }
        else {
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(LoomBulkheadSampleApplication.class.getName());
        }
        command.addAll(arguments);
        return command;
    }

    /**
     * The options this JVM was started with, without those that open a port (a debugger agent, remote JMX: the
     * port would clash) and without the parent process this JVM watches.
     */
    public static List<String> currentJvmArguments() {
        return reusable(ManagementFactory.getRuntimeMXBean().getInputArguments());
    }

    /** {@code jvmArguments} without those a second JVM must not repeat; see {@link #currentJvmArguments()}. */
    static List<String> reusable(List<String> jvmArguments) {
        return jvmArguments.stream()
            .filter((argument) -> !argument.startsWith("-agentlib:jdwp") && !argument.startsWith("-Xrunjdwp")
                    && !argument.startsWith("-Dcom.sun.management.jmxremote.port=")
                    && !argument.startsWith("-Dcom.sun.management.jmxremote.rmi.port=")
                    && !argument.startsWith("-D" + ExitWithParent.PROPERTY + "="))
            .toList();
    }

    /** {@code jvmArguments} and the option that makes the child JVM end when this one does. */
    static List<String> exitingWithThisJvm(List<String> jvmArguments) {
        List<String> all = new ArrayList<>(jvmArguments);
        all.removeIf((argument) -> argument.startsWith("-D" + ExitWithParent.PROPERTY + "="));
        all.add("-D" + ExitWithParent.PROPERTY + "=" + ProcessHandle.current().pid());
        return all;
    }

    private static @Nullable String executableJar() {
        CodeSource source = LoomBulkheadSampleApplication.class.getProtectionDomain().getCodeSource();
        String location = (source != null && source.getLocation() != null) ? source.getLocation().toString() : "";
        if (!location.startsWith(NESTED_JAR)) {
            return null;
        }
        return jarPath(location);
    }

    /** The file path of the jar in a nested-jar location such as {@code jar:nested:/a%20b/app.jar/!BOOT-INF/...}. */
    static String jarPath(String location) {
        String path = location.substring(NESTED_JAR.length());
        int end = path.indexOf("/!");
        // Percent-decoding only: a '+' in a URL path is a plus, not a space as in a form.
        String encoded = (end >= 0) ? path.substring(0, end) : path;
        return URLDecoder.decode(encoded.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
