package org.timekeeping4j.cli.verify;

/**
 * A check's outcome. Only OK is a pass, only FAILED a failure; the others say why neither could be said.
 * <ul>
 *   <li>OK: the property held over at least the check's minimum sample count.</li>
 *   <li>FAILED: the property was broken (one violation is enough, however few the samples).</li>
 *   <li>INCONCLUSIVE: no violation, but fewer samples than the check's minimum even after retrying with more
 *       time (a starved cell on a loaded machine): not a pass.</li>
 *   <li>MEASURED: a property the path does not promise (causality on an unordered path): the figure is reported
 *       whatever it is, and neither passes nor fails.</li>
 *   <li>NOTICE: this machine's setup makes a clock other than its name says, and the library promises nothing
 *       about it (CLOCK_TAI is UTC where no daemon set the kernel's TAI offset): said with its fix, neither passes
 *       nor fails.</li>
 *   <li>SKIPPED: the check could not run here.</li>
 * </ul>
 */
public enum Status {
    OK, FAILED, INCONCLUSIVE, MEASURED, NOTICE, SKIPPED;

    /**
     * The status of a check with {@code samples} samples and {@code violations} violations against its
     * {@code minimum}: FAILED on any violation, INCONCLUSIVE below the minimum, OK otherwise.
     */
    static Status of(long samples, long minimum, long violations) {
        return violations > 0 ? FAILED : samples < minimum ? INCONCLUSIVE : OK;
    }

    /**
     * ", minimum 100 set by --min-samples (default 1,000)" when a run's minimum differs from the check's default,
     * else "": a changed minimum is always said, never silent.
     */
    static String minimumNote(long minimum, long defaultMinimum) {
        return minimum == defaultMinimum ? ""
                : String.format(", minimum %,d set by --min-samples (default %,d)", minimum, defaultMinimum);
    }

    /**
     * Puts the run's minimum into {@code metrics} under {@code key}, and the check's default beside it (key +
     * "Default") when the two differ.
     */
    static void putMinimum(java.util.Map<String, Object> metrics, String key, long minimum, long defaultMinimum) {
        metrics.put(key, minimum);
        if (minimum != defaultMinimum) {
            metrics.put(key + "Default", defaultMinimum);
        }
    }

    /** " (fewer than the minimum of 1,000: inconclusive)" when the samples fall short, else "". */
    static String shortfall(long samples, long minimum, long violations) {
        return violations == 0 && samples < minimum
                ? String.format(" (fewer than the minimum of %,d: inconclusive)", minimum) : "";
    }
}
