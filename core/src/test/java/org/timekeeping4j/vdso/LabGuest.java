package org.timekeeping4j.vdso;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.linux.LibC;
import org.timekeeping4j.linux.LinuxTime;

/**
 * For tests that change kernel state no host should see changed (the clocksource, the date, a leap second):
 * they run only inside a lab guest (tk4j_lab=1 on its kernel command line) and only when asked to change clock
 * state (-Dtimekeeping4j.test.steerHost=true); they are tagged "lab", which the host build leaves out. Also the bracket reader those tests share and the
 * adjtimex / clock_settime calls they make.
 */
final class LabGuest {

    static final int ADJ_MAXERROR = 0x0004;
    static final int ADJ_ESTERROR = 0x0008;
    static final int ADJ_STATUS = 0x0010;
    static final int ADJ_TAI = 0x0080;
    static final int STA_INS = 0x0010;
    static final int STA_DEL = 0x0020;
    static final int TIME_INS = 1;
    static final int TIME_OOP = 3;
    static final int TIME_WAIT = 4;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle ADJTIMEX = LINKER.downcallHandle(LINKER.defaultLookup().find("adjtimex")
            .orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle SETTIME = LINKER.downcallHandle(LINKER.defaultLookup().find("clock_settime")
            .orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));

    private LabGuest() {}

    /**
     * Skips (saying why) unless this JVM runs in a lab guest (its kernel command line carries tk4j_lab=1, as
     * scripts/lab/qemu.sh and scripts/lab/uml.sh boot it) that was asked to change clock state.
     */
    static void assumeLabGuestMayChangeTheClock() {
        String cmdline;
        try {
            cmdline = " " + Files.readString(Path.of("/proc/cmdline")).strip() + " ";
        } catch (IOException | UncheckedIOException e) {
            cmdline = "";
        }
        assumeTrue(cmdline.contains(" tk4j_lab=1 "), "changes the clocksource, date or leap state of the kernel it "
                + "runs on: only inside a lab guest (scripts/lab/qemu.sh), whose kernel command line has tk4j_lab=1");
        assumeTrue(Boolean.getBoolean("timekeeping4j.test.steerHost"),
                "changes the kernel's clock state: only with -Dtimekeeping4j.test.steerHost=true");
    }

    /**
     * adjtimex with {@code modes}, status and tai as given (maxerror and esterror 0); returns the kernel's time
     * state (TIME_*).
     */
    static int adjtimex(int modes, int status, int tai, MemorySegment out) {
        out.fill((byte) 0);
        out.set(JAVA_INT, LibC.Timex.MODES, modes);
        out.set(JAVA_INT, LibC.Timex.STATUS, status);
        out.set(JAVA_LONG, LibC.Timex.CONSTANT, tai); // ADJ_TAI takes the offset from the constant field
        try {
            int rc = (int) ADJTIMEX.invokeExact(out);
            if (rc < 0) {
                throw new IllegalStateException("adjtimex(modes=0x" + Integer.toHexString(modes) + ") refused");
            }
            return rc;
        } catch (Throwable e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
    }

    /** Sets CLOCK_REALTIME to {@code nanos} since the epoch. */
    static void setRealtime(long nanos) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ts = a.allocate(16, 8);
            ts.set(JAVA_LONG, 0, Math.floorDiv(nanos, 1_000_000_000L));
            ts.set(JAVA_LONG, 8, Math.floorMod(nanos, 1_000_000_000L));
            int rc = (int) SETTIME.invokeExact(0, ts);
            if (rc != 0) {
                throw new IllegalStateException("clock_settime(CLOCK_REALTIME) refused");
            }
        } catch (Throwable e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
    }

    /**
     * A platform thread checking every Clocks.nanos read of {@code clocks} against the clock_gettime reads
     * around it, and that each clock's exact reads never go back (REALTIME excepted: a step or a leap moves it
     * back). A bracket whose kernel reads themselves went back (a step inside it) is counted, not checked.
     */
    static final class BracketReader implements AutoCloseable {
        final AtomicLong reads = new AtomicLong();
        final AtomicLong outside = new AtomicLong();
        final AtomicLong backwards = new AtomicLong();
        final AtomicLong steppedBrackets = new AtomicLong();
        final StringBuilder first = new StringBuilder();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread thread;

        BracketReader(ClockId... clocks) {
            thread = Thread.ofPlatform().name("bracket-reader").start(() -> {
                long[] last = new long[clocks.length];
                java.util.Arrays.fill(last, Long.MIN_VALUE);
                while (!stop.get()) {
                    for (int c = 0; c < clocks.length; c++) {
                        ClockId clock = clocks[c];
                        for (int i = 0; i < 100; i++) {
                            long k0 = LinuxTime.clockGettimeNanos(clock.id());
                            long v = Clocks.nanos(clock);
                            long k1 = LinuxTime.clockGettimeNanos(clock.id());
                            if (k1 - k0 < 0) {
                                steppedBrackets.incrementAndGet();
                                last[c] = Long.MIN_VALUE;
                                continue;
                            }
                            if (v - k0 < 0 || k1 - v < 0) {
                                note(outside, clock + ": " + k0 + " <= " + v + " <= " + k1 + " fails");
                            }
                            if (clock != ClockId.REALTIME && last[c] != Long.MIN_VALUE && v - last[c] < 0) {
                                note(backwards, clock + ": " + v + " after " + last[c]);
                            }
                            last[c] = v;
                        }
                        reads.addAndGet(100);
                    }
                }
            });
        }

        private void note(AtomicLong counter, String what) {
            if (counter.getAndIncrement() == 0) {
                synchronized (first) {
                    first.append(what);
                }
            }
        }

        String firstFailure() {
            synchronized (first) {
                return first.toString();
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join();
        }
    }
}
