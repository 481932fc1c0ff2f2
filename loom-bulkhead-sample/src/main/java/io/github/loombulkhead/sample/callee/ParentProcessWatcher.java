package io.github.loombulkhead.sample.callee;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Ends a callee started by a caller when that caller's process ends, so a caller killed without running its
 * shutdown hooks leaves no callee behind.
 */
class ParentProcessWatcher implements ApplicationListener<ApplicationReadyEvent> {

    private static final Log logger = LogFactory.getLog(ParentProcessWatcher.class);

    private final long parentPid;

    ParentProcessWatcher(long parentPid) {
        this.parentPid = parentPid;
    }

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        ConfigurableApplicationContext context = event.getApplicationContext();
        ProcessHandle.of(this.parentPid).ifPresentOrElse((parent) -> parent.onExit().thenRun(() -> exit(context)),
                () -> exit(context));
    }

    private void exit(ConfigurableApplicationContext context) {
        logger.info("Caller process " + this.parentPid + " has ended; stopping the callee");
        System.exit(SpringApplication.exit(context));
    }
}
