package org.timekeeping4j.device;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.timekeeping4j.device.VmClockLayout.*;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.SyncStatus;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.disruption.Disruptions;
import org.timekeeping4j.linux.DeviceIo;
import org.timekeeping4j.linux.DeviceSyscalls;
import org.timekeeping4j.linux.Errno;
import org.timekeeping4j.linux.ErrnoException;
import org.timekeeping4j.linux.Seqcount;

/**
 * A VMClock page (Linux {@code include/uapi/linux/vmclock-abi.h}, UAPI.13): the hypervisor's statement of how the
 * guest's counter relates to real time, with error bounds, and of when that relation was disrupted (live
 * migration, snapshot restore). Mapped read-only from {@code /dev/vmclockN} (driver ptp_vmclock, Linux 6.13+) or
 * from any file holding such a page (test rigs and tools write them).
 *
 * <p><b>Reading (seqlock, as the driver).</b> The hypervisor makes seq_count odd, writes, makes it even again.
 * A read ({@link Seqcount}, the library's one seqlock reader) loads seq_count, copies the fields and retries while
 * seq_count was odd or changed; after {@link Seqcount#SETTLE_BUDGET_NANOS} (100 ms, the driver's VMCLOCK_MAX_WAIT)
 * and {@link Seqcount#MIN_READS} attempts it gives up with one line, as the driver does.
 *
 * <p><b>Time</b> ({@link #now(TimeBounds, ClockId)}): served where counter_id is this architecture's counter
 * (X86_TSC on x86_64, ARM_VCNT on aarch64), clock_status SYNCHRONIZED or FREERUNNING and time_type UTC or TAI:
 * one ordered counter read inside the seqlock, the page's formula ({@link VmClockFormula}), no system call, no
 * allocation. The error bound is time_maxerror_nanosec plus |delta| times the period's maximum error rate, only
 * where both flags say those are valid; otherwise the interval is unbounded. Between UTC and TAI the page's
 * tai_offset_sec is used only with TAI_OFFSET_VALID and with its sign learned from adjtimex's TAI offset (the
 * spec, the drivers and ClockBound disagree on it), never assumed. Anything else is refused, the reason named.
 *
 * <p><b>Disruptions.</b> {@link #disruptedSince} compares a point the caller holds (disruption_marker and, where
 * the flags say it exists, vm_generation_counter) with the page: one seqlocked read, nothing allocated, no thread.
 * {@link #awaitChange} blocks in poll(2) where the driver offers notifications (Linux 7.0+, NOTIFICATION_PRESENT).
 * Every read that sees a marker or generation other than the one this page last showed notes a disruption for the
 * process: from then on, conversions of earlier {@code Clocks.ticks()} values (EventRecorder exports, snapshots)
 * are flagged not exact.
 *
 * <p>Thread-safe, except {@link #close()}: no thread may be reading or waiting then.
 */
public final class VmClock implements BoundedClock {

    /** The first VMClock device the driver registers. */
    public static final Path DEFAULT_PATH = Path.of("/dev/vmclock0");

    /** Flag bit 0: tai_offset_sec is valid. */
    public static final long FLAG_TAI_OFFSET_VALID = 1L;
    /** Flag bit 1: a disruption (migration) is expected soon. */
    public static final long FLAG_DISRUPTION_SOON = 1L << 1;
    /** Flag bit 2: a disruption is imminent. */
    public static final long FLAG_DISRUPTION_IMMINENT = 1L << 2;
    /** Flag bit 3: counter_period_esterror_rate_frac_sec is valid. */
    public static final long FLAG_PERIOD_ESTERROR_VALID = 1L << 3;
    /** Flag bit 4: counter_period_maxerror_rate_frac_sec is valid. */
    public static final long FLAG_PERIOD_MAXERROR_VALID = 1L << 4;
    /** Flag bit 5: time_esterror_nanosec is valid. */
    public static final long FLAG_TIME_ESTERROR_VALID = 1L << 5;
    /** Flag bit 6: time_maxerror_nanosec is valid. */
    public static final long FLAG_TIME_MAXERROR_VALID = 1L << 6;
    /** Flag bit 7: the time is monotonic across updates. */
    public static final long FLAG_TIME_MONOTONIC = 1L << 7;
    /** Flag bit 8 (Linux 7.0+): vm_generation_counter is present. */
    public static final long FLAG_VM_GEN_COUNTER_PRESENT = 1L << 8;
    /** Flag bit 9 (Linux 7.0+): the hypervisor notifies changes (poll). */
    public static final long FLAG_NOTIFICATION_PRESENT = 1L << 9;


