package org.timekeeping4j.simulation.counter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.timekeeping4j.arch.Arch;

/**
 * What user space can see of the arm64 facts the counter choice depends on: the auxiliary vector's hwcaps
 * and the arch-timer errata for which the kernel keeps its vDSO off the counter.
 *
 * <p>The kernel (drivers/clocksource/arm_arch_timer.c, arch_timer_enable_workaround) sets the vDSO's clock
 * mode to NONE, so that every clock_gettime is a system call, wherever an erratum needs an out-of-line
 * counter accessor (read_cntvct_el0): the counter read directly can be wrong or trap there. timekeeping4j
 * refuses the counter in the same cases, found through what an unprivileged process can read:
 * <ul>
 * <li>ARM64_ERRATUM_858921, Cortex-A73, every revision (MIDR implementer 0x41, part 0xd09): a counter read
 *     that crosses a 32-bit boundary can return a wrong value; the kernel reads it twice.</li>
 * <li>FSL_ERRATUM_A008585 ({@code fsl,erratum-a008585}), HISILICON_ERRATUM_161010101
 *     ({@code hisilicon,erratum-161010101}), SUN50I_ERRATUM_UNKNOWN1 ({@code allwinner,erratum-unknown1}):
 *     device-tree properties of the timer node. HiSilicon's ACPI match (GTDT OEM ids HIP05-07) is not
 *     visible unprivileged (the table is root-only); on such machines the kernel's clocksource check and
 *     the self-test are what remains.</li>
 * </ul>
 * ARM64_ERRATUM_1418040 (Cortex-A76, Neoverse-N1) only keeps the 32-bit compat vDSO off the counter
 * (clock mode ARCHTIMER_NOCOMPAT): 64-bit readers may use it, so it is not refused.
 */
final class Arm64Facts {

    /** AT_HWCAP and AT_HWCAP2 (include/uapi/linux/auxvec.h, arch/arm64/include/uapi/asm/hwcap.h). */
    static final int AT_HWCAP = 16;
    static final int AT_HWCAP2 = 26;
    /** HWCAP2_ECV: FEAT_ECV, so the self-synchronised view cntvctss_el0 exists. */
    static final long HWCAP2_ECV = Arch.HWCAP2_ECV;

    private static final String[] DT_PROPERTIES = {
        "fsl,erratum-a008585", "hisilicon,erratum-161010101", "allwinner,erratum-unknown1",
    };

    private Arm64Facts() {}

    /** The errata under {@code root} (the file-system root: "/" on a real machine, a folder in tests). */
    static List<String> find(Path root) {
        Set<String> found = new LinkedHashSet<>();
        Path cpus = root.resolve("sys/devices/system/cpu");
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(cpus, "cpu[0-9]*")) {
            for (Path cpu : dirs) {
                Path midr = cpu.resolve("regs/identification/midr_el1");
                long v = midr(midr);
                if (((v >>> 24) & 0xff) == 0x41 && ((v >>> 4) & 0xfff) == 0xd09) {
                    found.add("Cortex-A73 (" + cpu.getFileName() + ") has arch-timer erratum 858921");
                }
            }
        } catch (IOException | RuntimeException e) {
            // no such folder (not arm64, or a hardened /sys): no MIDR known
        }
        Path dt = root.resolve("sys/firmware/devicetree/base");
        try (DirectoryStream<Path> nodes = Files.newDirectoryStream(dt, "timer*")) {
            for (Path node : nodes) {
                for (String p : DT_PROPERTIES) {
                    if (Files.exists(node.resolve(p))) {
                        found.add("the device tree's " + node.getFileName() + " node has " + p);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // no device tree (ACPI, or not arm64)
        }
        return new ArrayList<>(found);
    }

    private static long midr(Path file) {
        try {
            String s = Files.readString(file).trim().toLowerCase(Locale.ROOT);
            return Long.parseUnsignedLong(s.startsWith("0x") ? s.substring(2) : s, 16);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** An entry of the auxiliary vector in {@code auxv} (the /proc/self/auxv format), 0 where absent. */
    static long auxv(Path auxv, int type) {
        try {
            ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(auxv)).order(ByteOrder.nativeOrder());
            while (b.remaining() >= 16) {
                long t = b.getLong();
                long v = b.getLong();
                if (t == type) {
                    return v;
                }
                if (t == 0) {
                    break; // AT_NULL
                }
            }
        } catch (IOException | RuntimeException e) {
            // unreadable: nothing stated
        }
        return 0;
    }
}
