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
            int rc = (int) LibC.CLOCK_GETTIME_ERRNO.invokeExact(state, clockId, timespec);
            return rc == 0 ? 0 : -LibC.errno(state);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }
}
