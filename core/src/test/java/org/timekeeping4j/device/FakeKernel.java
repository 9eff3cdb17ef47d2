package org.timekeeping4j.device;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.timekeeping4j.linux.DeviceSyscalls;
import org.timekeeping4j.testing.PtpClockTime;
import org.timekeeping4j.linux.Errno;

/**
 * A test double for the kernel behind {@link DeviceSyscalls}: files that are PTP clocks, PPS sources or
 * neither, and ioctls that write into the caller's segment at the same offsets the kernel's structs have
 * (the offsets are spelled out here as literal numbers from the uapi headers, independently of
 * {@link Abi}, so a wrong layout in Abi fails the tests).
 *
 * <p>Time is simulated: every clock read advances {@link #now} (ns on the REALTIME scale); the PHC reads
 * {@code now + phcAhead}.
 */
final class FakeKernel implements DeviceSyscalls {

    enum Kind { PTP, PPS, OTHER }

    final Map<String, Kind> files = new HashMap<>();
    final Map<String, Integer> openErrno = new HashMap<>();
    final Map<Integer, Kind> openFds = new HashMap<>();
    final Map<Long, Integer> calls = new HashMap<>();
    private int nextFd = 40;

    long now = 1_700_000_000_123_456_789L;
    long step = 100;
    long phcAhead = 37_000;

    // PTP
    final Set<Long> refused = new HashSet<>();            // requests answered EOPNOTSUPP
    final Map<Long, Deque<Integer>> failNext = new HashMap<>(); // errnos returned before success
    boolean extendedClockid = true;                       // Linux 6.12+: EXTENDED honours clockid
    /** Per-sample (before-PHC, after-PHC) gaps; the shortest one is symmetric, the others are not. */
    long[][] gaps = {{300, 100}, {260, 240}, {60, 60}, {50, 350}, {90, 200}};

    // PPS
    int ppsCaps = 0x1133;
    final Deque<Object> ppsScript = new ArrayDeque<>();   // Integer errno, or long[] {aSeq, aSec, aNs, cSeq, cSec, cNs}
    long[] lastPps = {0, 0, 0, 0, 0, 0};
    long seenTimeoutSec;
    int seenTimeoutNsec;
    int seenTimeoutFlags;

    static final long GETCAPS = 0x80503D01L;
    static final long SYS_OFFSET = 0x43403D05L;
    static final long PRECISE = 0xC0403D08L;
    static final long EXTENDED = 0xC4C03D09L;
    static final long PPS_GETCAP = 0x800870A3L;
    static final long PPS_FETCH = 0xC00870A4L;

    FakeKernel with(String path, Kind kind) {
        files.put(path, kind);
        return this;
    }

    int calls(long request) {
        return calls.getOrDefault(request, 0);
    }

    @Override
    public int open(String path, int flags) {
        Integer e = openErrno.get(path);
        if (e != null) {
            return -e;
        }
        Kind k = files.get(path);
        if (k == null) {
            return -Errno.ENOENT;
        }
        int fd = nextFd++;
        openFds.put(fd, k);
        return fd;
    }

    @Override
    public int close(int fd) {
        return openFds.remove(fd) != null ? 0 : -Errno.EBADF;
    }

    @Override
    public int clockGettime(int clockId, MemorySegment ts) {
        long t;
        if (clockId < 0) {
            int fd = DynamicClockId.ofClockId(clockId).fd();
            if (openFds.get(fd) != Kind.PTP) {
                return -Errno.EINVAL;
            }
            t = tick() + phcAhead;
        } else if (clockId == 0 || clockId == 1 || clockId == 4) {
            t = tick();
        } else {
            return -Errno.EINVAL;
        }
        ts.set(JAVA_LONG, 0, Math.floorDiv(t, 1_000_000_000L));
        ts.set(JAVA_LONG, 8, Math.floorMod(t, 1_000_000_000L));
        return 0;
    }

    private long tick() {
        now += step;
        return now;
    }

