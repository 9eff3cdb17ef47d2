package org.timekeeping4j.cli.verify;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.timekeeping4j.cli.text.Prose;

/**
 * One check's outcome.
 *
 * @param mode    the verify mode (consistency, causality, agreement, abi, skew)
 * @param subject what was checked, e.g. "kernel CLOCK_MONOTONIC" or "bogus clock ids"
 * @param status  OK, FAILED or SKIPPED
 * @param summary one line for people
 * @param metrics numbers for --json (insertion-ordered)
 * @param details lines printed under a failure (inconsistency-check's 64 timestamps, the wrong answers)
 */
public record CheckResult(String mode, String subject, Status status, String summary, Map<String, Object> metrics,
                          List<String> details) {

    /** The result as a JSON-ready map. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", mode);
        m.put("subject", subject);
        m.put("status", status.name());
        m.put("summary", new Prose(summary));
        m.putAll(metrics);
        if (!details.isEmpty()) {
            m.put("details", details);
        }
        return m;
    }
}
