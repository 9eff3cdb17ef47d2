package org.timekeeping4j.device;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.timekeeping4j.linux.DeviceIo;
import org.timekeeping4j.linux.DeviceSyscalls;
import org.timekeeping4j.linux.Errno;

/**
 * A pulse-per-second source (/dev/ppsN, RFC 2783 over the Linux PPS ioctls), open read-only: its
 * capabilities and its events.
 *
 * <p><b>Fetching.</b> {@link #fetch(Duration)} with a positive timeout blocks in PPS_FETCH until the next
 * edge or the timeout (ETIMEDOUT, reported as empty); with {@link Duration#ZERO} the kernel returns the
 * latest event at once (polling, as chrony does). Either way an event whose sequence numbers were already
 * returned is dropped as a duplicate, and an event with no edge yet (both sequences 0) is ignored.
 * A signal interrupting the wait (EINTR) restarts it with the time left, unless the Java thread was
 * interrupted, which throws {@link InterruptedIOException}.
 *
 * <p><b>Assumptions and guarantees.</b> One thread at a time. Only PPS_SETPARAMS needs CAP_SYS_TIME; this
 * class never calls it.
 */
public final class PpsSource implements AutoCloseable {

    private final DeviceHandle<Integer> device;
    private final MemorySegment fdata;
    private long lastAssert = -1;
    private long lastClear = -1;

    private PpsSource(DeviceHandle<Integer> device) {
        this.device = device;
        this.fdata = device.arena.allocate(Abi.Pps.FDATA);
    }

    /**
     * Opens {@code device} read-only.
     *
     * @param device a PPS source, e.g. {@code /dev/pps0}
     * @return the open source; close it
     * @throws DeviceException naming the path and errno: ENOENT, EACCES, or ENOTTY for a file that is no
     *                         PPS source
     */
    public static PpsSource open(Path device) throws DeviceException {
        return open(device, DeviceSyscalls.inUse());
    }

    /** {@link #open(Path)} through {@code sys}: the real system calls, or a test's kernel. */
    static PpsSource open(Path device, DeviceSyscalls sys) throws DeviceException {
        // The kernel writes an int; the request encodes a pointer, so 8 bytes aligned to 8 (a long's layout).
        return new PpsSource(DeviceHandle.open(device, DeviceIo.O_RDONLY | DeviceIo.O_CLOEXEC, sys, "PPS source",
                Abi.Pps.GETCAP, JAVA_LONG, "not a PPS source", "PPS_GETCAP failed",
                mode -> mode.get(JAVA_INT, 0)));
    }

    /** {@return the device path} */
    public Path path() {
        return device.path;
    }

    /**
     * The capabilities PPS_GETCAP reported, read once at open: the PPS_* mode bits of include/uapi/linux/pps.h
     * (RFC 2783), e.g. 0x01 PPS_CAPTUREASSERT, 0x02 PPS_CAPTURECLEAR, 0x100 PPS_CANWAIT.
     *
     * @return the raw bits
     */
    public int capabilities() {
        return device.capabilities();
    }

    /**
     * The names of the set {@link #capabilities()} bits as pps.h spells them without {@code PPS_}, lowest bit
     * first: CAPTUREASSERT, CAPTURECLEAR, OFFSETASSERT, OFFSETCLEAR, ECHOASSERT, ECHOCLEAR, CANWAIT, CANPOLL,
     * TSFMT_TSPEC, TSFMT_NTPFP; a bit pps.h does not define as BIT_n.
     *
     * @return the names, a new list
     */
    public List<String> capabilityNames() {
        int bits = capabilities();
        List<String> names = new ArrayList<>();
        for (int bit = 0; bit < Integer.SIZE; bit++) {
            if ((bits & (1 << bit)) != 0) {
                String name = bit < Abi.Pps.MODE_NAMES.length ? Abi.Pps.MODE_NAMES[bit] : null;
                names.add(name != null ? name : "BIT_" + bit);
            }
        }
        return names;
    }

    /** {@return whether the source time-stamps assert edges (PPS_CAPTUREASSERT)} */
    public boolean canCaptureAssert() {
        return (capabilities() & Abi.Pps.CAPTURE_ASSERT) != 0;
    }

