package org.timekeeping4j.benchmarks;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Level;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.machine.Stubs;

/**
 * What a critical FFM downcall costs by its arguments, beside the kernel path built on it: an empty function
 * ({@code mov eax, 42; ret}) called with no argument, one int and four longs, and the kernel path's
 * clock_gettime stub generic (the id passed, third of the exact read's four longs) against the clock's own (the id in the code, what
 * {@code KernelClocks.nanos} runs). This is why the hot reads bind their arguments in the code (vdso.KernelVdso's
 * bound sites, ClockGettimeStub's own stubs). x86_64 only (the empty function is x86 code).
 *
 * <pre>
 * $JDK/bin/java -jar benchmarks/target/benchmarks.jar DowncallCostBenchmark -f 3 -wi 3 -i 5
 * </pre>
 */
public class DowncallCostBenchmark extends PerCallBenchmark {

    private static final byte[] EMPTY = {(byte) 0xb8, 0x2a, 0, 0, 0, (byte) 0xc3};
    private static final MethodHandle NO_ARGUMENT = empty(FunctionDescriptor.of(JAVA_LONG));
    private static final MethodHandle ONE_INT = empty(FunctionDescriptor.of(JAVA_LONG, JAVA_INT));
    private static final MethodHandle FOUR_LONGS =
            empty(FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));

    private static MethodHandle empty(FunctionDescriptor descriptor) {
        return Stubs.map("empty function", EMPTY, descriptor, Arch.X86_64).handle();
    }

    @Setup(Level.Trial)
    public void setup() {
        if (NO_ARGUMENT == null || ClockGettimeStub.NANOS == null) {
            throw new IllegalStateException("needs x86_64 and executable memory: " + ClockGettimeStub.describe());
        }
    }

    @Benchmark
    public long emptyNoArgument() throws Throwable {
        return (long) NO_ARGUMENT.invokeExact();
    }

    @Benchmark
    public long emptyOneInt() throws Throwable {
        return (long) ONE_INT.invokeExact(1);
    }

    @Benchmark
    public long emptyFourLongs() throws Throwable {
        return (long) FOUR_LONGS.invokeExact(0x7f0012345000L, 0x7f0012345040L, 1L, 0x7f0012340001L);
    }

    @Benchmark
    public long clockGettimeStubIdPassed() throws Throwable {
        return (long) ClockGettimeStub.NANOS.invokeExact(0L, 0L, 1L, 0L);
    }

    @Benchmark
    public long kernelNanosMonotonic() {
        return KernelClocks.nanos(ClockId.MONOTONIC);
    }

    /** The clock as a caller holds it in a field (not a constant the JIT can fold), as tk4j bench's cells do. */
    private ClockId monotonic = ClockId.MONOTONIC;

    @Benchmark
    public long kernelNanosMonotonicFromAField() {
        return KernelClocks.nanos(monotonic);
    }
}
