package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.testing.TimeNamespaces;

/**
 * `tk4j info` in a time namespace of its own (what a restored checkpoint runs in): the offsets the kernel states,
 * and that exact mode serves with them; outside one, that there are none.
 */
class InfoTimeNamespaceTest {

    @Test
    void infoShouldNameTheNamespaceOffsetsAndWhoAppliesThem() throws Exception {
        TimeNamespaces.assumeUsable();
        List<String> cmd = new ArrayList<>(TimeNamespaces.prefix(3600, 7200));
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Tk4j.class.getName(), "info", "--width", "200"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).contains("time ns       its own: MONOTONIC +3600.000000000 s, BOOTTIME +7200.000000000 s"
                + " (/proc/self/timens_offsets); exact mode serves with these offsets");
    }

    @Test
    void outsideANamespaceInfoShouldSayThereAreNoOffsets() {
        Tk4jHarness r = Tk4jHarness.run("info");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.unfolded()).containsPattern("time ns +(none of its own \\(offsets 0\\)|its own: .*)");
    }
}
