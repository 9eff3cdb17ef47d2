package org.timekeeping4j;

/**
 * Exact mode as this process found it: whether the counter-backed clocks are read from the kernel's own vDSO
 * data, which layout of that data was recognised, the counter read around it, and the kernel's parameters
 * now (what it converts with: CS_HRES_COARSE is steered by NTP/PTP, CS_RAW never is).
 *
 * @param enabled     true when exact mode serves
 * @param reason      null when enabled, else why not (one line)
 * @param layout      the recognised layout (e.g. "x86_64 vdso_clock (6.15+)"), or null
 * @param counterRead the ordered counter read of the machine code (e.g. "rdtscp"), or "none"
 * @param hresMult    mult of the steered base now (0 when not enabled)
 * @param hresShift   its shift
 * @param rawMult     mult of the raw base
 * @param rawShift    its shift
 * @param seq         the data's sequence count when read
 * @param vclock      the counter behind the data now and who reads it (e.g. "kvm-clock (clock_mode PVCLOCK): read
 *                    by exact mode from the pvclock page ..."), with the time namespace's offsets where there is
 *                    one; when not enabled, what exact mode found about the vclock pages, or "none"
 */
public record KernelData(boolean enabled, String reason, String layout, String counterRead, long hresMult,
                         int hresShift, long rawMult, int rawShift, long seq, String vclock) {

    /**
     * The counter frequency the raw parameters stand for: 2^rawShift * 10^9 / rawMult.
     *
     * @return Hz, or 0 when not enabled
     */
    public double rawFrequencyHz() {
        return rawMult == 0 ? 0 : org.timekeeping4j.clocksource.MultShift.frequencyHz(rawMult, rawShift);
    }

    /**
     * How far the steered clock runs from the raw one now: hresMult / rawMult - 1.
     *
     * @return parts per billion, or 0 when not enabled
     */
    public double steeringPpb() {
        return rawMult == 0 || hresShift != rawShift ? 0 : (hresMult / (double) rawMult - 1) * 1e9;
    }
}
