/**
 * Each architecture's facts, in one place (not exported): {@link org.timekeeping4j.arch.Arch}, one constant per
 * architecture (the machine name, the counter's kernel name and width, the CPU check, the order of the counter
 * reads, the vDSO data's description of the counter), its instruction sequences
 * ({@link org.timekeeping4j.arch.CounterRead}) and how each vDSO layout's kernels compute a clock
 * ({@link org.timekeeping4j.arch.VdsoAlgorithm}). Below the machine code, so that {@code machine} builds on it.
 */
package org.timekeeping4j.arch;