    private static final long MAX_SECONDS = Long.MAX_VALUE / 1_000_000_000L;


    /** This architecture's counter_id, or -1. */
    static final int COUNTER_HERE = VmClockCounter.COUNTER_HERE;

    private final Path path;
    /** The open device or file, its arena holding the mapping; null for a test's page. */
    private final DeviceHandle<Void> handle;
    private final MemorySegment page;
    /** The device's descriptor for poll and pread; -1 for a file (no notifications) or a test's page. */
    private final int fd;
    private final int size;
    /** struct pollfd, and a header-sized pread buffer that re-arms the driver's poll; in the arena. */
    private final MemorySegment pollfd;
    private final MemorySegment header;
    /** TAI - UTC = taiSign * tai_offset_sec; 0 until adjtimex has told the sign. */
    private volatile int taiSign;
    /**
     * The marker and generation this page last showed (generation 0 where absent); a read that sees others notes a
     * disruption. Volatile, written only on a change: two threads that both see it both note it, which is harmless.
     */
    private volatile long seenMarker;
    private volatile long seenGeneration;

    private VmClock(Path path, DeviceHandle<Void> handle, MemorySegment page, int fd, int size) {
        this.path = path;
        this.handle = handle;
        this.page = page;
        this.fd = fd;
        this.size = size;
        Arena arena = handle == null ? Arena.ofAuto() : handle.arena;
        this.pollfd = arena.allocate(8, 4);
        this.header = arena.allocate(HEADER_END, 8);
        pollfd.set(JAVA_INT, 0, fd);
        pollfd.set(JAVA_SHORT, 4, DeviceIo.POLLIN);
    }

    /**
     * A reader over {@code page}, a page a test writes as the driver does (the jcstress tests of the seqlock read):
     * no file, no header check, nothing to close.
     */
    static VmClock overPage(MemorySegment page) {
        return new VmClock(Path.of("(a test's page)"), null, page, -1, (int) page.byteSize());
    }

    /**
     * Maps the page at {@code path} read-only and checks its header.
     *
     * @param path {@link #DEFAULT_PATH}, another /dev/vmclockN, or a file holding a page
     * @return the open page; close it
     * @throws DeviceException one line naming the path: missing or unreadable (EACCES names the fix), not a
     *                         VMClock page (magic), another version, or a size that cannot hold the flags
     */
    public static VmClock open(Path path) throws DeviceException {
        if (Files.isDirectory(path)) { // it opens, and its mmap fails with ENODEV: say what it is instead
            throw new DeviceException(path, "a directory, not a VMClock page (give /dev/vmclock0 or a page file)");
        }
        DeviceHandle<Void> handle = DeviceHandle.open(path, DeviceIo.O_RDONLY | DeviceIo.O_CLOEXEC,
                DeviceSyscalls.inUse(), "VMClock page", "root-only by default: chmod a+r " + path + ", or run as root");
        boolean keep = false;
        try {
            boolean file = Files.isRegularFile(path);
            long fileSize = file ? Files.size(path) : MAP_LENGTH;
            if (fileSize < MIN_SIZE) {
                throw new DeviceException(path, "not a VMClock page (" + fileSize + " bytes, under " + MIN_SIZE + ")");
            }
            MemorySegment page;
            try {
                // A file shorter than the page: the bytes past its end read as zero (the same page), no SIGBUS.
                page = DeviceIo.mapReadOnlyShared(handle.fd, MAP_LENGTH, handle.arena);
            } catch (ErrnoException e) {
                throw new DeviceException(path, "mmap of one page, read-only, failed", e.errno());
            }
            int size = checkHeader(path, page, fileSize, file);
            VmClock clock = new VmClock(path, handle, page, file ? -1 : handle.fd, size);
            // The baseline, read before any observing read (which would take a first marker for a change):
            // plain aligned 8-byte loads, atomic on both architectures; a disruption racing the open is seen
            // by the reads after it or not at all, as one before the open.
            clock.seenMarker = page.get(JAVA_LONG, OFF_MARKER);
            clock.seenGeneration = clock.generationPresent(page.get(JAVA_LONG, OFF_FLAGS))
                    ? page.get(JAVA_LONG, OFF_VM_GENERATION) : 0;
            if (!file) {
                clock.rearm(); // the driver's first poll fires at once: read the page so it waits for a change
            }
            keep = true;
            return clock;
        } catch (DeviceException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new DeviceException(path, "cannot map the VMClock page: " + e.getMessage());
        } finally {
            if (!keep) {
                handle.close(); // the descriptor, and the mapping if there was one
            }
        }
    }

