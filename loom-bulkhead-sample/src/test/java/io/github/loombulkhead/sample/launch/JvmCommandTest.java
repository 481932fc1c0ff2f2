package io.github.loombulkhead.sample.launch;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The command lines that start the sample again: the jar's path and the options a second JVM may repeat. */
class JvmCommandTest {

    @Test
    void aPlusInTheJarsPathStaysAPlusAndEscapesAreDecoded() {
        assertThat(JvmCommand.jarPath("jar:nested:/tmp/c++/my%20app.jar/!BOOT-INF/classes/!/"))
            .isEqualTo("/tmp/c++/my app.jar");
        assertThat(JvmCommand.jarPath("jar:nested:/opt/app.jar")).isEqualTo("/opt/app.jar");
    }

    @Test
    void optionsThatOpenAPortOrNameAParentAreNotRepeated() {
        assertThat(JvmCommand.reusable(List.of("-Xmx1g", "-agentlib:jdwp=transport=dt_socket,server=y,address=5005",
                "-Dcom.sun.management.jmxremote", "-Dcom.sun.management.jmxremote.port=39123",
                "-Dcom.sun.management.jmxremote.rmi.port=39124", "-Dcom.sun.management.jmxremote.authenticate=false",
                "-D" + ExitWithParent.PROPERTY + "=42", "-Dother=1")))
            .containsExactly("-Xmx1g", "-Dcom.sun.management.jmxremote",
                    "-Dcom.sun.management.jmxremote.authenticate=false", "-Dother=1");
    }

    @Test
    void aChildJvmEndsWithThisOne() {
        assertThat(JvmCommand.exitingWithThisJvm(List.of("-Xmx1g", "-D" + ExitWithParent.PROPERTY + "=42")))
            .containsExactly("-Xmx1g", "-D" + ExitWithParent.PROPERTY + "=" + ProcessHandle.current().pid());
    }
}
