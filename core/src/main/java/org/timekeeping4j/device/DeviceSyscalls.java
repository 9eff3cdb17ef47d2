package org.timekeeping4j.device;

import java.lang.foreign.MemorySegment;
import org.timekeeping4j.linux.DeviceIo;

/**
 * The system calls the device classes make, as one replaceable boundary: the real implementation calls
 * libc through FFM ({@link #linux()}); a test (or a simulator) implements the same four calls and writes
 * into the same {@link MemorySegment} struct layouts the kernel would.
 *
 * <p>Every method follows the kernel's convention: a non-negative result on success, {@code -errno} on
 * failure. Nothing here throws for a refused call.
 */
public interface DeviceSyscalls {

    /** open(2): the new file descriptor, or -errno. {@code flags} are O_* values ({@link DeviceIo}). */
    int open(String path, int flags);

    /** close(2): 0, or -errno. */
    int close(int fd);

    /** ioctl(2) with a pointer argument: the non-negative result, or -errno. */
    int ioctl(int fd, long request, MemorySegment arg);

    /** clock_gettime(2) into a 16-byte struct timespec: 0, or -errno. */
    int clockGettime(int clockId, MemorySegment timespec);

    /** The real system calls, through libc. */
    static DeviceSyscalls linux() {
        return LinuxDeviceSyscalls.INSTANCE;
    }
}

/** {@link DeviceSyscalls} through {@link DeviceIo}: the real kernel. */
final class LinuxDeviceSyscalls implements DeviceSyscalls {
    static final LinuxDeviceSyscalls INSTANCE = new LinuxDeviceSyscalls();

    private LinuxDeviceSyscalls() {}

    @Override
    public int open(String path, int flags) {
        return DeviceIo.open(path, flags);
    }

    @Override
    public int close(int fd) {
        return DeviceIo.close(fd);
    }

    @Override
    public int ioctl(int fd, long request, MemorySegment arg) {
        return DeviceIo.ioctl(fd, request, arg);
    }

    @Override
    public int clockGettime(int clockId, MemorySegment timespec) {
        return DeviceIo.clockGettime(clockId, timespec);
    }
}
