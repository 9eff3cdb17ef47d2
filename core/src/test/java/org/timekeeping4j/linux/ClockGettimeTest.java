package org.timekeeping4j.linux;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.machine.ClockGettimeStub;

/**
 * The kernel-clock call: the vDSO symbol lookup against the dynamic loader's, its refusals over damaged copies
 * of the real image, libc's function where the vDSO has none, and the read path (through
 * machine.ClockGettimeStub, whose own test runs the stub over both functions) against libc's clock_gettime.
 */
class ClockGettimeTest {

    private static final int EM_X86_64 = 62;
    private static final int EM_AARCH64 = 183;
    private static final boolean X86 = "x86_64".equals(Platform.ARCH);
    /** This machine's e_machine, the other one's, and the vDSO's functions (each architecture's vdso.lds.S). */
    private static final int MACHINE = X86 ? EM_X86_64 : EM_AARCH64;
    private static final int OTHER_MACHINE = X86 ? EM_AARCH64 : EM_X86_64;
    private static final String CLOCK_GETTIME = X86 ? "__vdso_clock_gettime" : "__kernel_clock_gettime";
    private static final String[] VDSO_FUNCTIONS = X86
            ? new String[] {"__vdso_clock_gettime", "__vdso_gettimeofday", "__vdso_time", "__vdso_clock_getres", "__vdso_getcpu"}
            : new String[] {"__kernel_clock_gettime", "__kernel_gettimeofday", "__kernel_clock_getres"};
    /** Ids no kernel has: invalid CLOCK_* numbers and a dynamic-clock id of a closed descriptor (fd 1000). */
    private static final int[] INVALID_IDS = {12, 16, 99, Integer.MAX_VALUE, ~(1000 << 3) | 3};

    private static void assumeStubArch() {
        assumeTrue(X86 || "aarch64".equals(Platform.ARCH), "the stub is x86_64 and aarch64 code; this is " + Platform.ARCH);
    }

    private static void assumeVdso() {
        assumeStubArch();
        assumeTrue(VdsoSymbols.imageAddress() != 0, "this process has no vDSO (getauxval(AT_SYSINFO_EHDR) is 0:"
                + " vdso=0, or an emulator that maps none)");
    }

    @Test
    void theVdsoSymbolShouldBeWhereTheDynamicLoaderFindsIt() {
        assumeVdso();
        Optional<SymbolLookup> loader = vdsoByLoader();
        assumeTrue(loader.isPresent(), "this libc does not register the vDSO as linux-vdso.so.1 (glibc does)");
        for (String name : VDSO_FUNCTIONS) {
            VdsoSymbols.Lookup ours = VdsoSymbols.find(name, MACHINE);
            assertThat(ours.failure()).as(name).isNull();
            assertThat(ours.address()).as(name).isEqualTo(loader.get().find(name).orElseThrow().address());
        }
        assertThat(ClockGettime.TARGET.function().address())
                .isEqualTo(loader.get().find(CLOCK_GETTIME).orElseThrow().address());
        assertThat(ClockGettimeStub.describe()).startsWith("the vDSO's clock_gettime, through the nanosecond stub");
    }

    @Test
    void anAbsentSymbolOrAnotherMachineShouldBeRefusedWithTheReason() {
        assumeVdso();
        VdsoSymbols.Lookup none = VdsoSymbols.find("__vdso_no_such_function", MACHINE);
        assertThat(none.found()).isFalse();
        assertThat(none.failure()).isEqualTo("the vDSO defines no function __vdso_no_such_function");
        // A prefix of a real name is not that name.
        assertThat(VdsoSymbols.find(CLOCK_GETTIME.substring(0, CLOCK_GETTIME.length() - 4), MACHINE).found()).isFalse();
        VdsoSymbols.Lookup other = VdsoSymbols.find(CLOCK_GETTIME, OTHER_MACHINE);
        assertThat(other.found()).isFalse();
        assertThat(other.failure()).contains("e_machine is " + MACHINE + ", expected " + OTHER_MACHINE);
    }

