package org.timekeeping4j.device;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.linux.DeviceIo;
import org.timekeeping4j.linux.DeviceSyscalls;
import org.timekeeping4j.linux.Errno;

/**
 * A PTP hardware clock (/dev/ptpN), open for reading: its time through clock_gettime on the dynamic clock
 * id, its capabilities, and its offset against a system clock the way linuxptp's phc2sys measures it.
 *
 * <p><b>Offset methods.</b> {@link #offset(ClockId, int)} tries, in order, PTP_SYS_OFFSET_PRECISE (a
 * hardware cross timestamp, REALTIME or MONOTONIC_RAW only), PTP_SYS_OFFSET_EXTENDED (the driver reads the
 * system clock right around the PHC read; a clock other than REALTIME needs Linux 6.12+), PTP_SYS_OFFSET
 * (REALTIME only; the kernel reads the system clock between PHC reads) and finally clock_gettime triplets
 * (system, PHC, system) from user space. Each ioctl is retried three times on EBUSY. A method the device
 * refuses (EOPNOTSUPP, ENOTTY, or EINVAL for EXTENDED with a non-REALTIME clock on a kernel older than
 * 6.12) is remembered and skipped by later calls.
 *
 * <p><b>Assumptions and guarantees.</b> One thread at a time: the instance owns a native scratch buffer.
 * {@link #close()} closes the descriptor; afterwards every method throws {@link IllegalStateException}.
 */
public final class PtpClock implements AutoCloseable {

    /** How an offset was measured, best first. */
    public enum Method {
        /** PTP_SYS_OFFSET_PRECISE: a cross timestamp taken by the hardware; delay 0. */
        PRECISE,
        /** PTP_SYS_OFFSET_EXTENDED: system clock read by the driver right before and after the PHC. */
        EXTENDED,
        /** PTP_SYS_OFFSET: system clock read by the kernel between PHC reads. */
        BASIC,
        /** clock_gettime(system), clock_gettime(PHC), clock_gettime(system) from user space. */
        CLOCK_GETTIME
    }

    /** Samples per offset measurement when none is given (phc2sys -N default). */
    public static final int DEFAULT_SAMPLES = 5;
    /** Most samples the kernel takes in one call (PTP_MAX_SAMPLES). */
    public static final int MAX_SAMPLES = Abi.Ptp.MAX_SAMPLES;

    private static final int EBUSY_TRIES = 3;
    private static final int ANY_CLOCK = -1;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final DeviceHandle<PtpCapabilities> device;
    private final DynamicClockId clockId;
    /** Scratch large enough for the biggest request struct (ptp_sys_offset_extended, 1216 bytes). */
    private final MemorySegment scratch;
    private final MemorySegment timespec;
    /** Refusals as {@code method << 32 | clockId}; clock id {@link #ANY_CLOCK} for a device-wide refusal. */
    private final Set<Long> refused = new HashSet<>();

    private PtpClock(DeviceHandle<PtpCapabilities> device) {
        this.device = device;
        this.clockId = new DynamicClockId(device.fd);
        this.scratch = device.arena.allocate(Abi.Ptp.SYS_OFFSET_EXTENDED.byteSize(), 8);
        this.timespec = device.arena.allocate(16, 8);
    }

    /**
     * Opens {@code device} read-only: enough for reading time, capabilities and offsets.
     *
     * @param device a PTP hardware clock, e.g. {@code /dev/ptp0}
     * @return the open clock; close it
     * @throws DeviceException naming the path and errno: ENOENT for a missing device, EACCES without
     *                         permission, ENOTTY for a file that is no PTP clock
     */
    public static PtpClock open(Path device) throws DeviceException {
        return open(device, false);
    }