    /** {@return whether the source time-stamps clear edges (PPS_CAPTURECLEAR)} */
    public boolean canCaptureClear() {
        return (capabilities() & Abi.Pps.CAPTURE_CLEAR) != 0;
    }

    /** {@return whether {@link #fetch(Duration)} can block until the next event (PPS_CANWAIT)} */
    public boolean canWait() {
        return (capabilities() & Abi.Pps.CAN_WAIT) != 0;
    }

    /**
     * The next new event, waiting at most {@code timeout} ({@link Duration#ZERO}: return the latest event
     * without waiting).
     *
     * @param timeout how long to wait, not negative
     * @return the event, or empty when none came in time or the latest was already returned
     * @throws DeviceException         when PPS_FETCH fails otherwise (naming path and errno)
     * @throws InterruptedIOException  when the Java thread is interrupted during the wait
     * @throws IllegalArgumentException if {@code timeout} is negative
     */
    public Optional<PpsEvent> fetch(Duration timeout) throws DeviceException, InterruptedIOException {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative: " + timeout);
        }
        return fetch(timeout.toNanos(), false);
    }

    /**
     * The next new event, waiting without limit (the timeout's PPS_TIME_INVALID flag).
     *
     * @return the event
     * @throws DeviceException         when PPS_FETCH fails (naming path and errno)
     * @throws InterruptedIOException  when the Java thread is interrupted during the wait
     */
    public Optional<PpsEvent> fetchWithoutTimeout() throws DeviceException, InterruptedIOException {
        return fetch(0, true);
    }

    private Optional<PpsEvent> fetch(long timeoutNanos, boolean forever)
            throws DeviceException, InterruptedIOException {
        device.ensureOpen();
        long deadline = System.nanoTime() + timeoutNanos;
        long left = timeoutNanos;
        while (true) {
            fdata.fill((byte) 0);
            fdata.set(JAVA_LONG, Abi.Pps.TIMEOUT + Abi.Pps.KTIME_SEC, left / 1_000_000_000L);
            fdata.set(JAVA_INT, Abi.Pps.TIMEOUT + Abi.Pps.KTIME_NSEC, (int) (left % 1_000_000_000L));
            fdata.set(JAVA_INT, Abi.Pps.TIMEOUT + Abi.Pps.KTIME_FLAGS, forever ? Abi.Pps.TIME_INVALID : 0);
            int rc = device.sys.ioctl(device.fd, Abi.Pps.FETCH, fdata);
            if (rc >= 0) {
                return event();
            }
            int errno = -rc;
            if (errno == Errno.ETIMEDOUT) {
                return Optional.empty();
            }
            if (errno != Errno.EINTR) {
                throw new DeviceException(device.path, "PPS_FETCH failed", errno);
            }
            // EINTR: a signal ended the wait early.
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedIOException(device.path + ": interrupted while waiting for a PPS event");
            }
            if (!forever && timeoutNanos > 0) {
                left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
            }
        }
    }

    private Optional<PpsEvent> event() {
        long a = Integer.toUnsignedLong(fdata.get(JAVA_INT, Abi.Pps.ASSERT_SEQUENCE));
        long c = Integer.toUnsignedLong(fdata.get(JAVA_INT, Abi.Pps.CLEAR_SEQUENCE));
        if ((a == 0 && c == 0) || (a == lastAssert && c == lastClear)) {
            return Optional.empty(); // no edge yet, or a duplicate of the last event returned
        }
        lastAssert = a;
        lastClear = c;
        return Optional.of(new PpsEvent(
                a, fdata.get(JAVA_LONG, Abi.Pps.ASSERT_TU + Abi.Pps.KTIME_SEC),
                fdata.get(JAVA_INT, Abi.Pps.ASSERT_TU + Abi.Pps.KTIME_NSEC),
                c, fdata.get(JAVA_LONG, Abi.Pps.CLEAR_TU + Abi.Pps.KTIME_SEC),
                fdata.get(JAVA_INT, Abi.Pps.CLEAR_TU + Abi.Pps.KTIME_NSEC),
                fdata.get(JAVA_INT, Abi.Pps.CURRENT_MODE)));
    }

    @Override
    public void close() {
        device.close();
    }
}
