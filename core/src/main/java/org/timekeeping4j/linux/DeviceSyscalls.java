package org.timekeeping4j.linux;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The system calls the device classes (a PTP clock, a PPS source) make, as one replaceable boundary: the real
 * implementation calls libc through FFM ({@link #linux()}); a test (or a simulator) implements the same four calls
 * and writes into the same {@link MemorySegment} struct layouts the kernel would.
 *
 * <p>The device classes take their system calls from {@link #inUse()}: the real ones, unless a test put a
 * simulated kernel there with {@link #use} (the CLI's tests do, to run the device commands without the hardware).
 *
 * <p>The real implementation refuses a segment smaller than what the kernel writes into it (the struct timespec,
 * an ioctl request's encoded size), so it writes nowhere but into memory the caller owns.
 *
 * <p>Every method follows the kernel's convention: a non-negative result on success, {@code -errno} on
 * failure. Nothing here throws for a refused call.
 */
public interface DeviceSyscalls {

    /**
     * open(2).
     *
     * @param path  the file to open
     * @param flags O_* values ({@link DeviceIo})
     * @return the new file descriptor, or -errno
     */
    int open(String path, int flags);

    /**
     * close(2).
     *
     * @param fd the descriptor to close
     * @return 0, or -errno
     */
    int close(int fd);

    /**
     * ioctl(2) with a pointer argument.
     *
     * @param fd      an open descriptor
     * @param request the request number (its size and direction encoded as the kernel's _IOC does)
     * @param arg     the struct the request reads or writes
     * @return the non-negative result, or -errno
     */
    int ioctl(int fd, long request, MemorySegment arg);

    /**
     * clock_gettime(2).
     *
     * @param clockId  a clockid_t, fixed or dynamic
     * @param timespec a 16-byte struct timespec the kernel fills
     * @return 0, or -errno
     */
    int clockGettime(int clockId, MemorySegment timespec);

    /** {@return the real system calls, through libc} */
    static DeviceSyscalls linux() {
        return LinuxDeviceSyscalls.INSTANCE;
    }

    /** {@return the system calls a device opened now makes: {@link #linux()}, unless {@link #use} replaced it} */
    static DeviceSyscalls inUse() {
        return LinuxDeviceSyscalls.inUse;
    }

    /**
     * Makes every device opened from now on use {@code syscalls} (a device already open keeps its own). Tests put
     * a simulated kernel here and {@link #linux()} back afterwards.
     *
     * @param syscalls the system calls to use
     */
    static void use(DeviceSyscalls syscalls) {
        LinuxDeviceSyscalls.inUse = Objects.requireNonNull(syscalls, "syscalls");
    }
}

/** {@link DeviceSyscalls} through {@link DeviceIo}: the real kernel. */
final class LinuxDeviceSyscalls implements DeviceSyscalls {
    static final LinuxDeviceSyscalls INSTANCE = new LinuxDeviceSyscalls();

    // Written only by tests, between commands; volatile so a thread opening a device sees the current one.
    static volatile DeviceSyscalls inUse = INSTANCE;

    private LinuxDeviceSyscalls() {}

    @Override
    public int open(String path, int flags) {
        return DeviceIo.open(path, flags);
    }

    @Override
    public int close(int fd) {
        return DeviceIo.close(fd);
    }

    // The checks below keep this public door from being a raw write: a caller without native access can make
    // only zero-length segments at an address it picks (MemorySegment.ofAddress), and the kernel would write
    // through them. A request must say its size (_IOC_SIZE, as every PTP and PPS request does) and the segment
    // must hold it.

    @Override
    public int ioctl(int fd, long request, MemorySegment arg) {
        long size = (request >>> 16) & 0x3fff; // _IOC_SIZE
        if (size == 0 || arg.byteSize() < size) {
            throw new IllegalArgumentException(String.format(
                    "ioctl request 0x%x needs a segment of its encoded size (%d bytes), got %d", request, size,
                    arg.byteSize()));
        }
        return DeviceIo.ioctl(fd, request, arg);
    }

    @Override
    public int clockGettime(int clockId, MemorySegment timespec) {
        if (timespec.byteSize() < 16) {
            throw new IllegalArgumentException("clock_gettime needs a 16-byte struct timespec, got "
                    + timespec.byteSize() + " bytes");
        }
        return DeviceIo.clockGettime(clockId, timespec);
    }
}
