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
     * executable jar, otherwise {@code java <jvmArguments> -cp <class path> <main class> <arguments>}.
     */
    public static List<String> application(List<String> jvmArguments, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(jvmArguments);
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

    /** The options this JVM was started with, without a debugger agent (its port would clash). */
    public static List<String> currentJvmArguments() {
        return ManagementFactory.getRuntimeMXBean()
            .getInputArguments()
            .stream()
            .filter((argument) -> !argument.startsWith("-agentlib:jdwp") && !argument.startsWith("-Xrunjdwp"))
            .toList();
    }

    private static @Nullable String executableJar() {
        CodeSource source = LoomBulkheadSampleApplication.class.getProtectionDomain().getCodeSource();
        String location = (source != null && source.getLocation() != null) ? source.getLocation().toString() : "";
        if (!location.startsWith(NESTED_JAR)) {
            return null;
        }
        String path = location.substring(NESTED_JAR.length());
        int end = path.indexOf("/!");
        return URLDecoder.decode((end >= 0) ? path.substring(0, end) : path, StandardCharsets.UTF_8);
    }
}
