package org.timekeeping4j.testing;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import org.timekeeping4j.linux.Errno;
import org.timekeeping4j.linux.LibC;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.machine.ClockGettimeStub;

/**
 * The kernel clock calls of the tests that change clock state, in one place: clock_adjtime (adjtimex is
 * clock_adjtime on CLOCK_REALTIME) and clock_settime on any clock id, the ADJ_ / STA_ / TIME_ constants of
 * linux/timex.h, and the check for a lab guest (tk4j_lab=1 on the kernel command line, as scripts/lab/qemu.sh
 * and scripts/lab/uml.sh boot it).
 *
 * <p>Every call that changes state refuses (IllegalStateException) unless {@code -D}{@value HostSteering#PROPERTY}
 * {@code =true}: a test first skips through {@link HostSteering#assumeMaySteer} (on a host) or
 * {@link #assumeLabGuest} (in a lab guest, which sets the property: the clock there is the guest's own). Reading
 * ({@link #state}, {@link #frequency}, {@link #gettime}) needs neither.
 */
public final class KernelClock {

    // linux/timex.h: struct timex modes.
    public static final int ADJ_OFFSET = 0x0001;
    public static final int ADJ_FREQUENCY = 0x0002;
    public static final int ADJ_MAXERROR = 0x0004;
    public static final int ADJ_ESTERROR = 0x0008;
    public static final int ADJ_STATUS = 0x0010;
    public static final int ADJ_TIMECONST = 0x0020;
    public static final int ADJ_TAI = 0x0080;
    public static final int ADJ_SETOFFSET = 0x0100;
    public static final int ADJ_MICRO = 0x1000;
    public static final int ADJ_NANO = 0x2000;
    public static final int ADJ_TICK = 0x4000;
    // Status bits.
    public static final int STA_PLL = 0x0001;
    public static final int STA_INS = 0x0010;
    public static final int STA_DEL = 0x0020;
    public static final int STA_UNSYNC = 0x0040;
    public static final int STA_NANO = 0x2000;
    // The clock states adjtimex answers.
    public static final int TIME_OK = 0;
    public static final int TIME_INS = 1;
    public static final int TIME_DEL = 2;
    public static final int TIME_OOP = 3;
    public static final int TIME_WAIT = 4;
    public static final int TIME_ERROR = 5;

    public static final int CLOCK_REALTIME = 0;
    public static final long NANOS = 1_000_000_000L;

    /** The kernel command line word that marks a lab guest. */
    public static final String LAB_MARK = "tk4j_lab=1";

