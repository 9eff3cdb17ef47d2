package org.timekeeping4j.cli.verify;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.SyncStatus;

/**
 * {@code verify tai}: whether CLOCK_TAI is TAI, the kernel's TAI offset against the leap-second list
 * ({@link Diagnostics#tai()}, the line {@code tk4j info} prints). OK where a current list confirms it. Anything else
 * is a NOTICE with the fix, never a failure: the library reads CLOCK_TAI as the kernel serves it, and a machine
 * where nothing relies on TAI need not set the offset. SKIPPED where adjtimex is refused. It reads adjtimex (modes
 * 0) and the list; it sets nothing.
 */
public final class TaiOffsetCheck {

    private TaiOffsetCheck() {}

    /** The check now. */
    public static CheckResult run() {
        Diagnostics d = Clocks.diagnostics();
        SyncStatus s = SyncStatus.read();
        Map<String, Object> metrics = new LinkedHashMap<>();
        metrics.put("confirmed", d.taiConfirmed());
        if (s.isAvailable()) {
            metrics.put("kernelTaiOffsetS", s.taiOffsetSeconds());
        }
        Status status = d.taiConfirmed() ? Status.OK : s.isAvailable() ? Status.NOTICE : Status.SKIPPED;
        return new CheckResult("tai", "CLOCK_TAI offset", status, d.tai(), metrics, List.of());
    }
}