    @Override
    public int ioctl(int fd, long request, MemorySegment arg) {
        calls.merge(request, 1, Integer::sum);
        Kind k = openFds.get(fd);
        if (k == null) {
            return -Errno.EBADF;
        }
        Deque<Integer> fail = failNext.get(request);
        if (fail != null && !fail.isEmpty()) {
            return -fail.poll();
        }
        if (k == Kind.PTP) {
            return ptp(request, arg);
        }
        if (k == Kind.PPS) {
            return pps(request, arg);
        }
        return -Errno.ENOTTY;
    }

    private int ptp(long request, MemorySegment a) {
        if (refused.contains(request)) {
            return -Errno.EOPNOTSUPP;
        }
        if (request == GETCAPS) {
            int[] caps = {100_000_000, 0, 2, 1, 1, 4, 1, 1, 5_000};
            for (int i = 0; i < caps.length; i++) {
                a.set(JAVA_INT, 4L * i, caps[i]);
            }
            return 0;
        }
        if (request == PRECISE) {
            long t = tick();
            PtpClockTime.write(a, 0, t + phcAhead);   // device
            PtpClockTime.write(a, 16, t);             // sys_realtime
            PtpClockTime.write(a, 32, t - 1_000_000); // sys_monoraw: the raw scale, 1 ms behind here
            return 0;
        }
        if (request == EXTENDED) {
            int n = a.get(JAVA_INT, 0);
            int clockid = a.get(JAVA_INT, 4);
            if (n < 1 || n > 25 || a.get(JAVA_INT, 8) != 0 || a.get(JAVA_INT, 12) != 0
                    || (clockid != 0 && !extendedClockid)) {
                return -Errno.EINVAL;
            }
            for (int i = 0; i < n; i++) {
                long[] g = gaps[i % gaps.length];
                long base = 16 + i * 48L;
                long pre = tick();
                PtpClockTime.write(a, base, pre);
                now += g[0];
                PtpClockTime.write(a, base + 16, now + phcAhead);
                now += g[1];
                PtpClockTime.write(a, base + 32, now);
            }
            return 0;
        }
        if (request == SYS_OFFSET) {
            int n = a.get(JAVA_INT, 0);
            if (n < 1 || n > 25) {
                return -Errno.EINVAL;
            }
            PtpClockTime.write(a, 16, tick());
            for (int i = 0; i < n; i++) {
                long[] g = gaps[i % gaps.length];
                now += g[0];
                PtpClockTime.write(a, 16 + (2 * i + 1) * 16L, now + phcAhead);
                now += g[1];
                PtpClockTime.write(a, 16 + (2 * i + 2) * 16L, now);
            }
            return 0;
        }
        return -Errno.ENOTTY;
    }

    private int pps(long request, MemorySegment a) {
        if (request == PPS_GETCAP) {
            a.set(JAVA_INT, 0, ppsCaps);
            return 0;
        }
        if (request == PPS_FETCH) {
            seenTimeoutSec = a.get(JAVA_LONG, 48);
            seenTimeoutNsec = a.get(JAVA_INT, 56);
            seenTimeoutFlags = a.get(JAVA_INT, 60);
            Object next = ppsScript.poll();
            if (next instanceof Integer errno) {
                return -errno;
            }
            if (next instanceof long[] ev) {
                lastPps = ev;
            } else if (seenTimeoutFlags != 0 || seenTimeoutSec != 0 || seenTimeoutNsec != 0) {
                return -Errno.ETIMEDOUT; // nothing new within the timeout
            } // zero timeout: the last event at once
            a.set(JAVA_INT, 0, (int) lastPps[0]);
            a.set(JAVA_INT, 4, (int) lastPps[3]);
            a.set(JAVA_LONG, 8, lastPps[1]);
            a.set(JAVA_INT, 16, (int) lastPps[2]);
            a.set(JAVA_LONG, 24, lastPps[4]);
            a.set(JAVA_INT, 32, (int) lastPps[5]);
            a.set(JAVA_INT, 40, ppsCaps & 0x3);
            return 0;
        }
        return -Errno.ENOTTY;
    }
}