    /**
     * Opens {@code device}, read-write where {@code writable}: the kernel lets only a writable descriptor's
     * {@link #clockId()} be set or steered (clock_settime, clock_adjtime), which this class itself never does.
     *
     * @param device   a PTP hardware clock, e.g. {@code /dev/ptp0}
     * @param writable whether to open read-write
     * @return the open clock; close it
     * @throws DeviceException naming the path and errno: ENOENT for a missing device, EACCES without
     *                         permission, ENOTTY for a file that is no PTP clock
     */
    public static PtpClock open(Path device, boolean writable) throws DeviceException {
        return open(device, writable, DeviceSyscalls.inUse());
    }

    /** {@link #open(Path, boolean)} through {@code sys}: the real system calls, or a test's kernel. */
    static PtpClock open(Path device, boolean writable, DeviceSyscalls sys) throws DeviceException {
        int flags = (writable ? DeviceIo.O_RDWR : DeviceIo.O_RDONLY) | DeviceIo.O_CLOEXEC;
        return new PtpClock(DeviceHandle.open(device, flags, sys, "PTP clock", Abi.Ptp.CLOCK_GETCAPS, Abi.Ptp.CAPS,
                "not a PTP hardware clock", "PTP_CLOCK_GETCAPS failed",
                caps -> new PtpCapabilities(
                        caps.get(JAVA_INT, 0), caps.get(JAVA_INT, 4), caps.get(JAVA_INT, 8), caps.get(JAVA_INT, 12),
                        caps.get(JAVA_INT, 16) != 0, caps.get(JAVA_INT, 20), caps.get(JAVA_INT, 24) != 0,
                        caps.get(JAVA_INT, 28) != 0, caps.get(JAVA_INT, 32))));
    }

    /**
     * This PHC read at counter speed: a {@link FastPtpClock} over a second descriptor of this device, owned by the
     * returned clock and its discipline thread (this clock stays the caller's). The first cross timestamp is taken
     * before it returns.
     *
     * @return the counter-speed clock; close it
     * @throws DeviceException        if the device cannot be opened again
     * @throws IllegalStateException  if this clock is closed, or the first cross timestamp fails (naming the errno)
     */
    public FastPtpClock fast() throws DeviceException {
        device.ensureOpen();
        return FastPtpClock.start(open(device.path, false, device.sys));
    }

    /** {@return the device path} */
    public Path path() {
        return device.path;
    }

    /**
     * The kernel's clock id of this PHC, FD_TO_CLOCKID of its descriptor: what clock_gettime and clock_getres
     * take, and on a {@linkplain #open(Path, boolean) writable} open clock_settime and clock_adjtime. Valid until
     * {@link #close()}.
     *
     * @return the dynamic clock id, a negative clockid_t
     */
    public int clockId() {
        device.ensureOpen();
        return clockId.id();
    }

    /** {@return the capabilities read once at open} */
    public PtpCapabilities capabilities() {
        return device.capabilities();
    }

    /**
     * The methods refused by this device for {@code systemClock}, as remembered so far.
     *
     * @param systemClock the system clock the offsets were measured against
     * @return the refused methods, a new set
     */
    public Set<Method> refusedMethods(ClockId systemClock) {
        Set<Method> s = EnumSet.noneOf(Method.class);
        for (Method m : Method.values()) {
            if (isRefused(m, systemClock)) {
                s.add(m);
            }
        }
        return s;
    }

    /**
     * The PHC's time in nanoseconds (clock_gettime on the dynamic id). Allocates nothing.
     *
     * @return the PHC's time, ns
     * @throws IllegalStateException if the clock cannot be read (e.g. the device went away), with the errno
     */
    public long nanos() {
        device.ensureOpen();
        return read(clockId.id(), "clock_gettime on the PHC");
    }

    /** {@return {@link #offset(ClockId, int)} against CLOCK_REALTIME with {@link #DEFAULT_SAMPLES} samples} */
    public PtpOffset offset() {
        return offset(ClockId.REALTIME, DEFAULT_SAMPLES);
    }

