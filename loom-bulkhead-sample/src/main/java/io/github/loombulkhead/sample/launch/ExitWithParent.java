package io.github.loombulkhead.sample.launch;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.context.event.ApplicationStartingEvent;
import org.springframework.context.ApplicationListener;

/**
 * Ends a JVM the sample started (the callee, a front server, a replica, the JVM restarted with native memory tracking)
 * when the JVM that started it ends, also when that one was killed without running its shutdown hooks: the system
 * property {@value #PROPERTY} names the parent's pid (every {@link JvmCommand#application} command sets it).
 * Exiting runs this JVM's own shutdown hooks, so it closes its context and stops what it started in turn.
 * Registered by {@code main}.
 */
public class ExitWithParent implements ApplicationListener<ApplicationStartingEvent> {

    /** System property with the pid of the process whose end ends this JVM. */
    public static final String PROPERTY = "loom.sample.parent-pid";

    /** Exit code when the parent ended first, as after SIGINT. */
    static final int EXIT_CODE = 130;

    private static final Log logger = LogFactory.getLog(ExitWithParent.class);

    @Override
    public void onApplicationEvent(ApplicationStartingEvent event) {
        String pid = System.getProperty(PROPERTY);
        if (pid == null) {
            return;
        }
        long parentPid;
        try {
            parentPid = Long.parseLong(pid);
        }
        catch (NumberFormatException ex) {
            throw new IllegalArgumentException("-D" + PROPERTY + "=" + pid + " is not a process id; remove it or give "
                    + "the pid of the process whose end should end this one", ex);
        }
        ProcessHandle.of(parentPid)
            .ifPresentOrElse((parent) -> parent.onExit().thenRun(() -> exit(parentPid)), () -> exit(parentPid));
    }

    private static void exit(long parentPid) {
        logger.info("Process " + parentPid + " that started this one has ended; exiting");
        // Not on the thread that completed onExit: System.exit waits for shutdown hooks, which may wait for it.
        Thread.ofPlatform().name("loom-sample-exit-with-parent").start(() -> System.exit(EXIT_CODE));
    }
}
