/**
 * The counter a user-space timekeeper of its own would read, chosen and calibrated here: the hardware counter's
 * ordered and unordered reads ({@link org.timekeeping4j.simulation.counter.HardwareCounter}), the selection among
 * them by the {@code timekeeping4j.counter} mode ({@link org.timekeeping4j.simulation.counter.CounterSelector}),
 * the calibration against the kernel ({@link org.timekeeping4j.simulation.counter.Calibrator}), and
 * {@link org.timekeeping4j.simulation.counter.SimulatedCounter}, whose rate, width, jitter and time a test
 * controls. No library read uses any of it: exact mode reads the counter the kernel's vDSO data names, with the
 * kernel's own calibration. {@code tk4j verify skew} and the benchmarks do.
 */
package org.timekeeping4j.simulation.counter;
