package org.timekeeping4j.lab;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import org.timekeeping4j.linux.Errno;
import org.timekeeping4j.linux.LibC;
import org.timekeeping4j.linux.LinuxTime;

/**
 * The lab guest's kernel, for the tests that change its clock state: clock_adjtime / clock_settime on any clock id
 * and sysfs writes. Every test class calls {@link #require()} first, which refuses (a JUnit assumption, with the
 * reason) anywhere but inside a lab guest: there the clocks are the guest's own, anywhere else they would be this
 * machine's.
 */
final class GuestKernel {

    static final int ADJ_OFFSET = 0x0001;
    static final int ADJ_FREQUENCY = 0x0002;
    static final int ADJ_MAXERROR = 0x0004;
    static final int ADJ_ESTERROR = 0x0008;
    static final int ADJ_STATUS = 0x0010;
    static final int ADJ_TAI = 0x0080;
    static final int ADJ_SETOFFSET = 0x0100;
    static final int ADJ_NANO = 0x2000;
    static final int STA_PLL = 0x0001;
    static final int STA_INS = 0x0010;
    static final int STA_DEL = 0x0020;
    static final int TIME_OK = 0;
    static final int TIME_INS = 1;
    static final int TIME_DEL = 2;
    static final int TIME_OOP = 3;
    static final int TIME_WAIT = 4;
    static final int TIME_ERROR = 5;
    static final long NANOS = 1_000_000_000L;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final VarHandle ERRNO = Linker.Option.captureStateLayout()
            .varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle CLOCK_ADJTIME = LINKER.downcallHandle(
            LINKER.defaultLookup().find("clock_adjtime").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), Linker.Option.captureCallState("errno"));
    private static final MethodHandle CLOCK_SETTIME = LINKER.downcallHandle(
            LINKER.defaultLookup().find("clock_settime").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), Linker.Option.captureCallState("errno"));

    private GuestKernel() {}

    /** Refuses to go on outside a lab guest: the kernel command line of scripts/lab/uml.sh carries tk4j_lab=1. */
    static void require() {
        String cmdline;
        try {
            cmdline = Files.readString(Path.of("/proc/cmdline"));
        } catch (IOException e) {
            cmdline = "";
        }
        assumeTrue((" " + cmdline.strip() + " ").contains(" tk4j_lab=1 "),
                "not inside a lab guest (no tk4j_lab=1 on the kernel command line): these tests change the clock "
                        + "state of the kernel they run on; run them with scripts/lab/uml-suite.sh");
    }

    /** One clock_adjtime call with the given fields; the kernel's answer (TIME_* state), errno as an exception. */
    static int clockAdjtime(int clockId, int modes, long offset, long freqScaledPpm, int status, int tai) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment tx = arena.allocate(LibC.Timex.SIZE, 8);
            tx.set(JAVA_INT, LibC.Timex.MODES, modes);
            tx.set(JAVA_LONG, LibC.Timex.OFFSET, offset);
            tx.set(JAVA_LONG, LibC.Timex.FREQ, freqScaledPpm);
            tx.set(JAVA_INT, LibC.Timex.STATUS, status);
            if ((modes & ADJ_SETOFFSET) != 0) { // struct timeval time: seconds, and nanoseconds with ADJ_NANO
                tx.set(JAVA_LONG, LibC.Timex.TIME, Math.floorDiv(offset, NANOS));
                tx.set(JAVA_LONG, LibC.Timex.TIME + 8, Math.floorMod(offset, NANOS));
                tx.set(JAVA_LONG, LibC.Timex.OFFSET, 0);
            }
            // TAI offset to set with ADJ_TAI travels in the constant field (kernel/time/ntp.c).
            tx.set(JAVA_LONG, LibC.Timex.CONSTANT, tai);
            MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
            int rc = (int) CLOCK_ADJTIME.invokeExact(state, clockId, tx);
            if (rc < 0) {
                int errno = (int) ERRNO.get(state, 0L);
                throw new IllegalStateException("clock_adjtime(" + clockId + ", modes 0x" + Integer.toHexString(modes)
                        + ") failed: " + Errno.describe(errno));
            }
            return rc;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** The clock's frequency offset (clock_adjtime with modes 0), ppm << 16. */
    static long frequency(int clockId) {
        return LinuxTime.clockAdjtimeRead(clockId).freq();
    }

    /** Sets the clock's frequency offset, ppm << 16. */
    static void setFrequency(int clockId, long scaledPpm) {
        clockAdjtime(clockId, ADJ_FREQUENCY, 0, scaledPpm, 0, 0);
    }

    /**
     * Sets the kernel's STA_* status bits (ADJ_STATUS) on REALTIME, with maxerror and esterror at 0 as a time daemon
     * does (a maxerror past 16 s makes the kernel set STA_UNSYNC again, and adjtimex then answers TIME_ERROR in place
     * of its leap state); returns the state.
     */
    static int setStatus(int status) {
        return clockAdjtime(0, ADJ_STATUS | ADJ_MAXERROR | ADJ_ESTERROR, 0, 0, status, 0);
    }

    /**
     * Clears STA_INS/STA_DEL and waits (at most 3 s) for the kernel's state to return to TIME_OK: after a leap it
     * stays TIME_WAIT while a leap flag is set, and leaves it only at a second's end (a clock_settime does not reset
     * it), so a new leap can be armed only after this.
     */
    static void awaitTimeOk() throws InterruptedException {
        setStatus(0);
        long deadline = gettime(1) + 3 * NANOS;
        while (state() != TIME_OK) {
            if (gettime(1) > deadline) {
                throw new AssertionError("the kernel's state stayed " + state() + " for 3 s after the leap flags were "
                        + "cleared (TIME_OK is 0)");
            }
            Thread.sleep(10);
        }
    }

    /** The kernel's state now (adjtimex with modes 0). */
    static int state() {
        return clockAdjtime(0, 0, 0, 0, 0, 0);
    }

    /** Sets the TAI offset (ADJ_TAI). */
    static void setTaiOffset(int seconds) {
        clockAdjtime(0, ADJ_TAI, 0, 0, 0, seconds);
    }

    /** clock_settime(clockId, nanos). */
    static void settime(int clockId, long nanos) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ts = arena.allocate(16, 8);
            ts.set(JAVA_LONG, 0, Math.floorDiv(nanos, NANOS));
            ts.set(JAVA_LONG, 8, Math.floorMod(nanos, NANOS));
            MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
            int rc = (int) CLOCK_SETTIME.invokeExact(state, clockId, ts);
            if (rc < 0) {
                throw new IllegalStateException("clock_settime(" + clockId + ") failed: "
                        + Errno.describe((int) ERRNO.get(state, 0L)));
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** clock_gettime(clockId) in ns, through libc (the system call in UML: it has no [vvar]). */
    static long gettime(int clockId) {
        return LinuxTime.clockGettimeNanos(clockId);
    }

    /** Writes {@code value} to a sysfs file (one write, as echo does). */
    static void sysfs(String file, String value) {
        try {
            Files.writeString(Path.of(file), value);
        } catch (IOException e) {
            throw new IllegalStateException("writing '" + value.strip() + "' to " + file + " failed: " + e, e);
        }
    }

    /** Reads a sysfs file, stripped. */
    static String read(String file) {
        try {
            return Files.readString(Path.of(file)).strip();
        } catch (IOException e) {
            throw new IllegalStateException("reading " + file + " failed: " + e, e);
        }
    }
}
