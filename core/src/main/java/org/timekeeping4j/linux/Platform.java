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
    public static final String UNSUPPORTED_REASON = reasonHere();

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
