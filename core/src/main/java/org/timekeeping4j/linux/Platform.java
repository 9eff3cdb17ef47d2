package org.timekeeping4j.linux;

/**
 * Which operating systems and processors the bindings support, decided once from {@code os.name} and
 * {@code os.arch}.
 *
 * <p>The bindings are written for the 64-bit Linux ABI (LP64: {@code long} and pointers are 8 bytes,
 * {@code struct timespec} is 16 bytes) with the generic constants (asm-generic errno, fcntl and mman values):
 * {@link Os#GENERIC_ABI}. Anywhere else every binding throws {@link UnsupportedOperationException} with
 * {@link #UNSUPPORTED_REASON} on first use instead of calling into a library whose ABI it does not know.
 * Which of these architectures timekeeping4j reads the counter of is not decided here: that is
 * arch.Arch, and an architecture without one gets the kernel's clocks.
 */
public final class Platform {

    /** Null where the bindings can run, else one line saying why not. */
    public static final String UNSUPPORTED_REASON = reasonHere();

    /**
     * Held while a thread links the first downcall handle of its path, which in a cold JVM is the JDK's FFM
     * start-up (tens of milliseconds of one CPU): a cold read's ({@link ColdClockGettime}) and a discovery's
     * ({@link LibC#bootstrap}) start at the same moment on two threads, and two start-ups side by side compete for
     * the CPU and the JDK's initialisation and both come out later. The second waits, then links its own handle
     * over a warm JDK. Taken with no class initialisation pending that the other path needs (each links through
     * the Linker alone), so the two cannot deadlock.
     */
    static final Object FIRST_LINK = new Object();

    /**
     * This machine's processor by the kernel's name (uname -m: "x86_64", "aarch64", "riscv64", ...); null
     * where {@link #UNSUPPORTED_REASON} is set.
     */
    public static final String ARCH = UNSUPPORTED_REASON == null ? Os.machine(System.getProperty("os.arch")) : null;

    private Platform() {}

    private static String reasonHere() {
        String why = Os.unsupportedReason(System.getProperty("os.name", "?"), System.getProperty("os.arch", "?"));
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
            return "timekeeping4j needs native access (FFM): run java with " + nativeAccessFlag()
                    + " (an executable jar: Enable-Native-Access: ALL-UNNAMED in its manifest)";
        }
    }

    /** {@return the option that gives this library native access: --enable-native-access=MODULE or ALL-UNNAMED} */
    public static String nativeAccessFlag() {
        Module m = Platform.class.getModule();
        return "--enable-native-access=" + (m.isNamed() ? m.getName() : "ALL-UNNAMED");
    }

    /** Throws the platform's one-line reason where the bindings cannot run. */
    public static void requireSupported() {
        if (UNSUPPORTED_REASON != null) {
            throw new UnsupportedOperationException(UNSUPPORTED_REASON);
        }
    }
}
