/**
 * The architectures' facts that the machine code needs, below it (not exported): which architecture this is
 * ({@link org.timekeeping4j.arch.Arch}), the counter reads each has and their order
 * ({@link org.timekeeping4j.arch.CounterRead}), and how each vDSO layout's kernels compute a clock
 * ({@link org.timekeeping4j.arch.VdsoAlgorithm}). The counter descriptors above the machine code
 * ({@code clocksource.CounterArch}, {@code clocksource.HardwareCounter}) and exact mode ({@code vdso.VdsoLayout})
 * are built on these, so that {@code machine} depends on neither.
 */
package org.timekeeping4j.arch;
