package org.timekeeping4j.linux;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which operating systems and processors the bindings are written for, from {@code os.name} and {@code os.arch}
 * alone: no FFM is touched here, so a cold JVM's first read can ask without paying for FFM's start-up
 * ({@link Platform} adds whether this module may call native code).
 */
public final class Os {

    /**
     * The processors, by the kernel's machine name (uname -m), whose libc ABI the bindings' constants match:
     * LP64, and errno, O_CLOEXEC, PROT_* and MAP_* as in asm-generic, and ioctl numbers encoded as
     * asm-generic/ioctl.h does (device.Abi). Refused: alpha, mips, parisc and sparc redefine errno/fcntl/mman
     * values; powerpc encodes ioctls with other direction bits and a 13-bit size (its asm/ioctl.h), so the PTP
     * and PPS requests would be other requests there.
     */
    public static final Set<String> GENERIC_ABI =
            Set.of("x86_64", "aarch64", "riscv64", "loongarch64", "s390x");

    private Os() {}

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

    /**
     * The exception a read throws where the bindings cannot run, saying {@code reason}. Typed RuntimeException on
     * purpose: a method that throws what this returns makes the verifier load no exception class of its own (the
     * first read's class does, on a cold JVM's clock).
     *
     * @param reason what {@link #unsupportedReason} said
     * @return an UnsupportedOperationException, to throw
     */
    public static RuntimeException unsupported(String reason) {
        return new UnsupportedOperationException(reason);
    }
}
