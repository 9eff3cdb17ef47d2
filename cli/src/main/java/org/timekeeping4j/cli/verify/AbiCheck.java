package org.timekeeping4j.cli.verify;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.TimeSpec;
import org.timekeeping4j.cli.path.ClockPath;
import org.timekeeping4j.cli.path.ClockPaths;
import org.timekeeping4j.linux.Errno;
import org.timekeeping4j.linux.LinuxTime;

/**
 * {@code verify abi}: vdsotest's abi and verify's static checks, for the Java API.
 * <ul>
 *   <li>bogus clock ids: {@link ClockId#of} throws IllegalArgumentException naming the id, and the kernel's
 *       clock_gettime syscall answers EINVAL for them;</li>
 *   <li>unsupported clocks: every read method and every path refuses them with UnsupportedOperationException
 *       naming the clock (no crash, no garbage value);</li>
 *   <li>getres: every path that reports a resolution reports the same one, and it stays constant;</li>
 *   <li>normalised: every timespec from {@link KernelClocks#time} has 0 &lt;= nsec &lt; 1e9 and sec &gt;= 0, and every
 *       path's nanoseconds are >= 0.</li>
 * </ul>
 */
public final class AbiCheck {

    /** Ids that are no Linux clock: removed (10), unassigned (12-15), past the last (24), far out, negative. */
    static final int[] BOGUS_IDS = {-1, 10, 12, 13, 14, 15, 24, 1000, Integer.MAX_VALUE};
    /** The subset for which clock_gettime must answer EINVAL (negative ids other than -1 may name a process). */
    static final int[] KERNEL_EINVAL_IDS = {-1, 10, 12, 13, 14, 15, 24, 1000};

    private AbiCheck() {}

    /** Runs the four checks over {@code paths}, reading each clock {@code reads} times for the normalisation check. */
    public static List<CheckResult> run(List<ClockPath> paths, int reads) {
        return List.of(bogusIds(), unsupported(paths), getres(paths), normalised(paths, reads));
    }

    static CheckResult bogusIds() {
        List<String> wrong = new ArrayList<>();
        for (int id : BOGUS_IDS) {
            try {
                ClockId c = ClockId.of(id);
                wrong.add("ClockId.of(" + id + ") returned " + c + " instead of throwing");
            } catch (IllegalArgumentException e) {
                if (e.getMessage() == null || !e.getMessage().contains("clock id " + id)) {
                    wrong.add("ClockId.of(" + id + ") threw without naming the id: " + e.getMessage());
                }
            }
        }
        for (int id : KERNEL_EINVAL_IDS) {
            int errno = LinuxTime.syscallClockGettimeErrno(id);
            if (errno != Errno.EINVAL) {
                wrong.add("clock_gettime(" + id + ") answered " + (errno == 0 ? "a time" : Errno.describe(errno))
                        + ", expected EINVAL");
            }
        }
        return result("bogus clock ids", wrong, BOGUS_IDS.length + " ids refused with IllegalArgumentException naming"
                + " the id; the kernel answers EINVAL for " + KERNEL_EINVAL_IDS.length);
    }

    static CheckResult unsupported(List<ClockPath> paths) {
        List<String> wrong = new ArrayList<>();
        int refused = 0;
        TimeSpec ts = new TimeSpec();
        for (ClockId c : ClockId.values()) {
            if (!ClockPaths.readable(c)) {
                refused += expectRefusal(wrong, "KernelClocks.nanos", c, () -> KernelClocks.nanos(c));
                refused += expectRefusal(wrong, "KernelClocks.syscallNanos", c, () -> KernelClocks.syscallNanos(c));
                refused += expectRefusal(wrong, "KernelClocks.time", c, () -> KernelClocks.time(c, ts).seconds());
            }
            for (ClockPath p : paths) {
                if (!p.serves(c)) {
                    refused += expectRefusal(wrong, "path " + p.name() + " reader", c, () -> p.reader(c).readNanos());
                }
            }
        }
        return result("unsupported clocks", wrong, refused + " reads of clocks not served refused with "
                + "UnsupportedOperationException naming the clock");
    }

    private interface Read {
        long read();
    }

    private static int expectRefusal(List<String> wrong, String what, ClockId c, Read read) {
        try {
            long v = read.read();
            wrong.add(what + "(" + c + ") returned " + v + " for a clock it does not serve");
        } catch (UnsupportedOperationException e) {
            if (e.getMessage() == null || !e.getMessage().contains(c.kernelName())) {
                wrong.add(what + "(" + c + ") refused without naming " + c.kernelName() + ": " + e.getMessage());
            }
        } catch (RuntimeException e) {
            wrong.add(what + "(" + c + ") threw " + e.getClass().getSimpleName() + " instead of "
                    + "UnsupportedOperationException: " + e.getMessage());
        }
        return 1;
    }

    static CheckResult getres(List<ClockPath> paths) {
        List<String> wrong = new ArrayList<>();
        int compared = 0;
        for (ClockId c : ClockId.values()) {
            long first = -1;
            String firstPath = null;
            for (ClockPath p : paths) {
                if (!p.serves(c)) {
                    continue;
                }
                OptionalLong res = p.resolutionNanos(c);
                if (res.isEmpty()) {
                    continue;
                }
                long r = res.getAsLong();
                compared++;
                if (r <= 0) {
                    wrong.add(p.name() + " " + c.kernelName() + ": resolution " + r + " ns");
                }
                for (int i = 0; i < 100; i++) {
                    long again = p.resolutionNanos(c).orElse(-1);
                    if (again != r) {
                        wrong.add(p.name() + " " + c.kernelName() + ": resolution changed from " + r + " to " + again);
                        break;
                    }
                }
                if (firstPath == null) {
                    first = r;
                    firstPath = p.name();
                } else if (r != first) {
                    wrong.add(c.kernelName() + ": " + firstPath + " reports " + first + " ns, " + p.name() + " " + r + " ns");
                }
            }
        }
        return result("getres", wrong, compared + " (path, clock) resolutions equal across paths and constant");
    }

    static CheckResult normalised(List<ClockPath> paths, int reads) {
        List<String> wrong = new ArrayList<>();
        TimeSpec ts = new TimeSpec();
        long checked = 0;
        for (ClockId c : ClockId.values()) {
            if (!ClockPaths.readable(c)) {
                continue;
            }
            for (int i = 0; i < reads && wrong.size() < 10; i++) {
                KernelClocks.time(c, ts);
                checked++;
                if (ts.seconds() < 0 || ts.nanosOfSecond() < 0 || ts.nanosOfSecond() >= 1_000_000_000) {
                    wrong.add("KernelClocks.time(" + c + ") gave sec " + ts.seconds() + " nsec " + ts.nanosOfSecond());
                }
            }
            for (ClockPath p : paths) {
                if (p.serves(c)) {
                    long v = p.reader(c).readNanos();
                    checked++;
                    if (v < 0) {
                        wrong.add(p.name() + " " + c.kernelName() + " gave " + v + " ns");
                    }
                }
            }
        }
        return result("normalised timespecs", wrong, checked + " reads with 0 <= nsec < 1e9 and sec >= 0");
    }

    private static CheckResult result(String subject, List<String> wrong, String okSummary) {
        Map<String, Object> metrics = new LinkedHashMap<>();
        metrics.put("problems", wrong.size());
        return wrong.isEmpty()
                ? new CheckResult("abi", subject, Status.OK, okSummary, metrics, List.of())
                : new CheckResult("abi", subject, Status.FAILED, wrong.size() + " problem" + (wrong.size() == 1 ? "" : "s"),
                        metrics, wrong);
    }
}
