package org.timekeeping4j.linux;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which operating systems and processors the bindings support, decided once from {@code os.name} and
 * {@code os.arch}.
 *
 * <p>The bindings are written for the 64-bit Linux ABI (LP64: {@code long} and pointers are 8 bytes,
 * {@code struct timespec} is 16 bytes) with the generic constants (asm-generic errno, fcntl and mman values):
 * {@link #GENERIC_ABI}. Anywhere else every binding throws {@link UnsupportedOperationException} with
 * {@link #UNSUPPORTED_REASON} on first use instead of calling into a library whose ABI it does not know.
 * Which of these architectures timekeeping4j reads the counter of is not decided here: that is
 * clocksource.CounterArch, and an architecture without one gets the kernel's clocks.
 */
public final class Platform {

    /**
     * The processors, by the kernel's machine name (uname -m), whose libc ABI the bindings' constants match:
     * LP64, and errno, O_CLOEXEC, PROT_* and MAP_* as in asm-generic, and ioctl numbers encoded as
     * asm-generic/ioctl.h does (device.Abi). Refused: alpha, mips, parisc and sparc redefine errno/fcntl/mman
     * values; powerpc encodes ioctls with other direction bits and a 13-bit size (its asm/ioctl.h), so the PTP
     * and PPS requests would be other requests there.
     */
    public static final Set<String> GENERIC_ABI =
            Set.of("x86_64", "aarch64", "riscv64", "loongarch64", "s390x");

    /** Null where the bindings can run, else one line saying why not. */
    public static final String UNSUPPORTED_REASON = reasonHere();

    /**
     * This machine's processor by the kernel's name (uname -m: "x86_64", "aarch64", "riscv64", ...); null
     * where {@link #UNSUPPORTED_REASON} is set.
     */
    public static final String ARCH = UNSUPPORTED_REASON == null ? machine(System.getProperty("os.arch")) : null;

    private Platform() {}

    /**
     * Why the bindings cannot run on this operating system and processor, or null where they can.
     *
     * @param osName the {@code os.name} system property
     * @param osArch the {@code os.arch} system property
     */
    public static String unsupportedReason(String osName, String osArch) {
        if (!"linux".equals(osName.toLowerCase(Locale.ROOT))) {
            return "timekeeping4j reads Linux clocks and needs Linux; this JVM runs on " + osName + " (" + osArch + ")";
        }
        if (!GENERIC_ABI.contains(machine(osArch))) {
            return "timekeeping4j supports 64-bit Linux with the generic ABI ("
                    + String.join(", ", new TreeSet<>(GENERIC_ABI)) + "); this JVM runs on Linux " + osArch;
        }
        return null;
    }

    private static String reasonHere() {
        String why = unsupportedReason(System.getProperty("os.name", "?"), System.getProperty("os.arch", "?"));
        return why != null ? why : nativeAccessDenied();
    }

    /**
     * Null where this module may use restricted FFM methods, else one line saying how to allow it: with
     * --illegal-native-access=deny (or a future JDK's default) the first binding would otherwise fail with an
     * IllegalCallerException deep inside a class initialiser.
     */
    static String nativeAccessDenied() {
        try {
            java.lang.foreign.MemorySegment.NULL.reinterpret(1); // a restricted method: the cheapest probe
            return null;
        } catch (IllegalCallerException e) {
            Module m = Platform.class.getModule();
            return "timekeeping4j needs native access (FFM): run java with --enable-native-access="
                    + (m.isNamed() ? m.getName() : "ALL-UNNAMED")
                    + " (an executable jar: Enable-Native-Access: ALL-UNNAMED in its manifest)";
        }
    }

    /**
     * The kernel's name (uname -m) for a JVM's {@code os.arch}: the JDK says amd64 where the kernel says x86_64,
     * and some JDKs say arm64 for aarch64; the other names agree.
     *
     * @param osArch the {@code os.arch} system property
     * @return the machine name, lower case
     */
    public static String machine(String osArch) {
        String a = osArch.toLowerCase(Locale.ROOT);
        return switch (a) {
            case "amd64" -> "x86_64";
            case "arm64" -> "aarch64";
            default -> a;
        };
    }

    /** Throws the platform's one-line reason where the bindings cannot run. */
    public static void requireSupported() {
        if (UNSUPPORTED_REASON != null) {
            throw new UnsupportedOperationException(UNSUPPORTED_REASON);
        }
    }
}