    /**
     * Measures the offset of {@code systemClock} against this PHC, taking {@code samples} samples and
     * keeping the one with the shortest delay.
     *
     * @param systemClock the system clock to compare
     * @param samples     how many samples to take, 1..25
     * @return the offset of the best sample, with the method that measured it
     * @throws IllegalArgumentException for samples outside 1..25
     * @throws IllegalStateException    for a failure other than a refusal (e.g. ENODEV), naming path and errno
     */
    public PtpOffset offset(ClockId systemClock, int samples) {
        device.ensureOpen();
        if (samples < 1 || samples > MAX_SAMPLES) {
            throw new IllegalArgumentException("samples must be 1.." + MAX_SAMPLES + ", got " + samples);
        }
        PtpOffset result;
        if ((systemClock == ClockId.REALTIME || systemClock == ClockId.MONOTONIC_RAW)
                && (result = precise(systemClock, samples)) != null) {
            return result;
        }
        if ((result = extended(systemClock, samples)) != null) {
            return result;
        }
        if (systemClock == ClockId.REALTIME && (result = basic(samples)) != null) {
            return result;
        }
        return triplets(systemClock, samples);
    }

    private PtpOffset precise(ClockId systemClock, int samples) {
        if (!ioctl(Method.PRECISE, systemClock, Abi.Ptp.SYS_OFFSET_PRECISE_REQ,
                Abi.Ptp.SYS_OFFSET_PRECISE.byteSize())) {
            return null;
        }
        long phc = time(scratch, Abi.Ptp.PRECISE_DEVICE);
        long system = time(scratch, systemClock == ClockId.REALTIME ? Abi.Ptp.PRECISE_REALTIME
                : Abi.Ptp.PRECISE_MONORAW);
        return new PtpOffset(Method.PRECISE, systemClock, system - phc, 0, phc, system, 1);
    }

    private PtpOffset extended(ClockId systemClock, int samples) {
        if (isRefused(Method.EXTENDED, systemClock)) {
            return null;
        }
        scratch.asSlice(0, Abi.Ptp.SYS_OFFSET_EXTENDED.byteSize()).fill((byte) 0);
        scratch.set(JAVA_INT, Abi.Ptp.EXTENDED_N_SAMPLES, samples);
        scratch.set(JAVA_INT, Abi.Ptp.EXTENDED_CLOCKID, systemClock.id());
        if (!ioctl(Method.EXTENDED, systemClock, Abi.Ptp.SYS_OFFSET_EXTENDED_REQ, -1)) {
            return null;
        }
        // The kernel may take fewer samples than asked (n_samples is written back).
        int taken = Math.min(Math.max(scratch.get(JAVA_INT, Abi.Ptp.EXTENDED_N_SAMPLES), 1), samples);
        Best best = new Best();
        for (int i = 0; i < taken; i++) {
            best.offer(time(scratch, Abi.Ptp.extendedTime(i, 0)), time(scratch, Abi.Ptp.extendedTime(i, 1)),
                    time(scratch, Abi.Ptp.extendedTime(i, 2)));
        }
        return best.result(Method.EXTENDED, systemClock, taken);
    }

    private PtpOffset basic(int samples) {
        if (isRefused(Method.BASIC, ClockId.REALTIME)) {
            return null;
        }
        scratch.asSlice(0, Abi.Ptp.SYS_OFFSET.byteSize()).fill((byte) 0);
        scratch.set(JAVA_INT, Abi.Ptp.SYS_OFFSET_N_SAMPLES, samples);
        if (!ioctl(Method.BASIC, ClockId.REALTIME, Abi.Ptp.SYS_OFFSET_REQ, -1)) {
            return null;
        }
        Best best = new Best();
        for (int i = 0; i < samples; i++) {
            best.offer(time(scratch, Abi.Ptp.basicTime(2 * i)), time(scratch, Abi.Ptp.basicTime(2 * i + 1)),
                    time(scratch, Abi.Ptp.basicTime(2 * i + 2)));
        }
        return best.result(Method.BASIC, ClockId.REALTIME, samples);
    }