    @Test
    void aCopyOfTheImageShouldBeParsedAtItsOwnAddressAndDamageRefused() throws IOException {
        assumeVdso();
        long base = VdsoSymbols.imageAddress();
        long size = vdsoMappingSize(base);
        long real = VdsoSymbols.find(CLOCK_GETTIME, MACHINE).address();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment original = MemorySegment.ofAddress(base).reinterpret(size);
            MemorySegment copy = arena.allocate(size, 4096);

            copy.copyFrom(original);
            assertThat(VdsoSymbols.find(copy, CLOCK_GETTIME, MACHINE).address())
                    .isEqualTo(copy.address() + (real - base));

            copy.copyFrom(original);
            copy.set(JAVA_BYTE, 1, (byte) 'X');
            assertThat(VdsoSymbols.find(copy, CLOCK_GETTIME, MACHINE).failure()).contains("no ELF magic");

            copy.copyFrom(original);
            copy.set(JAVA_BYTE, 4, (byte) 1); // ELFCLASS32
            assertThat(VdsoSymbols.find(copy, CLOCK_GETTIME, MACHINE).failure()).contains("ELF64");

            // A window shorter than the image: the reads are bounded, the lookup refused.
            copy.copyFrom(original);
            assertThat(VdsoSymbols.find(copy.asSlice(0, 1024), CLOCK_GETTIME, MACHINE).failure())
                    .contains("malformed");

            // Without DT_HASH the GNU hash table counts the symbols; without either the lookup is refused.
            copy.copyFrom(original);
            long hash = dynamicEntry(copy, 4);
            assumeTrue(hash >= 0, "this vDSO has no DT_HASH to remove");
            copy.set(JAVA_LONG_UNALIGNED, hash, 21); // DT_DEBUG: ignored
            assertThat(VdsoSymbols.find(copy, CLOCK_GETTIME, MACHINE).address())
                    .isEqualTo(copy.address() + (real - base));
            long gnuHash = dynamicEntry(copy, 0x6ffffef5L);
            assumeTrue(gnuHash >= 0, "this vDSO has no DT_GNU_HASH");
            copy.set(JAVA_LONG_UNALIGNED, gnuHash, 21);
            assertThat(VdsoSymbols.find(copy, CLOCK_GETTIME, MACHINE).failure())
                    .contains("neither DT_HASH nor DT_GNU_HASH");

            // A symbol table pointing past the image.
            copy.copyFrom(original);
            long symtab = dynamicEntry(copy, 6);
            copy.set(JAVA_LONG_UNALIGNED, symtab + 8, 1L << 40);
            assertThat(VdsoSymbols.find(copy, CLOCK_GETTIME, MACHINE).failure()).contains("malformed");
        }
    }

    @Test
    void withoutTheVdsoSymbolLibcShouldServeAndSayWhy() {
        MemorySegment libc = Linker().defaultLookup().find("clock_gettime").orElseThrow();
        ClockGettime.Target t = ClockGettime.target(new VdsoSymbols.Lookup(0, "the kernel mapped no vDSO"), libc);
        assertThat(t.function().address()).isEqualTo(libc.address());
        assertThat(t.description()).isEqualTo("libc's clock_gettime (the kernel mapped no vDSO)");
        ClockGettime.Target v = ClockGettime.target(new VdsoSymbols.Lookup(0x1000, null), libc);
        assertThat(v.function().address()).isEqualTo(0x1000);
        assertThat(ClockGettime.target(new VdsoSymbols.Lookup(0, "x"), null)).isNull();
    }

    @Test
    void theReadPathShouldAgreeAndInvalidIdsFailAsBefore() {
        for (ClockId clock : new ClockId[] {ClockId.REALTIME, ClockId.MONOTONIC, ClockId.BOOTTIME, ClockId.MONOTONIC_RAW}) {
            long before = libc(clock.id());
            long read = ClockGettimeStub.clockGettimeNanos(clock.id());
            assertThat(read).as(clock.name()).isBetween(before, libc(clock.id()));
        }
        for (int id : INVALID_IDS) {
            assertThatThrownBy(() -> ClockGettimeStub.clockGettimeNanos(id))
                    .isInstanceOf(ErrnoException.class)
                    .hasMessage("clock_gettime(" + id + ") failed: " + Errno.describe(LinuxTime.clockGettimeErrno(id)))
                    .satisfies(e -> assertThat(((ErrnoException) e).errno()).isEqualTo(Errno.EINVAL));
        }
    }

    private static long libc(int id) {
        return org.timekeeping4j.testing.KernelClock.libcClockGettime(id);
    }

    private static java.lang.foreign.Linker Linker() {
        return java.lang.foreign.Linker.nativeLinker();
    }

    private static Optional<SymbolLookup> vdsoByLoader() {
        try {
            return Optional.of(SymbolLookup.libraryLookup("linux-vdso.so.1", Arena.global()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The [vdso] mapping's size from /proc/self/maps. */
    private static long vdsoMappingSize(long base) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            if (line.endsWith("[vdso]")) {
                String[] range = line.substring(0, line.indexOf(' ')).split("-");
                assertThat(Long.parseUnsignedLong(range[0], 16)).isEqualTo(base);
                return Long.parseUnsignedLong(range[1], 16) - base;
            }
        }
        throw new AssertionError("no [vdso] line in /proc/self/maps");
    }

    /** The offset in {@code image} of the dynamic entry with {@code tag}, or -1 (the test's own little parser). */
    private static long dynamicEntry(MemorySegment image, long tag) {
        long phoff = image.get(JAVA_LONG_UNALIGNED, 32);
        int phnum = Short.toUnsignedInt(image.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, 56));
        for (int i = 0; i < phnum; i++) {
            long ph = phoff + i * 56L;
            if (image.get(JAVA_INT_UNALIGNED, ph) == 2) { // PT_DYNAMIC
                long dyn = image.get(JAVA_LONG_UNALIGNED, ph + 8);
                for (long at = dyn; image.get(JAVA_LONG_UNALIGNED, at) != 0; at += 16) {
                    if (image.get(JAVA_LONG_UNALIGNED, at) == tag) {
                        return at;
                    }
                }
            }
        }
        return -1;
    }
}
