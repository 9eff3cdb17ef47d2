package org.timekeeping4j.device;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.linux.Errno;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.linux.Seqcount;
import org.timekeeping4j.machine.ClockGettimeStub;

/**
 * Reader of a ClockBound daemon's shared-memory segment, protocol v2 (aws/clock-bound; default
 * {@code /var/run/clockbound/shm0}, 80 bytes, native endian).
 *
 * <p><b>Layout.</b> magic (two u32: 0x414D5A4E, 0x43420200) @0; segsize u32 @8; version u16 @12;
 * generation u16 @14; as_of timespec @16 and void_after timespec @32 (both CLOCK_MONOTONIC_COARSE);
 * bound_nsec i64 @48; disruption_marker u64 @56; max_drift_ppb u32 @64; clock_status i32 @68;
 * disruption_support u8 @72.
 *
 * <p><b>Reading (seqlock).</b> The single writer makes the generation odd, writes the body, then makes it
 * even again (wrapping to 2, never 0). The reader copies the body between two reads of the generation and
 * retries while the generation is 0 or odd, or changed ({@link Seqcount}, the library's one seqlock reader):
 * spinning first, then yielding; after {@link Seqcount#SETTLE_BUDGET_NANOS} and {@link Seqcount#MIN_READS}
 * attempts it gives up ("never settles"), since a writer that died mid-update leaves the generation odd forever.
 *
 * <p><b>Bounds.</b> {@link #now(TimeBounds)} reads CLOCK_REALTIME, then CLOCK_MONOTONIC_COARSE (mono).
 * mono earlier than as_of by more than 1 us is a causality breach (an error); a smaller lag counts as 0
 * elapsed. The bound grows by max_drift_ppb per second since as_of. The status is kept (Synchronized,
 * FreeRunning) while mono &lt; as_of + 5 s, degrades to FreeRunning while mono &lt; void_after, then
 * Unknown; Unknown and Disrupted pass through. max_drift_ppb &ge; 10^9 is a malformed segment.
 *
 * <p><b>Disruptions (VMClock).</b> Where the segment says clock_disruption_support, the daemon copies the VMClock
 * page's disruption_marker into the segment; {@link #now(TimeBounds)} then compares it with the page's own
 * (opened on first need: {@link VmClock#DEFAULT_PATH} unless {@link #open(Path, Path)} names another), as
 * ClockBound's own client does. While they differ the daemon has not yet seen a disruption (live migration,
 * snapshot restore): the status is {@link TimeBounds.Status#DISRUPTED} and the interval unbounded, never the
 * daemon's stale bound. A page that cannot be read then is an error naming it.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; {@link #now(TimeBounds)} allocates nothing (the
 * clock reads use {@link LinuxTime}'s per-thread buffer). {@link #close()} unmaps the segment: no thread
 * may be reading then.
 */
final class ClockBound implements BoundedClock {

    /** Where the ClockBound daemon (v2) publishes its segment. */
    static final Path DEFAULT_PATH = BoundedClock.CLOCKBOUND_DEFAULT_PATH;

    static final int MAGIC_0 = 0x414D5A4E;
    static final int MAGIC_1 = 0x43420200;
    static final int SEGMENT_SIZE = 80;
    static final int VERSION = 2;

    static final long OFF_MAGIC_0 = 0;
    static final long OFF_MAGIC_1 = 4;
    static final long OFF_SEGSIZE = 8;
    static final long OFF_VERSION = 12;
    static final long OFF_GENERATION = 14;
    static final long OFF_AS_OF = 16;
    static final long OFF_VOID_AFTER = 32;
    static final long OFF_BOUND_NSEC = 48;
    static final long OFF_DISRUPTION_MARKER = 56;
    static final long OFF_MAX_DRIFT_PPB = 64;
    static final long OFF_CLOCK_STATUS = 68;
    static final long OFF_DISRUPTION_SUPPORT = 72;

