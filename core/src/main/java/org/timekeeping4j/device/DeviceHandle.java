package org.timekeeping4j.device;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.function.Function;
import org.timekeeping4j.linux.DeviceSyscalls;
import org.timekeeping4j.linux.Errno;

/**
 * The descriptor of an open device (a PPS source, a PTP clock, a VMClock page) with what its owner needs around
 * it: the capabilities one ioctl reported at open where the device has such an ioctl (the ioctl that proves the
 * file is the device it should be), a shared arena for the owner's buffers and mappings, and a close that runs
 * once, after which {@link #ensureOpen} refuses.
 *
 * <p>One thread at a time, as its owners.
 *
 * @param <C> the capabilities' type
 */
final class DeviceHandle<C> implements AutoCloseable {

    final Path path;
    final DeviceSyscalls sys;
    final int fd;
    /** Native memory for the owner's requests: freed by {@link #close}. */
    final Arena arena = Arena.ofShared();
    private final String kind;
    private final C capabilities;
    private boolean closed;

    private DeviceHandle(Path path, DeviceSyscalls sys, int fd, String kind, C capabilities) {
        this.path = path;
        this.sys = sys;
        this.fd = fd;
        this.kind = kind;
        this.capabilities = capabilities;
    }

    /**
     * Opens {@code device} with {@code flags} and asks its capabilities through {@code request}; the descriptor is
     * closed again on any failure.
     *
     * @param kind      what the device is, for messages: "PPS source"
     * @param notKind   the refusal's message when the file is not such a device: "not a PPS source"
     * @param failed    the message when the request fails otherwise: "PPS_GETCAP failed"
     * @param answer    the layout the kernel writes the capabilities into
     * @param read      the capabilities from the kernel's answer
     * @throws DeviceException naming the path and errno: ENOENT, EACCES, or ENOTTY/EINVAL for a file that is not
     *                         {@code kind}
     */
    static <C> DeviceHandle<C> open(Path device, int flags, DeviceSyscalls sys, String kind, long request,
                                    MemoryLayout answer, String notKind, String failed,
                                    Function<MemorySegment, C> read) throws DeviceException {
        int fd = sys.open(device.toString(), flags);
        if (fd < 0) {
            throw new DeviceException(device, "open failed", -fd);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment caps = a.allocate(answer);
            int rc = sys.ioctl(fd, request, caps);
            if (rc < 0) {
                sys.close(fd);
                if (-rc == Errno.ENOTTY || -rc == Errno.EINVAL) {
                    // "not a PTP hardware clock (PTP_CLOCK_GETCAPS: ENOTTY)": the refusal is the answer.
                    throw new DeviceException(device, -rc, notKind + " (" + failed.replace(" failed", "") + ": "
                            + Errno.describe(-rc).split(" ")[0] + ")");
                }
                throw new DeviceException(device, failed, -rc);
            }
            return new DeviceHandle<>(device, sys, fd, kind, read.apply(caps));
        } catch (RuntimeException e) {
            sys.close(fd);
            throw e;
        }
    }

    /**
     * Opens {@code device} with {@code flags}, for a device that has no capability ioctl (VMClock: its page's
     * header proves what it is, checked by the owner).
     *
     * @param kind       what the device is, for messages: "VMClock page"
     * @param accessHint what to do about EACCES (one clause), or null
     * @throws DeviceException naming the path and errno
     */
    static DeviceHandle<Void> open(Path device, int flags, DeviceSyscalls sys, String kind, String accessHint)
            throws DeviceException {
        int fd = sys.open(device.toString(), flags);
        if (fd < 0) {
            throw new DeviceException(device, -fd == Errno.EACCES && accessHint != null
                    ? "open failed (" + accessHint + ")" : "open failed", -fd);
        }
        return new DeviceHandle<>(device, sys, fd, kind, null);
    }

    /** {@return the capabilities read once at open} */
    C capabilities() {
        return capabilities;
    }

    /** @throws IllegalStateException once closed, naming the device */
    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(path + ": " + kind + " is closed");
        }
    }

    /** Closes the descriptor and frees the arena, once; later calls do nothing. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            sys.close(fd);
            arena.close();
        }
    }
}
