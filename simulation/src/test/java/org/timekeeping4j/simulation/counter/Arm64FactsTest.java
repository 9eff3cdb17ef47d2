package org.timekeeping4j.simulation.counter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.arch.Arch;

/** The arm64 facts the counter's fitness is judged by: the arch-timer errata and the auxiliary vector. */
class Arm64FactsTest {

    @Test
    void cortexA73AndTimerDeviceTreeErrataShouldBeFoundAndOthersNot(@TempDir Path root) throws IOException {
        assertThat(Arm64Facts.find(root)).isEmpty(); // nothing there: nothing known
        Path cpu0 = Files.createDirectories(root.resolve("sys/devices/system/cpu/cpu0/regs/identification"));
        Path cpu1 = Files.createDirectories(root.resolve("sys/devices/system/cpu/cpu1/regs/identification"));
        Files.writeString(cpu0.resolve("midr_el1"), "0x00000000414fd0b1\n"); // Cortex-A76 r4p1 (1418040: compat only)
        Files.writeString(cpu1.resolve("midr_el1"), "0x00000000410fd034\n"); // Cortex-A53
        assertThat(Arm64Facts.find(root)).isEmpty();
        Files.writeString(cpu1.resolve("midr_el1"), "0x00000000411fd090\n"); // Cortex-A73 r1p0 (big.LITTLE: one core)
        assertThat(Arm64Facts.find(root)).containsExactly("Cortex-A73 (cpu1) has arch-timer erratum 858921");
        Files.writeString(cpu1.resolve("midr_el1"), "0x00000000510fd090\n"); // another implementer's part d09
        Path timer = Files.createDirectories(root.resolve("sys/firmware/devicetree/base/timer"));
        Files.createFile(timer.resolve("compatible"));
        assertThat(Arm64Facts.find(root)).isEmpty();
        Files.createFile(timer.resolve("fsl,erratum-a008585"));
        assertThat(Arm64Facts.find(root)).containsExactly("the device tree's timer node has fsl,erratum-a008585");
    }

    @Test
    void hwcap2ShouldBeReadFromTheAuxiliaryVector(@TempDir Path dir) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.nativeOrder());
        b.putLong(16).putLong(0xffL).putLong(26).putLong(Arm64Facts.HWCAP2_ECV).putLong(0).putLong(0);
        b.putLong(26).putLong(-1); // after AT_NULL: not read
        Path auxv = Files.write(dir.resolve("auxv"), b.array());
        assertThat(Arm64Facts.auxv(auxv, Arm64Facts.AT_HWCAP2)).isEqualTo(Arm64Facts.HWCAP2_ECV);
        assertThat(Arm64Facts.auxv(auxv, Arm64Facts.AT_HWCAP)).isEqualTo(0xffL);
        assertThat(Arm64Facts.auxv(dir.resolve("absent"), Arm64Facts.AT_HWCAP2)).isZero();
        // This process's own vector has AT_HWCAP2 on arm64 (emulated too); on x86 it may be absent or 0.
        if (Arch.HERE == Arch.AARCH64) {
            assertThat(Arm64Facts.auxv(Path.of("/proc/self/auxv"), Arm64Facts.AT_HWCAP)).isNotZero();
        }
    }
}
