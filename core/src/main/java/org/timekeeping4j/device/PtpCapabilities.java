package org.timekeeping4j.device;

/**
 * What a PTP hardware clock can do: struct ptp_clock_caps as PTP_CLOCK_GETCAPS fills it.
 *
 * @param maxAdjustmentPpb  maximum frequency adjustment, parts per billion (max_adj)
 * @param alarms            programmable alarms (n_alarm)
 * @param externalTimestamps external time stamp channels (n_ext_ts)
 * @param periodicOutputs   programmable periodic signals (n_per_out)
 * @param pps               whether the clock is a PPS source for the kernel (pps)
 * @param pins              input/output pins (n_pins)
 * @param crossTimestamping whether the device does precise system-device cross timestamps (PTP_SYS_OFFSET_PRECISE)
 * @param adjustPhase       whether the clock can adjust its phase (adjust_phase)
 * @param maxPhaseAdjustmentNanos maximum phase adjustment, ns (max_phase_adj)
 */
public record PtpCapabilities(int maxAdjustmentPpb, int alarms, int externalTimestamps, int periodicOutputs,
                              boolean pps, int pins, boolean crossTimestamping, boolean adjustPhase,
                              int maxPhaseAdjustmentNanos) {}