    /** How far mono may lag as_of before it is a causality breach (CLOCK_MONOTONIC_COARSE imprecision). */
    static final long CAUSALITY_BLUR_NANOS = 1_000;
    /** How long after as_of a Synchronized status is believed without a newer update (a daemon restart). */
    static final long GRACE_PERIOD_NANOS = 5_000_000_000L;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;


    private final Path path;
    private final Arena arena;
    private final MemorySegment segment;
    /** The VMClock page the markers are compared with, opened on first need. */
    private final Path vmclockPath;
    /** Null until first needed; then the page (written once, under this object's lock). */
    private volatile VmClock vmclock;

    private ClockBound(Path path, Arena arena, MemorySegment segment, Path vmclockPath) {
        this.path = path;
        this.arena = arena;
        this.segment = segment;
        this.vmclockPath = vmclockPath;
    }

    /**
     * A reader over {@code segment}, which a test writes as the daemon does (the jcstress tests of the seqlock
     * read): no file, no header check, no VMClock comparison, nothing to close.
     */
    static ClockBound overSegment(MemorySegment segment) {
        return new ClockBound(Path.of("(a test's segment)"), Arena.ofAuto(), segment, null);
    }

    /**
     * Maps the segment at {@code path} read-only and checks its header.
     *
     * @param path the segment, e.g. {@link #DEFAULT_PATH}
     * @return the open segment; close it
     * @throws DeviceException for a missing or unreadable file (with errno), or a segment with the wrong
     *                         magic, size or version
     */
    static ClockBound open(Path path) throws DeviceException {
        return open(path, VmClock.DEFAULT_PATH);
    }

