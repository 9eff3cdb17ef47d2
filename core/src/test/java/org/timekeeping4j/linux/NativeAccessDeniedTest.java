package org.timekeeping4j.linux;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;

/**
 * A JVM that denies native access (--illegal-native-access=deny, no --enable-native-access) gets one line naming
 * the option from the library's first read, not an ExceptionInInitializerError.
 */
class NativeAccessDeniedTest {

    /** Run in the child JVM: one read, then the error's message on stdout. */
    public static void main(String[] args) {
        try {
            System.out.println("read " + Clocks.nanos(ClockId.MONOTONIC));
        } catch (RuntimeException | Error e) {
            System.out.println(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    @Test
    void theFirstReadShouldSayHowToAllowNativeAccess() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--illegal-native-access=deny", "-cp", System.getProperty("java.class.path"),
                NativeAccessDeniedTest.class.getName())).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor()).isZero();
        assertThat(out).startsWith("UnsupportedOperationException: timekeeping4j needs native access")
                .contains("--enable-native-access=ALL-UNNAMED").doesNotContain("\n");
    }
}
