package org.timekeeping4j.linux;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Raw layer for character devices (/dev/ptpN, /dev/ppsN): open, close and ioctl with errno captured,
 * plus clock_gettime in the same style. Every method returns what the kernel returns, with a failure
 * as {@code -errno} (the kernel's own convention), so callers branch on an int and nothing allocates.
 *
 * <p>None of these handles is a critical downcall: PPS_FETCH blocks, and open may sleep.
 */
public final class DeviceIo {

    /** O_RDONLY (asm-generic/fcntl.h; the same on x86_64 and aarch64). */
    public static final int O_RDONLY = 0;
    /** O_RDWR. */
    public static final int O_RDWR = 2;
    /** O_CLOEXEC = 02000000 octal on x86_64 and aarch64. */
    public static final int O_CLOEXEC = 0x80000;

    private static final Linker.Option ERRNO_OPTION = Linker.Option.captureCallState("errno");

    /** int open(const char *path, int flags, ...): man 2 open. Called without the optional mode argument. */
    private static final MethodHandle OPEN_ERRNO =
            handle("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), ERRNO_OPTION);

    /** int close(int fd): man 2 close. */
    private static final MethodHandle CLOSE_ERRNO =
            handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), ERRNO_OPTION);

    /**
     * int ioctl(int fd, unsigned long request, ...): man 2 ioctl. Variadic in C: the third argument (a
     * pointer to the request's struct) is the first variadic one, hence firstVariadicArg(2).
     */
    private static final MethodHandle IOCTL_ERRNO =
            handle("ioctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS),
                    Linker.Option.firstVariadicArg(2), ERRNO_OPTION);

    /** ssize_t pread(int fd, void *buf, size_t count, off_t offset): man 2 pread. */
    private static final MethodHandle PREAD_ERRNO =
            handle("pread", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), ERRNO_OPTION);

    /** int poll(struct pollfd *fds, nfds_t nfds, int timeout): man 2 poll. Blocks: no critical option. */
    private static final MethodHandle POLL_ERRNO =
            handle("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), ERRNO_OPTION);

    /** MAP_SHARED (asm-generic/mman-common.h; x86_64 and aarch64). */
    public static final int MAP_SHARED = 0x01;
    /** poll(2) events (asm-generic/poll.h). */
    public static final short POLLIN = 0x1;
    /** An error on the descriptor. */
    public static final short POLLERR = 0x8;
    /** Hang-up: for /dev/vmclockN, "no notifications will ever come". */
    public static final short POLLHUP = 0x10;

    /** Per-thread errno capture buffer; freed by the garbage collector with the thread. */
    private static final ThreadLocal<MemorySegment> CAPTURE = ThreadLocal.withInitial(
            () -> Arena.ofAuto().allocate(LibC.CAPTURE_STATE));

    private DeviceIo() {}

    private static MethodHandle handle(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        return LibC.handle(name, descriptor, options);
    }

    private static MemorySegment capture() {
        Platform.requireSupported();
        return CAPTURE.get();
    }

    /** open(path, flags): the new descriptor, or -errno. */
    public static int open(String path, int flags) {
        MemorySegment state = capture();
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) OPEN_ERRNO.invokeExact(state, arena.allocateFrom(path), flags);
            return fd >= 0 ? fd : -LibC.errno(state);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }

    /** close(fd): 0, or -errno. */
    public static int close(int fd) {
        MemorySegment state = capture();
        try {
            int rc = (int) CLOSE_ERRNO.invokeExact(state, fd);
            return rc == 0 ? 0 : -LibC.errno(state);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }

    /** ioctl(fd, request, arg): the non-negative result, or -errno. */
    public static int ioctl(int fd, long request, MemorySegment arg) {
        MemorySegment state = capture();
        try {
            int rc = (int) IOCTL_ERRNO.invokeExact(state, fd, request, arg);
            return rc >= 0 ? rc : -LibC.errno(state);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }

    /** clock_gettime(clockId, timespec) (man 2 clock_gettime): 0, or -errno. */
    public static int clockGettime(int clockId, MemorySegment timespec) {
        MemorySegment state = capture();
        try {
            int rc = (int) LibC.ClockGettimeErrno.HANDLE.invokeExact(state, clockId, timespec);
            return rc == 0 ? 0 : -LibC.errno(state);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }

    /**
     * pread(fd, buf, buf.byteSize(), offset): the bytes read, or -errno.
     *
     * @param fd     an open descriptor
     * @param buf    where the bytes go; its whole size is asked for
     * @param offset the file offset
     * @return the bytes read, or -errno
     */
    public static long pread(int fd, MemorySegment buf, long offset) {
        MemorySegment state = capture();
        try {
            long n = (long) PREAD_ERRNO.invokeExact(state, fd, buf, buf.byteSize(), offset);
            return n >= 0 ? n : -LibC.errno(state);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }

    /**
     * poll(2) on one descriptor: the revents, 0 on timeout, or -errno.
     *
     * @param pollfd        an 8-byte struct pollfd {int fd; short events; short revents;} the caller owns
     * @param timeoutMillis how long to wait, -1 for ever
     * @return the revents, 0 on timeout, or -errno (EINTR included: the caller decides to retry)
     */
    public static int poll(MemorySegment pollfd, int timeoutMillis) {
        if (pollfd.byteSize() < 8) {
            throw new IllegalArgumentException("poll needs an 8-byte struct pollfd, got " + pollfd.byteSize());
        }
        MemorySegment state = capture();
        try {
            int n = (int) POLL_ERRNO.invokeExact(state, pollfd, 1L, timeoutMillis);
            return n > 0 ? Short.toUnsignedInt(pollfd.get(java.lang.foreign.ValueLayout.JAVA_SHORT, 6))
                    : n == 0 ? 0 : -LibC.errno(state);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }

    /**
     * Maps {@code length} bytes of {@code fd} from offset 0, read-only and shared (so a writer's stores, the
     * hypervisor's or another process's, are seen), into a segment {@code arena} unmaps.
     *
     * @param fd     an open descriptor, readable
     * @param length bytes to map (the kernel rounds the mapping up to whole pages)
     * @param arena  the segment's lifetime: closing it calls munmap
     * @return the mapping, {@code length} bytes
     * @throws ErrnoException when mmap refuses (EROFS, EINVAL, ENODEV, EACCES)
     */
    public static MemorySegment mapReadOnlyShared(int fd, long length, Arena arena) {
        MemorySegment state = capture();
        long addr = LibC.call(LibC.SelfCalls.MMAP, state, 0, length, LibC.PROT_READ, MAP_SHARED, fd, 0);
        if (addr == LibC.MAP_FAILED) {
            throw new ErrnoException("mmap(PROT_READ, MAP_SHARED)", LibC.errno(state));
        }
        return MemorySegment.ofAddress(addr).reinterpret(length, arena, DeviceIo::unmap);
    }

    private static void unmap(MemorySegment mapping) {
        try (Arena a = Arena.ofConfined()) {
            LibC.callInt(LibC.SelfCalls.MUNMAP, a.allocate(LibC.CAPTURE_STATE), mapping.address(), mapping.byteSize(),
                    0);
        }
    }
}
