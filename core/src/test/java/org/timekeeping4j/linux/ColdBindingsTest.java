package org.timekeeping4j.linux;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cheap ways exact mode's discovery asks the kernel (no handle of their own, no regex, no NIO), each against
 * the call it replaces: /proc/self/auxv against getauxval, /proc/sys/kernel/osrelease against uname, the
 * functions of one descriptor against the kernel's answers (errno included), the hand-made cpuinfo split.
 */
class ColdBindingsTest {

    @Test
    void theAuxiliaryVectorFromProcShouldBeGetauxvals() throws Throwable {
        MethodHandle getauxval = LibC.handle("getauxval", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
        long fromProc = VdsoSymbols.auxv(VdsoSymbols.AT_SYSINFO_EHDR);
        assumeTrue(fromProc >= 0, "/proc/self/auxv cannot be read here");
        assertThat(fromProc).isEqualTo((long) getauxval.invokeExact(VdsoSymbols.AT_SYSINFO_EHDR));
        assertThat(VdsoSymbols.auxv(6)).isEqualTo((long) getauxval.invokeExact(6L)); // AT_PAGESZ
        assertThat(VdsoSymbols.auxv(0x7fff_0000L)).isZero(); // no such entry: 0, as getauxval
        assertThat(VdsoSymbols.imageAddress()).isEqualTo(fromProc);
    }

    @Test
    void theReleaseFromProcShouldBeUnames() {
        assertThat(KernelInfo.release()).isEqualTo(LinuxTime.uname().release());
    }

    @Test
    void theSixLongFunctionsShouldReturnResultsAndErrno() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(LibC.CAPTURE_STATE);
            assertThat(LibC.callInt(LibC.SelfCalls.CLOSE, state, -1, 0, 0)).isEqualTo(-1);
            assertThat(LibC.errno(state)).isEqualTo(Errno.EBADF);
            MemorySegment fds = arena.allocate(8);
            assertThat(LibC.callInt(LibC.SelfCalls.PIPE2, state, fds.address(), 0, 0)).isZero();
            MemorySegment bytes = arena.allocate(16);
            int w = fds.get(java.lang.foreign.ValueLayout.JAVA_INT, 4);
            assertThat(LibC.call(LibC.SelfCalls.WRITE, state, w, bytes.address(), 16, 0, 0, 0)).isEqualTo(16);
            assertThat(LibC.callInt(LibC.SelfCalls.CLOSE, state, w, 0, 0)).isZero();
            assertThat(LibC.callInt(LibC.SelfCalls.CLOSE, state, fds.get(java.lang.foreign.ValueLayout.JAVA_INT, 0),
                    0, 0)).isZero();
            assertThat(LibC.callInt(LibC.SelfCalls.MUNMAP, state, 4097, 4096, 0)).isEqualTo(-1); // not page-aligned
            assertThat(LibC.errno(state)).isEqualTo(Errno.EINVAL);
        }
    }

    @Test
    void thePageProbeShouldTellReadableFromUnmappedMemory() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mine = arena.allocate(4096, 4096);
            assertThat(PageProbe.copyErrno(mine.address(), 32)).isZero();
        }
        assertThat(PageProbe.copyErrno(4096, 32)).isEqualTo(PageProbe.EFAULT); // page 1: never mapped
    }

    @Test
    void executableMemoryShouldHoldTheCodeReadOnly() {
        byte[] code = {(byte) 0xc3, 0x01, 0x02};
        MemorySegment page = ExecutableMemory.map(code);
        assertThat(page.byteSize()).isEqualTo(code.length);
        assertThat(page.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsExactly(code);
        assertThat(PageProbe.copyErrno(page.address(), code.length)).isZero();
    }

    @Test
    void theCpuinfoSplitShouldKeepEveryFlagInOrder(@TempDir Path dir) throws IOException {
        Path x86 = dir.resolve("x86");
        Files.writeString(x86, "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vme  de\tpse rdtscp\n"
                + "bugs\t\t: spectre_v1\n\nprocessor\t: 1\nflags\t\t: other\n");
        assertThat(KernelInfo.cpuFlags(x86)).containsExactly("fpu", "vme", "de", "pse", "rdtscp");
        Path arm = dir.resolve("arm");
        Files.writeString(arm, "processor\t: 0\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd evtstrm\nCPU part\t: 0xd0c");
        assertThat(KernelInfo.cpuFlags(arm)).containsExactly("fp", "asimd", "evtstrm");
        Path none = dir.resolve("none");
        Files.writeString(none, "processor\t: 0\nflagsless line\n");
        assertThat(KernelInfo.cpuFlags(none)).isEmpty();
    }
}