    /**
     * Maps the segment at {@code path} read-only, checks its header, and compares disruption markers with the
     * VMClock page at {@code vmclock} where the segment says clock_disruption_support.
     *
     * @param path    the segment, e.g. {@link #DEFAULT_PATH}
     * @param vmclock the VMClock page the daemon reads, e.g. {@link VmClock#DEFAULT_PATH}
     * @return the open segment; close it
     * @throws DeviceException as {@link #open(Path)}
     */
    static ClockBound open(Path path, Path vmclock) throws DeviceException {
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < SEGMENT_SIZE) {
                throw new DeviceException(path, "not ClockBound v2 (" + size + " bytes, under " + SEGMENT_SIZE
                        + ")");
            }
            // The mapping outlives the channel; the arena unmaps it.
            MemorySegment seg = ch.map(FileChannel.MapMode.READ_ONLY, 0, SEGMENT_SIZE, arena);
            int m0 = seg.get(JAVA_INT, OFF_MAGIC_0);
            int m1 = seg.get(JAVA_INT, OFF_MAGIC_1);
            if (m0 != MAGIC_0 || m1 != MAGIC_1) {
                throw new DeviceException(path, String.format(
                        "not ClockBound v2 (magic 0x%08X 0x%08X)", m0, m1));
            }
            long segsize = Integer.toUnsignedLong(seg.get(JAVA_INT, OFF_SEGSIZE));
            if (segsize < SEGMENT_SIZE || segsize > size) {
                throw new DeviceException(path, "malformed ClockBound segment: segsize " + segsize
                        + ", expected at least " + SEGMENT_SIZE + " and at most the file's " + size + " bytes");
            }
            checkVersion(path, Short.toUnsignedInt(seg.get(JAVA_SHORT, OFF_VERSION)));
            return new ClockBound(path, arena, seg, vmclock);
        } catch (DeviceException e) {
            arena.close();
            throw e;
        } catch (NoSuchFileException e) {
            arena.close();
            throw new DeviceException(path, "open failed", Errno.ENOENT);
        } catch (AccessDeniedException e) {
            arena.close();
            throw new DeviceException(path, "open failed", Errno.EACCES);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw new DeviceException(path, "cannot map the ClockBound segment: " + e.getMessage());
        }
    }

    private static void checkVersion(Path path, int version) throws DeviceException {
        if (version == 0) {
            throw new DeviceException(path, "ClockBound segment not initialised (version 0)");
        }
        if (version != VERSION) {
            throw new DeviceException(path, "unsupported ClockBound segment version " + version + ", expected "
                    + VERSION);
        }
    }

    /** {@return the segment's path} */
    Path path() {
        return path;
    }

    @Override
    public String description() {
        return "clockbound " + path;
    }

    /**
     * Fills {@code into} with the bounds now. Allocates nothing.
     *
     * @throws IllegalStateException on a causality breach, a malformed drift, a version change, or a
     *                               generation that never settles, naming the path
     */
    @Override
    public TimeBounds now(TimeBounds into) {
        readSegment(into);
        // REALTIME first, as close as possible to the caller's event; then mono. A delay between the two
        // only makes the bound more pessimistic, never wrong.
        long real = ClockGettimeStub.clockGettimeNanos(ClockId.REALTIME.id());
        long mono = ClockGettimeStub.clockGettimeNanos(ClockId.MONOTONIC_COARSE.id());
        compute(into, real, mono, path);
        into.source = this;
        checkDisruption(into);
        return into;
    }

    /**
     * The segment's bounds at the clocks the caller read after the segment ({@code real}, {@code mono}: precise
     * CLOCK_MONOTONIC, not COARSE, so the elapsed time is never understated): what the served bounds sample.
     */
    TimeBounds at(TimeBounds into, long real, long mono) {
        compute(into, real, mono, path);
        into.source = this;
        checkDisruption(into);
        return into;
    }

    /** Where the segment says clock_disruption_support: DISRUPTED while the daemon has not seen the page's marker. */
    private void checkDisruption(TimeBounds into) {
        if (into.disruptionSupport != 0 && vmclock().disruptionMarker() != into.disruptionMarker) {
            disrupted(into);
        }
    }

    /** The daemon has not seen the page's latest disruption: its status and bound are void. */
    static void disrupted(TimeBounds into) {
        into.status = TimeBounds.Status.DISRUPTED;
        into.earliest = Long.MIN_VALUE;
        into.latest = Long.MAX_VALUE;
    }

    private VmClock vmclock() {
        VmClock v = vmclock; // volatile: a page opened by another thread is seen whole
        return v != null ? v : openVmclock();
    }

    private synchronized VmClock openVmclock() {
        if (vmclock == null) {
            try {
                vmclock = VmClock.open(vmclockPath);
            } catch (DeviceException e) {
                throw new IllegalStateException(path + ": the ClockBound segment says clock disruption support, "
                        + "and its bound means nothing without the VMClock page: " + e.getMessage(), e);
            }
        }
        return vmclock;
    }

    /** The seqlock read: copies a consistent body into {@code into}'s snapshot fields. */
    void readSegment(TimeBounds into) {
        MemorySegment s = segment;
        long giveUpAt = 0;
        for (int attempt = 0; ; attempt++) {
            giveUpAt = Seqcount.pace(attempt, giveUpAt);
            if (giveUpAt == Seqcount.GIVE_UP) {
                throw notSettled(s, attempt);
            }
            int first = Seqcount.begin16(s, OFF_GENERATION); // pairs with the daemon's release of the even generation
            if (first == 0 || Seqcount.writing(first)) {
                Thread.onSpinWait(); // not initialised, or a write in progress
                continue;
            }
            int version = Short.toUnsignedInt(s.get(JAVA_SHORT, OFF_VERSION));
            long asOfSec = s.get(JAVA_LONG, OFF_AS_OF);
            long asOfNsec = s.get(JAVA_LONG, OFF_AS_OF + 8);
            long voidSec = s.get(JAVA_LONG, OFF_VOID_AFTER);
            long voidNsec = s.get(JAVA_LONG, OFF_VOID_AFTER + 8);
            long bound = s.get(JAVA_LONG, OFF_BOUND_NSEC);
            long marker = s.get(JAVA_LONG, OFF_DISRUPTION_MARKER);
            long drift = Integer.toUnsignedLong(s.get(JAVA_INT, OFF_MAX_DRIFT_PPB));
            int status = s.get(JAVA_INT, OFF_CLOCK_STATUS);
            int support = s.get(JAVA_BYTE, OFF_DISRUPTION_SUPPORT);
            if (Seqcount.retry16(s, OFF_GENERATION, first)) { // pairs with the daemon's fence after its odd one
                Thread.onSpinWait();
                continue;
            }
            if (version != VERSION) {
                throw new IllegalStateException(path + ": ClockBound segment version changed to " + version
                        + (version == 0 ? " (daemon restarting, not initialised)" : ", expected " + VERSION));
            }
            into.asOfSec = asOfSec;
            into.asOfNsec = asOfNsec;
            into.voidAfterSec = voidSec;
            into.voidAfterNsec = voidNsec;
            into.boundNsec = bound;
            into.disruptionMarker = marker;
            into.maxDriftPpb = drift;
            into.clockStatus = status;
            into.disruptionSupport = support;
            return;
        }
    }

    private IllegalStateException notSettled(MemorySegment s, int attempts) {
        int gen = Seqcount.begin16(s, OFF_GENERATION);
        return new IllegalStateException(path + ": ClockBound segment generation " + (gen == 0
                ? "never settled within " + Seqcount.SETTLE_BUDGET_NANOS / 1_000_000 + " ms (" + attempts
                + " reads; now 0, not initialised)" : Seqcount.notSettled(attempts, gen)));
    }

    /** Applies the protocol's rules to the snapshot in {@code into} at (real, mono). */
    static TimeBounds compute(TimeBounds into, long real, long mono, Path path) {
        if (into.maxDriftPpb >= NANOS_PER_SECOND) {
            throw new IllegalStateException(path + ": malformed ClockBound segment: max_drift_ppb "
                    + into.maxDriftPpb + " >= 10^9");
        }
        long asOf = into.asOfSec * NANOS_PER_SECOND + into.asOfNsec;
        long voidAfter = into.voidAfterSec * NANOS_PER_SECOND + into.voidAfterNsec;
        if (mono < asOf - CAUSALITY_BLUR_NANOS) {
            throw new IllegalStateException(path + ": ClockBound causality breach: CLOCK_MONOTONIC_COARSE "
                    + mono + " ns is before the segment's as_of " + asOf + " ns");
        }
        long elapsed = Math.max(0, mono - asOf); // within the blur: counts as no time elapsed
        // Drift growth, exact in integers: elapsed_s * ppb, split so neither product overflows
        // (drift < 10^9, remainder < 10^9).
        long growth = (elapsed / NANOS_PER_SECOND) * into.maxDriftPpb
                + (elapsed % NANOS_PER_SECOND) * into.maxDriftPpb / NANOS_PER_SECOND;
        long bound = into.boundNsec + growth;
        into.nanos = real;
        into.earliest = real - bound;
        into.latest = real + bound;
        into.status = switch (into.clockStatus) {
            case 1, 2 -> mono < asOf + GRACE_PERIOD_NANOS
                    ? (into.clockStatus == 1 ? TimeBounds.Status.SYNCHRONIZED : TimeBounds.Status.FREE_RUNNING)
                    : mono < voidAfter ? TimeBounds.Status.FREE_RUNNING : TimeBounds.Status.UNKNOWN;
            case 3 -> TimeBounds.Status.DISRUPTED;
            default -> TimeBounds.Status.UNKNOWN;
        };
        return into;
    }

    /** Unmaps the segment (and the VMClock page, if it was opened). */
    @Override
    public synchronized void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
        if (vmclock != null) {
            vmclock.close();
        }
    }
}
