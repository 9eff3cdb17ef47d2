package org.timekeeping4j.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.linux.ClockGettime;
import org.timekeeping4j.linux.LibC;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.linux.Platform;

/**
 * The nanosecond stub against libc's clock_gettime for every clock id, over both the vDSO's function and libc's
 * (the fallback), including the ids the kernel refuses; its refusals; and the execmem configuration honoured.
 */
class ClockGettimeStubTest {

    /** Ids no kernel has: invalid CLOCK_* numbers and a dynamic-clock id of a closed descriptor (fd 1000). */
    private static final int[] INVALID_IDS = {12, 16, 99, Integer.MAX_VALUE, ~(1000 << 3) | 3};

    private static void assumeStubArch() {
        assumeTrue(Arch.HERE != null && Platform.UNSUPPORTED_REASON == null,
                "the stub is x86_64 and aarch64 code; this is " + System.getProperty("os.arch"));
    }

    private static MemorySegment libcClockGettime() {
        return Linker.nativeLinker().defaultLookup().find("clock_gettime").orElseThrow();
    }

    @Test
    void theStubShouldBeRefusedWhereItCannotRun() {
        assumeStubArch();
        long libc = libcClockGettime().address();
        Arch other = Arch.HERE == Arch.X86_64 ? Arch.AARCH64 : Arch.X86_64;
        Stubs.Mapped m = ClockGettimeStub.map(libc, other);
        assertThat(m.ok()).isFalse();
        assertThat(m.failure())
                .isEqualTo("clock_gettime stub is " + other.machine() + " code and this is " + Platform.ARCH);
        assertThat(ClockGettimeStub.map(libc, null).failure())
                .isEqualTo("the clock_gettime stub is x86_64 and aarch64 code and this is " + Platform.ARCH);
    }

    @Test
    void theCodeShouldCarryTheFunctionsAddressAndNothingElseShouldDiffer() {
        for (Arch arch : Arch.values()) {
            byte[] zero = ClockGettimeStub.code(arch, 0);
            byte[] some = ClockGettimeStub.code(arch, 0x1122334455667788L);
            int at = arch == Arch.X86_64 ? 11 : zero.length - 8; // the immediate (after mov edi, edx), or the literal
            assertThat(zero.length).isEqualTo(some.length);
            for (int i = 0; i < zero.length; i++) {
                boolean address = i >= at && i < at + 8;
                assertThat(some[i]).as("%s byte %d", arch, i)
                        .isEqualTo(address ? (byte) (0x1122334455667788L >>> (8 * (i - at))) : zero[i]);
            }
            assertThat(ClockGettimeStub.code(arch, 0)).as("a fresh array").isNotSameAs(zero);
        }
    }

    /**
     * A clock's own stub loads its id where the generic one moves it from its third argument: against the same stub
     * for another id it differs in the id's bits only, and against another function in the address only.
     */
    @Test
    void aClocksOwnCodeShouldCarryItsIdAndTheFunctionsAddressAndNothingElseShouldDiffer() {
        long f = 0x1122334455667788L;
        for (Arch arch : Arch.values()) {
            byte[] monotonic = ClockGettimeStub.code(arch, f, 1);
            byte[] tai = ClockGettimeStub.code(arch, f, 11);
            byte[] zero = ClockGettimeStub.code(arch, 0, 1);
            int at = arch == Arch.X86_64 ? 14 : monotonic.length - 8;
            assertThat(tai.length).isEqualTo(monotonic.length).isEqualTo(zero.length);
            for (int i = 0; i < monotonic.length; i++) {
                boolean id = arch == Arch.X86_64 ? i == 1 : i == 0 || i == 1; // imm32's low byte; imm16 << 5
                assertThat(tai[i]).as("%s byte %d, id", arch, i).isEqualTo(id ? tai[i] : monotonic[i]);
                boolean address = i >= at && i < at + 8;
                assertThat(monotonic[i]).as("%s byte %d, address", arch, i)
                        .isEqualTo(address ? (byte) (f >>> (8 * (i - at))) : zero[i]);
            }
            assertThat(tai).as(arch + ": the id is in the code").isNotEqualTo(monotonic);
            for (int bad : new int[] {-1, 0x10000}) {
                assertThatThrownBy(() -> ClockGettimeStub.code(arch, f, bad))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not " + bad);
            }
        }
    }

