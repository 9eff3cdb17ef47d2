package org.timekeeping4j.linux;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Sees CLOCK_REALTIME being set, the moment it happens: a timerfd on CLOCK_REALTIME armed with
 * TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET for a time far in the future never expires, but the kernel
 * cancels it whenever the clock is set (settimeofday, clock_settime, adjtimex ADJ_SETOFFSET, a leap second,
 * resume from suspend), and a read then fails with ECANCELED (man 2 timerfd_create).
 *
 * <p>One owner thread at a time; {@link #close()} from any thread once the owner has stopped waiting.
 */
public final class TimerFd implements AutoCloseable {

    private static final int CLOCK_REALTIME = 0;
    private static final int TFD_NONBLOCK = 0x800;      // O_NONBLOCK
    private static final int TFD_CLOEXEC = 0x80000;     // O_CLOEXEC
    private static final int TFD_TIMER_ABSTIME = 1;
    private static final int TFD_TIMER_CANCEL_ON_SET = 2;
    private static final short POLLIN = 0x1;
    /** Far enough in the future never to expire: 2^62 ns after the epoch (year 2116). */
    private static final long FAR_FUTURE_SECONDS = (1L << 62) / 1_000_000_000L;

    /** int timerfd_create(int clockid, int flags): man 2 timerfd_create. */
    private static final MethodHandle TIMERFD_CREATE = handle("timerfd_create",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    /** int timerfd_settime(int fd, int flags, const struct itimerspec *new, struct itimerspec *old). */
    private static final MethodHandle TIMERFD_SETTIME = handle("timerfd_settime",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    /** ssize_t read(int fd, void *buf, size_t count): man 2 read. */
    private static final MethodHandle READ = handle("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    /** int poll(struct pollfd *fds, nfds_t nfds, int timeout): man 2 poll. */
    private static final MethodHandle POLL = handle("poll",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    /** int close(int fd): man 2 close. */
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private final Arena arena = Arena.ofShared();
    private final MemorySegment state = arena.allocate(LibC.CAPTURE_STATE);
    private final MemorySegment buf = arena.allocate(JAVA_LONG);
    /** struct pollfd { int fd; short events; short revents; } */
    private final MemorySegment pollfd = arena.allocate(8, 4);
    /** struct itimerspec { struct timespec it_interval; struct timespec it_value; } */
    private final MemorySegment itimerspec = arena.allocate(32, 8);
    private final int fd;
    private volatile boolean closed;

    private TimerFd(int fd) {
        this.fd = fd;
        pollfd.set(JAVA_INT, 0, fd);
        pollfd.set(JAVA_SHORT, 4, POLLIN);
        itimerspec.set(JAVA_LONG, 16, FAR_FUTURE_SECONDS);
    }

    /**
     * Opens and arms the watcher.
     *
     * @throws ErrnoException if the kernel refuses (EMFILE, or ENOSYS/EPERM under a seccomp filter)
     */
    public static TimerFd watchRealtimeSet() {
        Platform.requireSupported();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(LibC.CAPTURE_STATE);
            int fd = (int) TIMERFD_CREATE.invokeExact(st, CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
            if (fd < 0) {
                throw new ErrnoException("timerfd_create(CLOCK_REALTIME)", LibC.errno(st));
            }
            TimerFd t = new TimerFd(fd);
            try {
                t.arm();
            } catch (ErrnoException e) {
                t.close();
                throw e;
            }
            return t;
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }

    private void arm() throws Throwable {
        int rc = (int) TIMERFD_SETTIME.invokeExact(state, fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
                itimerspec, MemorySegment.NULL);
        if (rc != 0) {
            throw new ErrnoException("timerfd_settime(TFD_TIMER_ABSTIME|TFD_TIMER_CANCEL_ON_SET)", LibC.errno(state));
        }
    }

    /**
     * Waits up to {@code timeoutMillis} (0: do not wait) for CLOCK_REALTIME to be set.
     *
     * @return true if the clock was set since the last call; the watcher is then re-armed
     * @throws ErrnoException on an unexpected failure (EINTR is retried as a plain timeout)
     */
    public boolean await(int timeoutMillis) {
        if (closed) {
            throw new IllegalStateException("timerfd closed");
        }
        try {
            int n = (int) POLL.invokeExact(state, pollfd, 1L, timeoutMillis);
            if (n < 0) {
                int errno = LibC.errno(state);
                if (errno == Errno.EINTR) {
                    return false;
                }
                throw new ErrnoException("poll(timerfd)", errno);
            }
            if (n == 0) {
                return false;
            }
            long r = (long) READ.invokeExact(state, fd, buf, 8L);
            if (r >= 0) {
                return false; // expired (cannot happen before 2116): nothing was set
            }
            int errno = LibC.errno(state);
            if (errno == Errno.ECANCELED) {
                arm(); // the cancellation disarmed the timer
                return true;
            }
            if (errno == Errno.EAGAIN || errno == Errno.EINTR) {
                return false;
            }
            throw new ErrnoException("read(timerfd)", errno);
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }

    /** The descriptor, for tests that count open descriptors. */
    public int fd() {
        return fd;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            int ignored = (int) CLOSE.invokeExact(state, fd);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        } finally {
            arena.close();
        }
    }

    private static MethodHandle handle(String name, FunctionDescriptor descriptor) {
        return LibC.handle(name, descriptor, LibC.ERRNO_OPTION);
    }
}