    private static int checkHeader(Path path, MemorySegment page, long fileSize, boolean file)
            throws DeviceException {
        int magic = page.get(JAVA_INT, OFF_MAGIC);
        if (magic != MAGIC) {
            throw new DeviceException(path, String.format(
                    "not a VMClock page (magic 0x%08X, not \"VCLK\")", magic));
        }
        int version = Short.toUnsignedInt(page.get(JAVA_SHORT, OFF_VERSION));
        if (version != VERSION) {
            throw new DeviceException(path, "unsupported VMClock version " + version + ", expected " + VERSION);
        }
        long size = Integer.toUnsignedLong(page.get(JAVA_INT, OFF_SIZE));
        if (size < MIN_SIZE || (file && size > Math.max(fileSize, MAP_LENGTH))) {
            throw new DeviceException(path, "malformed VMClock page: size " + size + ", expected at least "
                    + MIN_SIZE + (file ? " and at most " + Math.max(fileSize, MAP_LENGTH) : ""));
        }
        return (int) Math.min(size, Integer.MAX_VALUE);
    }

    /** {@return the page's path} */
    public Path path() {
        return path;
    }

    @Override
    public String description() {
        return "vmclock " + path;
    }

    /**
     * A consistent copy of every field (allocates; for tools, not for a hot path). Fields the page's size does
     * not reach read 0; vm_generation_counter reads 0 unless {@link VmClockPage#vmGenerationCounterPresent()}.
     *
     * @return the page now
     * @throws IllegalStateException if seq_count never settles
     */
    public VmClockPage page() {
        MemorySegment s = page;
        long giveUpAt = 0;
        for (int attempt = 0; ; attempt++) {
            giveUpAt = pace(attempt, giveUpAt);
            int seq = Seqcount.begin(s, OFF_SEQ); // pairs with the driver's write_seqcount_end
            if (Seqcount.writing(seq)) {
                Thread.onSpinWait();
                continue;
            }
            long flags = s.get(JAVA_LONG, OFF_FLAGS);
            VmClockPage p = new VmClockPage(size, Short.toUnsignedInt(s.get(JAVA_SHORT, OFF_VERSION)),
                    u8(s, OFF_COUNTER_ID),
                    u8(s, OFF_TIME_TYPE), seq, s.get(JAVA_LONG, OFF_MARKER), flags, u8(s, OFF_STATUS),
                    u8(s, OFF_SMEARING), s.get(JAVA_SHORT, OFF_TAI_OFFSET), u8(s, OFF_LEAP), u8(s, OFF_SHIFT),
                    field(s, OFF_COUNTER_VALUE), field(s, OFF_PERIOD), field(s, OFF_PERIOD_ESTERROR),
                    field(s, OFF_PERIOD_MAXERROR), field(s, OFF_TIME_SEC), field(s, OFF_TIME_FRAC),
                    field(s, OFF_TIME_ESTERROR), field(s, OFF_TIME_MAXERROR),
                    generationPresent(flags) ? s.get(JAVA_LONG, OFF_VM_GENERATION) : 0);
            if (!Seqcount.retry(s, OFF_SEQ, seq)) { // pairs with the driver's write_seqcount_begin
                observe(p.disruptionMarker(), p.vmGenerationCounter());
                return p;
            }
        }
    }

