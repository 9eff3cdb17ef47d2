package org.timekeeping4j.linux;

import java.util.Locale;

/**
 * Which operating systems and processors the bindings support, decided once from {@code os.name} and
 * {@code os.arch}.
 *
 * <p>The bindings are written for the 64-bit Linux ABI (LP64: {@code long} and pointers are 8 bytes,
 * {@code struct timespec} is 16 bytes) on x86_64 and aarch64. Anywhere else every binding throws
 * {@link UnsupportedOperationException} with {@link #UNSUPPORTED_REASON} on first use instead of
 * calling into a library whose ABI it does not know.
 */
public final class Platform {

    /** The processor families the bindings know. */
    public enum Arch { X86_64, AARCH64 }

    /** Null where the bindings can run, else one line saying why not. */
    public static final String UNSUPPORTED_REASON =
            unsupportedReason(System.getProperty("os.name", "?"), System.getProperty("os.arch", "?"));

    /** This machine's processor family; null where {@link #UNSUPPORTED_REASON} is set. */
    public static final Arch ARCH = UNSUPPORTED_REASON == null ? arch(System.getProperty("os.arch")) : null;

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
        if (arch(osArch) == null) {
            return "timekeeping4j supports Linux on x86_64 and aarch64; this JVM runs on Linux " + osArch;
        }
        return null;
    }

    private static Arch arch(String osArch) {
        return switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64" -> Arch.X86_64;
            case "aarch64", "arm64" -> Arch.AARCH64;
            default -> null;
        };
    }

    /** Throws the platform's one-line reason where the bindings cannot run. */
    public static void requireSupported() {
        if (UNSUPPORTED_REASON != null) {
            throw new UnsupportedOperationException(UNSUPPORTED_REASON);
        }
    }
}
