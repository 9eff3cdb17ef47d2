package org.timekeeping4j.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.arch.VdsoAlgorithm;

/**
 * The assembly sources next to the machine code (x86-vdso-read.S, x86-vclock-read.S,
 * arm64-vdso-read.S, x86-clock-gettime.s, arm64-clock-gettime.s, x86-counters.s, arm64-counters.s) are the
 * code: each is reassembled with GNU as, for every build the Java constants hold, and its bytes compared with
 * them. Where the assembler is not installed the test says so and is skipped (x86: binutils; arm64:
 * binutils-aarch64-linux-gnu, which Debian packages), except in CI, which installs both and requires them.
 */
class AssemblySourcesTest {

    private static final String X86_AS = "as";
    private static final String X86_OBJCOPY = "objcopy";
    private static final String ARM64_AS = "aarch64-linux-gnu-as";
    private static final String ARM64_OBJCOPY = "aarch64-linux-gnu-objcopy";

    /** The sources: src/main/java of this module, found from the test classes' location (target/test-classes). */
    private static Path source(String name) throws URISyntaxException {
        Path testClasses = Path.of(AssemblySourcesTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return testClasses.getParent().getParent().resolve("src/main/java/org/timekeeping4j/machine").resolve(name);
    }

    private static boolean installed(String tool) {
        try {
            Process p = new ProcessBuilder(tool, "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /**
     * Skips where the assembler is missing, unless {@code -Dtimekeeping4j.test.requireAssemblers=true} (.ci/run
     * passes it, after installing both): then a missing assembler fails, so that CI never passes the machine code
     * unchecked.
     */
    private static void requireTools(String as, String objcopy, String packageName) {
        boolean installed = installed(as) && installed(objcopy);
        String why = as + " or " + objcopy + " is not installed (Debian: " + packageName
                + "): the sources cannot be reassembled here";
        if (Boolean.getBoolean("timekeeping4j.test.requireAssemblers")) {
            assertThat(installed).as(why).isTrue();
        }
        assumeTrue(installed, why);
    }

    /**
     * Assembles {@code name} with its SLOT line (if any) replaced by {@code slot} and returns the .text bytes.
     */
    private static byte[] assemble(String as, String objcopy, String name, String slot, String... asArgs)
            throws Exception {
        String text = Files.readString(source(name), StandardCharsets.US_ASCII);
        if (slot != null) {
            String replaced = text.replaceAll("(?m)^(\\s*)SLOT$", "$1" + slot);
            assertThat(replaced).as("%s has a SLOT line", name).isNotEqualTo(text);
            text = replaced;
        }
        Path dir = Files.createTempDirectory("tk4j-asm");
        try {
            Path src = dir.resolve("a.S");
            Files.writeString(src, text, StandardCharsets.US_ASCII);
            List<String> cmd = new ArrayList<>(List.of(as));
            cmd.addAll(List.of(asArgs));
            cmd.addAll(List.of("-o", dir.resolve("a.o").toString(), src.toString()));
            run(cmd);
            run(List.of(objcopy, "-O", "binary", "-j", ".text", dir.resolve("a.o").toString(),
                    dir.resolve("a.bin").toString()));
            return Files.readAllBytes(dir.resolve("a.bin"));
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(dir);
        }
    }

    private static void run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("%s: %s", cmd, out).isZero();
    }

    /** The slots as the x86 sources' SLOT line takes them: NOP padding to 10 bytes, then the counter read. */
    private static final String[][] X86_SLOTS = {
        {"RDTSCP", ".byte 0x0f,0x1f,0x80,0,0,0,0; rdtscp"},
        {"LFENCE_RDTSC", ".byte 0x0f,0x1f,0x44,0,0; lfence; rdtsc"},
        {"RDTSC", ".byte 0x0f,0x1f,0x80,0,0,0,0,0x90; rdtsc"},
        {"TEST", "mov rax, r11; mov rdx, r11; shr rdx, 32"},
    };

    /** One clock's bound read: its arguments as distinct values with every byte set. */
    @Test
    void theBoundReadsShouldBeTheirSourcesAssembled() throws Exception {
        requireTools(X86_AS, X86_OBJCOPY, "binutils");
        long vc = 0x7f11223344556000L, ts = 0x7f11223344556040L, id = 0x0102030405060708L, vclock = 0x7f99aabbccdd0003L;
        String[] bound = {"--64", "--defsym", "BOUND=1", "--defsym", "VC=0x" + Long.toHexString(vc), "--defsym",
            "TS=0x" + Long.toHexString(ts), "--defsym", "ID=0x" + Long.toHexString(id), "--defsym",
            "VCLOCK=0x" + Long.toHexString(vclock)};
        for (String[] slot : X86_SLOTS) {
            X86VdsoCode.Flavour flavour = X86VdsoCode.Flavour.valueOf(slot[0]);
            assertThat(assemble(X86_AS, X86_OBJCOPY, "x86-vclock-read.S", slot[1], bound))
                    .as("bound, %s", slot[0])
                    .containsExactly(VclockCode.x86Bound(VclockCode.x86(flavour), vc, ts, id, vclock));
        }
    }

    @Test
    void everyX86VdsoReadShouldBeItsSourceAssembled() throws Exception {
        requireTools(X86_AS, X86_OBJCOPY, "binutils");
        String[][] slots = X86_SLOTS;
        int compared = 0;
        for (VdsoAlgorithm a : new VdsoAlgorithm[] {VdsoAlgorithm.X86_LEGACY,
                VdsoAlgorithm.X86_OVERFLOW}) {
            // The X86_OVERFLOW read is VclockCode's (the same TSC path plus the PVCLOCK and HVCLOCK modes).
            boolean vclock = a == VdsoAlgorithm.X86_OVERFLOW;
            for (String[] slot : slots) {
                byte[] assembled = vclock
                        ? assemble(X86_AS, X86_OBJCOPY, "x86-vclock-read.S", slot[1], "--64")
                        : assemble(X86_AS, X86_OBJCOPY, "x86-vdso-read.S", slot[1], "--64");
                assertThat(assembled).as("%s, %s", a, slot[0])
                        .containsExactly(X86VdsoCode.code(a, X86VdsoCode.Flavour.valueOf(slot[0])));
                compared++;
            }
        }
        assertThat(compared).isEqualTo(2 * X86VdsoCode.Flavour.values().length);
    }

    @Test
    void everyArm64VdsoReadShouldBeItsSourceAssembled() throws Exception {
        requireTools(ARM64_AS, ARM64_OBJCOPY, "binutils-aarch64-linux-gnu");
        // cntvctss_el0 by its encoding (S3_3_C14_C0_6): older assemblers do not know the FEAT_ECV name.
        assertThat(assemble(ARM64_AS, ARM64_OBJCOPY, "arm64-vdso-read.S", "isb; mrs x5, cntvct_el0"))
                .as("isb;mrs cntvct_el0").containsExactly(Arm64VdsoCode.code(Arm64VdsoCode.Flavour.ISB_CNTVCT));
        assertThat(assemble(ARM64_AS, ARM64_OBJCOPY, "arm64-vdso-read.S", "nop; mov x5, x2"))
                .as("test").containsExactly(Arm64VdsoCode.code(Arm64VdsoCode.Flavour.TEST));
        assertThat(assemble(ARM64_AS, ARM64_OBJCOPY, "arm64-vdso-read.S", "nop; mrs x5, S3_3_C14_C0_6"))
                .as("mrs cntvctss_el0").containsExactly(Arm64VdsoCode.code(Arm64VdsoCode.Flavour.CNTVCTSS));
        assertThat(assemble(ARM64_AS, ARM64_OBJCOPY, "arm64-vdso-read.S", "nop; mrs x5, cntvct_el0"))
                .as("mrs cntvct_el0").containsExactly(Arm64VdsoCode.code(Arm64VdsoCode.Flavour.CNTVCT));
    }

    /** The clock_gettime stubs, assembled with the function's address as FUNCTION (a value with every byte distinct). */
    @Test
    void theClockGettimeStubsShouldBeTheirSourcesAssembled() throws Exception {
        long function = 0x1122334455667788L;
        String defsym = "FUNCTION=0x" + Long.toHexString(function);
        requireTools(X86_AS, X86_OBJCOPY, "binutils");
        assertThat(assemble(X86_AS, X86_OBJCOPY, "x86-clock-gettime.s", null, "--64", "--defsym", defsym))
                .as("x86_64").containsExactly(ClockGettimeStub.code(Arch.X86_64, function));
        for (int clock : OWN_CLOCKS) {
            assertThat(assemble(X86_AS, X86_OBJCOPY, "x86-clock-gettime.s", null, "--64", "--defsym", defsym,
                    "--defsym", "CLOCK=" + clock))
                    .as("x86_64, clock %d's own", clock).containsExactly(ClockGettimeStub.code(Arch.X86_64, function, clock));
        }
        requireTools(ARM64_AS, ARM64_OBJCOPY, "binutils-aarch64-linux-gnu");
        assertThat(assemble(ARM64_AS, ARM64_OBJCOPY, "arm64-clock-gettime.s", null, "--defsym", defsym))
                .as("arm64").containsExactly(ClockGettimeStub.code(Arch.AARCH64, function));
        for (int clock : OWN_CLOCKS) {
            assertThat(assemble(ARM64_AS, ARM64_OBJCOPY, "arm64-clock-gettime.s", null, "--defsym", defsym,
                    "--defsym", "CLOCK=" + clock))
                    .as("arm64, clock %d's own", clock).containsExactly(ClockGettimeStub.code(Arch.AARCH64, function, clock));
        }
    }

    @Test
    void theX86CounterStubsShouldBeTheirSourceAssembled() throws Exception {
        requireTools(X86_AS, X86_OBJCOPY, "binutils");
        assertEachFunction(X86_AS, X86_OBJCOPY, "x86-counters.s", Map.of(
                "X86_RDTSC", MachineCode.X86_RDTSC,
                "X86_LFENCE_RDTSC", MachineCode.X86_LFENCE_RDTSC,
                "X86_RDTSCP", MachineCode.X86_RDTSCP,
                "X86_RDTSCP_NOAUX", MachineCode.X86_RDTSCP_NOAUX,
                "X86_CPUID", MachineCode.X86_CPUID), "--64");
    }

    @Test
    void theArm64CounterStubsShouldBeTheirSourceAssembled() throws Exception {
        requireTools(ARM64_AS, ARM64_OBJCOPY, "binutils-aarch64-linux-gnu");
        assertEachFunction(ARM64_AS, ARM64_OBJCOPY, "arm64-counters.s", Map.of(
                "A64_ISB_CNTVCT", MachineCode.A64_ISB_CNTVCT,
                "A64_CNTVCT", MachineCode.A64_CNTVCT,
                "A64_CNTVCTSS", MachineCode.A64_CNTVCTSS,
                "A64_CNTFRQ", MachineCode.A64_CNTFRQ));
    }

    /**
     * A source of several functions, each in an {@code .ifdef NAME} block named after its MachineCode constant:
     * the blocks are exactly {@code constants}' names, nothing is assembled outside them, and each assembled alone
     * ({@code --defsym NAME=1}) is its constant.
     */
    private static void assertEachFunction(String as, String objcopy, String name, Map<String, byte[]> constants,
            String... asArgs) throws Exception {
        String text = Files.readString(source(name), StandardCharsets.US_ASCII);
        List<String> blocks = Pattern.compile("(?m)^\\s*\\.ifdef\\s+(\\w+)\\s*$").matcher(text).results()
                .map(m -> m.group(1)).collect(Collectors.toList());
        assertThat(blocks).as("%s's functions", name).containsExactlyInAnyOrderElementsOf(constants.keySet());
        assertThat(assemble(as, objcopy, name, null, asArgs)).as("%s outside its .ifdef blocks", name).isEmpty();
        for (Map.Entry<String, byte[]> c : constants.entrySet()) {
            List<String> args = new ArrayList<>(List.of(asArgs));
            args.addAll(List.of("--defsym", c.getKey() + "=1"));
            assertThat(assemble(as, objcopy, name, null, args.toArray(String[]::new)))
                    .as("%s, %s", name, c.getKey()).containsExactly(c.getValue());
        }
    }

    /** The ids of the clocks with their own stub, and the largest id one can take. */
    private static final int[] OWN_CLOCKS = {0, 1, 4, 7, 11, 0xffff};
}