    private static final Linker LINKER = Linker.nativeLinker();
    private static final VarHandle ERRNO = Linker.Option.captureStateLayout()
            .varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle CLOCK_ADJTIME = LINKER.downcallHandle(
            LINKER.defaultLookup().find("clock_adjtime").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), Linker.Option.captureCallState("errno"));
    private static final MethodHandle CLOCK_SETTIME = LINKER.downcallHandle(
            LINKER.defaultLookup().find("clock_settime").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), Linker.Option.captureCallState("errno"));

    private KernelClock() {}

    /**
     * A clock's value through libc's clock_gettime with errno captured: the reference the kernel-path stubs are
     * bracketed by (a read, not a write: no opt-in needed).
     *
     * @param id the clock id
     * @return ns
     * @throws IllegalStateException when clock_gettime fails
     */
    public static long libcClockGettime(int id) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ts = arena.allocate(16, 8);
            MemorySegment state = arena.allocate(LibC.CAPTURE_STATE);
            int rc = (int) LibC.ClockGettimeErrno.HANDLE.invokeExact(state, id, ts);
            if (rc != 0) {
                throw new IllegalStateException("libc clock_gettime(" + id + ") failed: rc " + rc);
            }
            return LinuxTime.toNanos(ts);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }

    /** Whether this JVM runs in a lab guest: its kernel command line carries {@value #LAB_MARK}. */
    public static boolean inLabGuest() {
        return (" " + HostFacts.kernelCommandLine() + " ").contains(" " + LAB_MARK + " ");
    }

    /**
     * Skips the calling test (JUnit assumption, with the reason) unless this JVM runs in a lab guest that was
     * asked to change clock state ({@code -D}{@value HostSteering#PROPERTY}{@code =true}, which the lab scripts
     * pass): these tests change state (the date, a leap second, the clocksource) no host should see changed.
     * They are also tagged "lab" (or "lab-clocksource"), which the host build leaves out.
     */
    public static void assumeLabGuest() {
        assumeTrue(inLabGuest(), "changes the clock state (date, leap second, clocksource, PHC or AUX clocks) of the "
                + "kernel it runs on: only inside a lab guest, whose kernel command line has " + LAB_MARK
                + " (scripts/lab/uml-suite.sh, scripts/lab/qemu-suite.sh)");
        assumeTrue(maySteer(), "changes the kernel's clock state: only with -D" + HostSteering.PROPERTY + "=true");
    }

    private static boolean maySteer() {
        String p = System.getProperty(HostSteering.PROPERTY);
        return p != null && "true".equalsIgnoreCase(p.trim());
    }

    /** Throws unless the opt-in is set; {@code what} names the change refused. */
    public static void requireMaySteer(String what) {
        if (!maySteer()) {
            throw new IllegalStateException(what + " changes the kernel's clock state, and -D" + HostSteering.PROPERTY
                    + "=true is not set: call HostSteering.assumeMaySteer() or KernelClock.assumeLabGuest() first");
        }
    }

    /**
     * clock_adjtime(clockId, timex) with {@code timex} (a struct timex, {@link LibC.Timex#SIZE} bytes) as the
     * caller filled it; the kernel writes its state back into it. Returns the clock state (TIME_*); a refusal is
     * an exception naming errno. Modes 0 reads only; any other mode needs the opt-in.
     */
    public static int adjtime(int clockId, MemorySegment timex) {
        int modes = timex.get(JAVA_INT, LibC.Timex.MODES);
        if (modes != 0) {
            requireMaySteer("clock_adjtime(" + clockId + ", modes 0x" + Integer.toHexString(modes) + ")");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
            int rc = (int) CLOCK_ADJTIME.invokeExact(state, clockId, timex);
            if (rc < 0) {
                throw new IllegalStateException("clock_adjtime(" + clockId + ", modes 0x" + Integer.toHexString(modes)
                        + ") failed: " + Errno.describe((int) ERRNO.get(state, 0L)));
            }
            return rc;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /**
     * One clock_adjtime call with these fields and every other one 0 (maxerror and esterror too); returns the
     * clock state (TIME_*). With ADJ_SETOFFSET, {@code offset} is the step in ns (sent as struct timeval time;
     * pass ADJ_NANO too); with ADJ_TAI, {@code tai} is the TAI offset in seconds.
     */
    public static int clockAdjtime(int clockId, int modes, long offset, long freqScaledPpm, int status, int tai) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment tx = arena.allocate(LibC.Timex.SIZE, 8); // zeroed
            tx.set(JAVA_INT, LibC.Timex.MODES, modes);
            tx.set(JAVA_LONG, LibC.Timex.OFFSET, offset);
            tx.set(JAVA_LONG, LibC.Timex.FREQ, freqScaledPpm);
            tx.set(JAVA_INT, LibC.Timex.STATUS, status);
            if ((modes & ADJ_SETOFFSET) != 0) { // struct timeval time: seconds, and nanoseconds with ADJ_NANO
                tx.set(JAVA_LONG, LibC.Timex.TIME, Math.floorDiv(offset, NANOS));
                tx.set(JAVA_LONG, LibC.Timex.TIME + 8, Math.floorMod(offset, NANOS));
                tx.set(JAVA_LONG, LibC.Timex.OFFSET, 0);
            }
            // The TAI offset to set with ADJ_TAI travels in the constant field (kernel/time/ntp.c).
            tx.set(JAVA_LONG, LibC.Timex.CONSTANT, tai);
            return adjtime(clockId, tx);
        }
    }

    /** The clock state now (adjtimex with modes 0): TIME_OK .. TIME_ERROR. */
    public static int state() {
        return clockAdjtime(CLOCK_REALTIME, 0, 0, 0, 0, 0);
    }

    /** The TAI offset the kernel keeps, in seconds. */
    public static int taiOffset() {
        return LinuxTime.clockAdjtimeRead(CLOCK_REALTIME).tai();
    }

    /** Sets the TAI offset (ADJ_TAI). */
    public static void setTaiOffset(int seconds) {
        clockAdjtime(CLOCK_REALTIME, ADJ_TAI, 0, 0, 0, seconds);
    }

    /** The clock's frequency offset (clock_adjtime with modes 0), ppm << 16. */
    public static long frequency(int clockId) {
        return LinuxTime.clockAdjtimeRead(clockId).freq();
    }

    /** Sets the clock's frequency offset, ppm << 16 (ADJ_FREQUENCY). */
    public static void setFrequency(int clockId, long scaledPpm) {
        clockAdjtime(clockId, ADJ_FREQUENCY, 0, scaledPpm, 0, 0);
    }

    /**
     * Sets the kernel's STA_* status bits (ADJ_STATUS) on REALTIME, with maxerror and esterror at 0 as a time
     * daemon does (a maxerror past 16 s makes the kernel set STA_UNSYNC again, and adjtimex then answers TIME_ERROR
     * in place of its leap state); returns the state.
     */
    public static int setStatus(int status) {
        return clockAdjtime(CLOCK_REALTIME, ADJ_STATUS | ADJ_MAXERROR | ADJ_ESTERROR, 0, 0, status, 0);
    }

    /**
     * Clears STA_INS/STA_DEL and waits (at most 3 s) for the kernel's state to return to TIME_OK:
     * after a leap it stays TIME_WAIT while a leap flag is set, and leaves it only at a second's end (a
     * clock_settime does not reset it), so a new leap can be armed only after this.
     */
    public static void awaitTimeOk() throws InterruptedException {
        setStatus(0);
        org.awaitility.Awaitility.await("the kernel's state TIME_OK (0) after the leap flags were cleared")
                .atMost(java.time.Duration.ofSeconds(3)).pollInterval(java.time.Duration.ofMillis(10))
                .until(() -> state() == TIME_OK);
    }

    /** clock_settime(clockId, nanos). */
    public static void settime(int clockId, long nanos) {
        requireMaySteer("clock_settime(" + clockId + ")");
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
    public static long gettime(int clockId) {
        return ClockGettimeStub.clockGettimeNanos(clockId);
    }

    /**
     * Writes {@code value} to a sysfs file (one write, as echo does): the clocksource, an AUX clock's enable, a
     * netdevsim device. Needs the opt-in, as every write here.
     */
    public static void sysfs(String file, String value) {
        requireMaySteer("writing " + file);
        try {
            Files.writeString(Path.of(file), value);
        } catch (IOException e) {
            throw new IllegalStateException("writing '" + value.strip() + "' to " + file + " failed: " + e, e);
        }
    }

    /** Reads a sysfs or procfs file, stripped. */
    public static String read(String file) {
        try {
            return Files.readString(Path.of(file)).strip();
        } catch (IOException e) {
            throw new IllegalStateException("reading " + file + " failed: " + e, e);
        }
    }
}