    @Test
    void theStubShouldAgreeWithClockGettimeForEveryClockOverTheVdsoAndOverLibc() throws Throwable {
        assumeStubArch();
        assertThat(ClockGettimeStub.NANOS).as(ClockGettimeStub.describe()).isNotNull();
        List<ClockGettime.Target> targets = List.of(ClockGettime.TARGET,
                new ClockGettime.Target(libcClockGettime(), "libc's clock_gettime (test)"));
        for (ClockGettime.Target target : targets) {
            Stubs.Mapped mapped = ClockGettimeStub.map(target.function().address(), Arch.HERE);
            assertThat(mapped.failure()).isNull();
            MethodHandle stub = mapped.handle();
            MethodHandle timespec = Linker.nativeLinker().downcallHandle(target.function(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
            int served = 0;
            for (ClockId clock : ClockId.values()) {
                Stubs.Mapped ownMapped = ClockGettimeStub.map(target.function().address(), Arch.HERE, clock.id());
                assertThat(ownMapped.failure()).isNull();
                MethodHandle own = ownMapped.handle();
                int errno = LinuxTime.clockGettimeErrno(clock.id());
                if (errno != 0) {
                    // Refused by the kernel (an alarm clock without an RTC, a disabled AUX clock): the stubs say so.
                    assertThat((long) stub.invokeExact(-1L, -1L, (long) clock.id(), -1L)).as(clock + " " + target)
                            .isEqualTo(ClockGettimeStub.FAILED);
                    assertThat((long) own.invokeExact()).as(clock + "'s own, " + target)
                            .isEqualTo(ClockGettimeStub.FAILED);
                    continue;
                }
                served++;
                // Only the third argument is the id: the others are the exact read's, garbage to the stub.
                bracket(clock, () -> (long) stub.invokeExact(-1L, -1L, (long) clock.id(), -1L), target.description());
                bracket(clock, () -> (long) own.invokeExact(), clock + "'s own stub over " + target.description());
                // The target's own timespec call is what LinuxTime.clockGettime runs: 0 on success.
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment ts = arena.allocate(16, 8);
                    assertThat((int) timespec.invokeExact(clock.id(), ts)).isZero();
                }
            }
            assertThat(served).as("clocks read").isGreaterThanOrEqualTo(8);
            for (int id : INVALID_IDS) {
                assertThat((long) stub.invokeExact(0L, 0L, (long) id, 0L)).as(id + " over " + target).isEqualTo(ClockGettimeStub.FAILED);
            }
        }
    }

    /**
     * What the kernel path runs (ClockGettimeStub.nanos: a clock's own stub or the generic one) for every clock id,
     * the ids the kernel refuses included: in libc's bracket, or FAILED where libc fails.
     */
    @Test
    void theKernelPathsDispatchShouldReadEveryClockThroughItsStub() throws Throwable {
        assumeStubArch();
        assertThat(ClockGettimeStub.NANOS).as(ClockGettimeStub.describe()).isNotNull();
        for (ClockId clock : ClockId.values()) {
            if (LinuxTime.clockGettimeErrno(clock.id()) != 0) {
                assertThat(ClockGettimeStub.nanos(clock.id())).as(clock.toString()).isEqualTo(ClockGettimeStub.FAILED);
            } else {
                bracket(clock, () -> ClockGettimeStub.nanos(clock.id()), "ClockGettimeStub.nanos");
            }
        }
        for (int id : INVALID_IDS) {
            assertThat(ClockGettimeStub.nanos(id)).as("id " + id).isEqualTo(ClockGettimeStub.FAILED);
        }
    }

    /** A read that may throw as a downcall's invokeExact is declared to. */
    private interface Read {
        long read() throws Throwable;
    }

    /** libc before <= read <= libc after, 2,000 times, for a clock that never steps backwards here. */
    private static void bracket(ClockId clock, Read read, String what) throws Throwable {
        for (int i = 0; i < 2_000; i++) {
            long before = libc(clock.id());
            long value = read.read();
            long after = libc(clock.id());
            assertThat(value).as(clock + " over " + what + " read " + i).isBetween(before, after);
        }
    }

    private static long libc(int id) {
        return org.timekeeping4j.testing.KernelClock.libcClockGettime(id);
    }

    /** Run in the child JVM: how the kernel reads are made, and one read. */
    public static void main(String[] args) {
        System.out.println("describe " + ClockGettimeStub.describe());
        System.out.println("read " + ClockGettimeStub.clockGettimeNanos(ClockId.MONOTONIC.id()));
    }

    /**
     * -Dtimekeeping4j.execmem=" Deny " (the configuration's parse: trimmed, case ignored) leaves the stub
     * unmapped and the reads on the per-thread buffer, saying why.
     */
    @Test
    void executableMemoryDeniedShouldLeaveTheReadsOnTheBufferAndSaySo() throws IOException, InterruptedException {
        assumeStubArch();
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Dtimekeeping4j.execmem= Deny ", "-cp",
                System.getProperty("java.class.path"), ClockGettimeStubTest.class.getName()))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).contains(", into a per-thread buffer (no stub: executable memory refused"
                + " (timekeeping4j.execmem=deny))").containsPattern("(?m)^read [1-9][0-9]*$");
    }
}