    private PtpOffset triplets(ClockId systemClock, int samples) {
        Best best = new Best();
        for (int i = 0; i < samples; i++) {
            long pre = read(systemClock.id(), "clock_gettime(" + systemClock.kernelName() + ")");
            long phc = read(clockId.id(), "clock_gettime on the PHC");
            long post = read(systemClock.id(), "clock_gettime(" + systemClock.kernelName() + ")");
            best.offer(pre, phc, post);
        }
        return best.result(Method.CLOCK_GETTIME, systemClock, samples);
    }

    /**
     * Issues one offset ioctl on {@link #scratch}, retrying EBUSY. True when it served; false when the
     * device refused it (remembered) or stayed busy (not remembered).
     *
     * @param clearSize bytes of {@link #scratch} to zero before each try, or -1 to keep the caller's request
     */
    private boolean ioctl(Method method, ClockId systemClock, long request, long clearSize) {
        if (isRefused(method, systemClock)) {
            return false;
        }
        for (int attempt = 0; attempt < EBUSY_TRIES; attempt++) {
            if (clearSize > 0) {
                scratch.asSlice(0, clearSize).fill((byte) 0);
            }
            int rc = device.sys.ioctl(device.fd, request, scratch);
            if (rc >= 0) {
                return true;
            }
            int errno = -rc;
            if (errno == Errno.EBUSY) {
                continue;
            }
            if (errno == Errno.EOPNOTSUPP || errno == Errno.ENOTTY) {
                refused.add(key(method, ANY_CLOCK)); // the driver lacks the method altogether
                return false;
            }
            if (errno == Errno.EINVAL && method == Method.EXTENDED && systemClock != ClockId.REALTIME) {
                refused.add(key(method, systemClock.id())); // a kernel before 6.12: rsv[0] must be 0
                return false;
            }
            throw new IllegalStateException(new DeviceException(device.path,
                    "PTP_SYS_OFFSET_" + method + " failed", errno).getMessage());
        }
        return false;
    }

    private long read(int id, String what) {
        int rc = device.sys.clockGettime(id, timespec);
        if (rc < 0) {
            throw new IllegalStateException(new DeviceException(device.path, what + " failed", -rc).getMessage());
        }
        return timespec.get(JAVA_LONG, 0) * NANOS_PER_SECOND + timespec.get(JAVA_LONG, 8);
    }

    private static long time(MemorySegment s, long offset) {
        return s.get(JAVA_LONG, offset + Abi.Ptp.TIME_SEC) * NANOS_PER_SECOND
                + Integer.toUnsignedLong(s.get(JAVA_INT, offset + Abi.Ptp.TIME_NSEC));
    }

    /** Skips {@code m} from now on, as if the driver had refused it: the lab's way to take EXTENDED on a PRECISE PHC. */
    void refuse(Method m) {
        refused.add(key(m, ANY_CLOCK));
    }

    private boolean isRefused(Method m, ClockId c) {
        return refused.contains(key(m, ANY_CLOCK)) || refused.contains(key(m, c.id()));
    }

    private static long key(Method m, int clockId) {
        return ((long) m.ordinal() << 32) | (clockId & 0xFFFFFFFFL);
    }

    /** Closes the descriptor (once; later calls do nothing). */
    @Override
    public void close() {
        device.close();
    }

    /** The minimum-delay sample seen so far. */
    private static final class Best {
        long delay = Long.MAX_VALUE;
        long offset;
        long phc;
        long mid;

        void offer(long pre, long phc, long post) {
            long d = post - pre;
            if (d < delay) {
                delay = d;
                mid = pre + d / 2; // (pre + post) / 2 without overflow
                offset = mid - phc;
                this.phc = phc;
            }
        }

        PtpOffset result(Method method, ClockId clock, int samples) {
            return new PtpOffset(method, clock, offset, delay, phc, mid, samples);
        }
    }
}
