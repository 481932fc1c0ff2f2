package io.github.loombulkhead.sample.launch;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import io.github.loombulkhead.sample.SampleProperties;
import io.github.loombulkhead.sample.measure.NativeMemoryTracking;

import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Makes sure the comparison's caller runs with {@code -XX:NativeMemoryTracking=summary}, which a JVM cannot
 * switch on once started: when a comparison is requested without it, starts the same command again with the
 * option (output and input inherited), waits for it and exits with its exit code. Registered by
 * {@code main} only, so tests and embedding applications are never restarted.
 */
public class NativeMemoryTrackingRelauncher implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {

    /** System property set on the restarted JVM so it never restarts again. */
    static final String RELAUNCHED = "loom.sample.relaunched";

    @Override
    public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
        ConfigurableEnvironment environment = event.getEnvironment();
        boolean compare = SampleProperties.RUN_COMPARE.equals(environment.getProperty("loom.sample.run"))
                && !"callee".equalsIgnoreCase(environment.getProperty("loom.sample.role", "caller"));
        if (Boolean.getBoolean(RELAUNCHED)) {
            return;
        }
        if (!compare || NativeMemoryTracking.isEnabledInThisJvm()) {
            return;
        }
        // The restarted JVM ends (running its shutdown hooks) should this one be killed: see JvmCommand.application.
        List<String> jvmArguments = new ArrayList<>(JvmCommand.currentJvmArguments());
        jvmArguments.add("-XX:NativeMemoryTracking=summary");
        jvmArguments.add("-D" + RELAUNCHED + "=true");
        List<String> command = JvmCommand.application(jvmArguments, List.of(event.getArgs()));
        System.out.println("Restarting with -XX:NativeMemoryTracking=summary to measure native thread-stack memory");
        int exitCode = runToEnd(command);
        if (exitCode == 1) {
            System.err.println("The JVM restarted with -XX:NativeMemoryTracking=summary exited with code " + exitCode
                    + ". If it could not start (an option it inherited, such as an agent's port, was taken), start "
                    + "the sample with -XX:NativeMemoryTracking=summary yourself: it then runs in this JVM.");
        }
        System.exit(exitCode);
    }

    private static int runToEnd(List<String> command) {
        Process process;
        try {
            process = new ProcessBuilder(command).inheritIO().start();
        }
        catch (IOException ex) {
            System.err.println("Could not restart with native memory tracking (" + ex.getMessage()
                    + "); start the JVM with -XX:NativeMemoryTracking=summary yourself.");
            return 1;
        }
        Thread stopper = new Thread(process::destroy, "loom-sample-relaunch-stopper");
        Runtime.getRuntime().addShutdownHook(stopper);
        try {
            return process.waitFor();
        }
        catch (InterruptedException ex) {
            process.destroy();
            Thread.currentThread().interrupt();
            return 130;
        }
    }
}
