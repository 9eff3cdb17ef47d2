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
 *   <li>SKIPPED: the check could not run here.</li>
 * </ul>
 */
public enum Status {
    OK, FAILED, INCONCLUSIVE, MEASURED, SKIPPED;

    /**
     * The status of a check with {@code samples} samples and {@code violations} violations against its
     * {@code minimum}: FAILED on any violation, INCONCLUSIVE below the minimum, OK otherwise.
     */
    static Status of(long samples, long minimum, long violations) {
        return violations > 0 ? FAILED : samples < minimum ? INCONCLUSIVE : OK;
    }

    /** " (fewer than the minimum of 1,000: inconclusive)" when the samples fall short, else "". */
    static String shortfall(long samples, long minimum, long violations) {
        return violations == 0 && samples < minimum
                ? String.format(" (fewer than the minimum of %,d: inconclusive)", minimum) : "";
    }
}