    /** {@return the mapped page, for {@link VmClockWatch}} */
    MemorySegment segment() {
        return page;
    }

    /** {@return the page's size as its header states it} */
    int size() {
        return size;
    }

    /**
     * Waits until the page's DISRUPTION_SOON / DISRUPTION_IMMINENT flags say otherwise than {@code seen}, looking at
     * the page every few ms; see {@link BoundedClock#awaitDisruption}.
     */
    @Override
    public TimeBounds.Disruption awaitDisruption(TimeBounds.Disruption seen, Duration timeout)
            throws InterruptedException {
        return new VmClockWatch(this).await(seen, timeout);
    }

    private long field(MemorySegment s, long offset) {
        return offset + 8 <= size ? s.get(JAVA_LONG, offset) : 0;
    }

    private static int u8(MemorySegment s, long offset) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, offset));
    }

    private boolean generationPresent(long flags) {
        return (flags & FLAG_VM_GEN_COUNTER_PRESENT) != 0 && size >= HEADER_END;
    }

    /** {@return the page's disruption_marker now: it changes, never to an earlier value, at each disruption} */
    public long disruptionMarker() {
        MemorySegment s = page;
        long giveUpAt = 0;
        for (int attempt = 0; ; attempt++) {
            giveUpAt = pace(attempt, giveUpAt);
            int seq = Seqcount.begin(s, OFF_SEQ); // as in page()
            long marker = s.get(JAVA_LONG, OFF_MARKER);
            if (!Seqcount.writing(seq) && !Seqcount.retry(s, OFF_SEQ, seq)) {
                observe(marker, seenGeneration);
                return marker;
            }
            Thread.onSpinWait();
        }
    }

    /** {@return vm_generation_counter now (changes at snapshot restore or cloning); 0 where the page has none} */
    public long vmGenerationCounter() {
        MemorySegment s = page;
        long giveUpAt = 0;
        for (int attempt = 0; ; attempt++) {
            giveUpAt = pace(attempt, giveUpAt);
            int seq = Seqcount.begin(s, OFF_SEQ); // as in page()
            long flags = s.get(JAVA_LONG, OFF_FLAGS);
            long generation = s.get(JAVA_LONG, OFF_VM_GENERATION);
            if (!Seqcount.writing(seq) && !Seqcount.retry(s, OFF_SEQ, seq)) {
                long g = generationPresent(flags) ? generation : 0;
                observe(seenMarker, g);
                return g;
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Whether the counter may have been disrupted since the point the caller took with
     * {@link #disruptionMarker()} and {@link #vmGenerationCounter()}: the marker differs, or the generation
     * differs where the page has one. One seqlocked read; allocates nothing. Two points taken while a disruption
     * lands between the two calls can report one disruption too many, never one too few.
     *
     * @param marker              the disruption_marker held
     * @param vmGenerationCounter the vm_generation_counter held (0 where the page has none)
     * @return true when disrupted since
     */
    public boolean disruptedSince(long marker, long vmGenerationCounter) {
        MemorySegment s = page;
        long giveUpAt = 0;
        for (int attempt = 0; ; attempt++) {
            giveUpAt = pace(attempt, giveUpAt);
            int seq = Seqcount.begin(s, OFF_SEQ); // as in page()
            long m = s.get(JAVA_LONG, OFF_MARKER);
            long flags = s.get(JAVA_LONG, OFF_FLAGS);
            long generation = s.get(JAVA_LONG, OFF_VM_GENERATION);
            if (!Seqcount.writing(seq) && !Seqcount.retry(s, OFF_SEQ, seq)) {
                observe(m, generationPresent(flags) ? generation : 0);
                return m != marker || (generationPresent(flags) && generation != vmGenerationCounter);
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Waits in poll(2) until the driver reports a change of the page (seq_count moved: a disruption, a
     * generation change, any update), then reads the page so the next wait waits for the next change.
     *
     * @param timeout how long to wait at most (rounded to ms, at most Integer.MAX_VALUE ms)
     * @return true when the page changed, false on timeout
     * @throws DeviceException when no notification can come, in one line: a file rather than the device, a page
     *                         without NOTIFICATION_PRESENT (the driver answers POLLHUP), a driver without poll
     *                         (before Linux 7.0), or poll's errno
     */
    public synchronized boolean awaitChange(Duration timeout) throws DeviceException {
        if (handle != null) {
            handle.ensureOpen();
        }
        if (fd < 0) {
            throw new DeviceException(path, "a file gives no notifications (only /dev/vmclockN does): compare "
                    + "disruptionMarker() instead");
        }
        if ((page().flags() & FLAG_NOTIFICATION_PRESENT) == 0) {
            throw noNotifications();
        }
        int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(0, timeout.toMillis()));
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (true) {
            int left = (int) Math.max(0, (deadline - System.nanoTime()) / 1_000_000L);
            int revents = DeviceIo.poll(pollfd, left);
            if (revents == -Errno.EINTR) {
                continue;
            }
            if (revents < 0) {
                throw new DeviceException(path, "poll failed", -revents);
            }
            if ((revents & DeviceIo.POLLHUP) != 0) {
                throw noNotifications();
            }
            if ((revents & POLLOUT) != 0) {
                // The 7.x driver never reports POLLOUT: this is the default mask of a driver without poll.
                throw new DeviceException(path, "this kernel's vmclock driver has no poll (Linux 7.0+ has): "
                        + "compare disruptionMarker() instead");
            }
            if (revents == 0) {
                return false;
            }
            rearm();
            return true;
        }
    }

    private static final short POLLOUT = 0x4;

    private DeviceException noNotifications() {
        return new DeviceException(path, "no notifications: the hypervisor does not set NOTIFICATION_PRESENT "
                + "(poll answers POLLHUP); compare disruptionMarker() instead");
    }

    /** Reads the header through the driver: what its poll compares seq_count with. */
    private void rearm() throws DeviceException {
        long n = DeviceIo.pread(fd, header, 0);
        if (n < 0) {
            throw new DeviceException(path, "read failed", (int) -n);
        }
    }

    /** The page's time now on CLOCK_REALTIME's scale (UTC); see {@link #now(TimeBounds, ClockId)}. */
    @Override
    public TimeBounds now(TimeBounds into) {
        return read(into, false, false, 0);
    }

    /**
     * Fills {@code into} with the page's time and error bound at one counter read: nanos, earliest and latest
     * (unbounded where the page publishes no valid maximum error), status SYNCHRONIZED or FREE_RUNNING, source
     * VMCLOCK and the disruption marker. No system call, no allocation (the first conversion between UTC and TAI
     * asks adjtimex once for the TAI offset's sign).
     *
     * @param into  the caller's holder, overwritten
     * @param scale {@link ClockId#REALTIME} (UTC) or {@link ClockId#TAI}
     * @return {@code into}
     * @throws IllegalStateException naming the reason when the page serves no time now (its clock_status, its
     *                               counter_id, its time_type, the TAI offset), or seq_count never settles
     * @throws IllegalArgumentException for another scale
     */
    public TimeBounds now(TimeBounds into, ClockId scale) {
        if (scale == ClockId.TAI) {
            return read(into, true, false, 0);
        }
        if (scale != ClockId.REALTIME) {
            throw new IllegalArgumentException("a VMClock page tells UTC (REALTIME) or TAI, not " + scale);
        }
        return read(into, false, false, 0);
    }

    /** {@link #now(TimeBounds, ClockId)} at a given counter value instead of one read now (tests). */
    TimeBounds nowAt(TimeBounds into, boolean tai, long counter) {
        return read(into, tai, true, counter);
    }

    private TimeBounds read(TimeBounds into, boolean tai, boolean given, long givenCounter) {
        MemorySegment s = page;
        long giveUpAt = 0;
        for (int attempt = 0; ; attempt++) {
            giveUpAt = pace(attempt, giveUpAt);
            // Acquire (Seqcount.begin): nothing below, the counter read included, is performed before it.
            int seq = Seqcount.begin(s, OFF_SEQ); // pairs with the driver's write_seqcount_end
            if (Seqcount.writing(seq)) {
                Thread.onSpinWait();
                continue;
            }
            // The ordered read (rdtscp, or lfence;rdtsc where ordered; isb;mrs) does not start before the loads above complete, so
            // the counter value belongs to the window this seq_count opens.
            long c = given ? givenCounter : VmClockCounter.read();
            int counterId = u8(s, OFF_COUNTER_ID);
            int timeType = u8(s, OFF_TIME_TYPE);
            int status = u8(s, OFF_STATUS);
            long flags = s.get(JAVA_LONG, OFF_FLAGS);
            short taiOffset = s.get(JAVA_SHORT, OFF_TAI_OFFSET);
            int shift = u8(s, OFF_SHIFT);
            long counterValue = s.get(JAVA_LONG, OFF_COUNTER_VALUE);
            long period = s.get(JAVA_LONG, OFF_PERIOD);
            long maxErrorRate = s.get(JAVA_LONG, OFF_PERIOD_MAXERROR);
            long timeSec = s.get(JAVA_LONG, OFF_TIME_SEC);
            long timeFrac = s.get(JAVA_LONG, OFF_TIME_FRAC);
            long maxError = s.get(JAVA_LONG, OFF_TIME_MAXERROR);
            long marker = s.get(JAVA_LONG, OFF_MARKER);
            long generation = s.get(JAVA_LONG, OFF_VM_GENERATION);
            if (Seqcount.retry(s, OFF_SEQ, seq)) { // pairs with the driver's write_seqcount_begin
                Thread.onSpinWait();
                continue;
            }
            observe(marker, generationPresent(flags) ? generation : 0);
            if (counterId != COUNTER_HERE || (status != STATUS_SYNCHRONIZED && status != STATUS_FREERUNNING)
                    || (timeType != TIME_UTC && timeType != TIME_TAI) || size < TIME_END || VmClockCounter.HANDLE == null) {
                throw refused(counterId, status, timeType);
            }
            long offsetSec = 0;
            if ((timeType == TIME_TAI) != tai) {
                int taiMinusUtc = taiMinusUtc(flags, taiOffset, tai);
                offsetSec = timeType == TIME_UTC ? taiMinusUtc : -taiMinusUtc;
            }
            VmClockFormula.time(into, c, counterValue, period, shift, timeSec, timeFrac);
            long sec = into.seconds + offsetSec;
            if (sec < 0 || sec >= MAX_SECONDS) {
                throw new IllegalStateException(path + ": VMClock time " + Long.toUnsignedString(into.seconds)
                        + " s is outside what nanoseconds since 1970 hold");
            }
            long nanos = sec * 1_000_000_000L + into.nanosOfSecond;
            long bound = (flags & (FLAG_TIME_MAXERROR_VALID | FLAG_PERIOD_MAXERROR_VALID))
                    == (FLAG_TIME_MAXERROR_VALID | FLAG_PERIOD_MAXERROR_VALID) && size >= OFF_TIME_MAXERROR + 8
                    ? VmClockFormula.maxError(c - counterValue, maxErrorRate, shift, maxError) : Long.MAX_VALUE;
            into.nanos = nanos;
            into.earliest = bound == Long.MAX_VALUE || nanos - bound > nanos ? Long.MIN_VALUE : nanos - bound;
            into.latest = bound == Long.MAX_VALUE || nanos + bound < nanos ? Long.MAX_VALUE : nanos + bound;
            into.status = status == STATUS_SYNCHRONIZED ? TimeBounds.Status.SYNCHRONIZED
                    : TimeBounds.Status.FREE_RUNNING;
            into.source = this;
            into.counter = c;
            into.disruptionMarker = marker;
            into.expectation = VmClockWatch.expectation(flags);
            return into;
        }
    }

    /** Notes a disruption for the process when the page shows another marker or generation than last time. */
    private void observe(long marker, long generation) {
        if (marker != seenMarker || generation != seenGeneration) {
            noteDisruption(marker, generation);
        }
    }

    /** Cold: the fence at the ticks now, which lie after the disruption; then the new baseline. */
    private void noteDisruption(long marker, long generation) {
        Disruptions.seen(Clocks.ticks());
        seenMarker = marker;
        seenGeneration = generation;
    }

    /** TAI - UTC from the page's tai_offset_sec, its sign learned once from adjtimex. */
    private int taiMinusUtc(long flags, short taiOffset, boolean tai) {
        if ((flags & FLAG_TAI_OFFSET_VALID) == 0) {
            throw new IllegalStateException(path + ": VMClock page tells " + (tai ? "UTC" : "TAI")
                    + " and its tai_offset_sec is not valid (TAI_OFFSET_VALID clear): no " + (tai ? "TAI" : "UTC"));
        }
        if (taiOffset == 0) {
            return 0;
        }
        int sign = taiSign;
        if (sign == 0) {
            sign = learnTaiSign(taiOffset);
        }
        return sign * taiOffset;
    }

    /** Cold: compares the page's tai_offset_sec with adjtimex's TAI - UTC; remembers the sign once told. */
    private int learnTaiSign(short taiOffset) {
        return learnTaiSign(taiOffset, SyncStatus.read());
    }

    /** As {@link #learnTaiSign(short)} with the kernel's answer given (tests). */
    int learnTaiSign(short taiOffset, SyncStatus sync) {
        int kernel = sync.isAvailable() ? sync.taiOffsetSeconds() : 0;
        if (kernel != 0 && kernel == taiOffset) {
            taiSign = 1;
            return 1;
        }
        if (kernel != 0 && kernel == -taiOffset) {
            taiSign = -1;
            return -1;
        }
        throw new IllegalStateException(path + ": cannot tell the sign of the VMClock page's tai_offset_sec "
                + taiOffset + ": adjtimex's TAI offset is " + (!sync.isAvailable() ? "unreadable ("
                + sync.availability() + ")" : kernel == 0 ? "0 (no daemon set it)" : kernel + ", which differs"));
    }

    private IllegalStateException refused(int counterId, int status, int timeType) {
        String why;
        if (VmClockCounter.HANDLE == null) {
            why = "the counter read is unavailable: " + VmClockCounter.STUB.failure();
        } else if (status != STATUS_SYNCHRONIZED && status != STATUS_FREERUNNING) {
            why = "clock_status " + VmClockLayout.name(STATUS_NAMES, status);
        } else if (counterId != COUNTER_HERE) {
            why = "counter_id " + VmClockLayout.name(COUNTER_NAMES, counterId) + " is not this machine's "
                    + (COUNTER_HERE < 0 ? "(none)" : VmClockLayout.name(COUNTER_NAMES, COUNTER_HERE));
        } else if (timeType != TIME_UTC && timeType != TIME_TAI) {
            why = "time_type " + VmClockLayout.name(TIME_TYPE_NAMES, timeType) + " is neither UTC nor TAI";
        } else {
            why = "size " + size + " ends before the time fields (" + TIME_END + " bytes)";
        }
        return new IllegalStateException(path + ": VMClock serves no time: " + why);
    }

    /** Spins, then yields and watches the budget; gives up as the driver does. Returns the deadline. */
    private long pace(int attempt, long giveUpAt) {
        long next = Seqcount.pace(attempt, giveUpAt);
        if (next == Seqcount.GIVE_UP) {
            throw new IllegalStateException(path + ": VMClock seq_count " + Seqcount.notSettled(attempt,
                    Integer.toUnsignedLong(Seqcount.begin(page, OFF_SEQ))));
        }
        return next;
    }

    /** Unmaps the page and closes the device. */
    @Override
    public synchronized void close() {
        if (handle != null) {
            handle.close();
        }
    }
}
