package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.arch.Arch;

/**
 * Layout recognition by content over synthetic pages: every known layout is recognised as itself and as
 * nothing else; a time-namespace page, a seq stuck odd, a pvclock page, garbage and an empty page are
 * refused with a reason. Runs on every architecture (pure Java over native memory).
 */
class VdsoLayoutTest {

    private static final long NOW = 1_764_547_200L; // seconds: REALTIME of the synthetic pages
    private static final VdsoLayout.Expected EXPECTED = new VdsoLayout.Expected(NOW, 86_400, 86_399);

    /** Writes a page as the kernel would for {@code layout}: both bases, same seq and mode. */
    static SyntheticPage kernelPage(VdsoLayout layout, Arena arena, int seq, int mode) {
        SyntheticPage p = new SyntheticPage(layout, arena);
        long mask = layout.arch() == Arch.AARCH64 ? VdsoLayout.ARM64_MASK : -1L;
        int shift = 24;
        long mult = 6_452_775;
        long maxCycles = layout.maxCyclesOffset() >= 0 ? 0x257a3c3232dL : 0;
        p.base(0, seq, mode, new VdsoReference.Base(123_456_789L, maxCycles, mask, mult + 3, shift, NOW,
                500_000_000L << shift), 0);
        p.base(0, seq, mode, new VdsoReference.Base(123_456_789L, maxCycles, mask, mult + 3, shift, 86_400,
                12L << shift), 1);
        p.base(1, seq, mode, new VdsoReference.Base(123_456_789L, maxCycles, mask, mult, shift, 86_399,
                999_999_999L << shift), 4);
        return p;
    }

    @Test
    void everyLayoutShouldBeRecognisedAsItselfOnly() {
        for (VdsoLayout layout : VdsoLayout.values()) {
            try (Arena arena = Arena.ofConfined()) {
                SyntheticPage p = kernelPage(layout, arena, 1000, VdsoLayout.CLOCKMODE_COUNTER);
                VdsoLayout.Recognition r = VdsoLayout.recognise(p.page, layout.arch(), EXPECTED);
                assertThat(r.fitting()).as("%s; rejected %s", layout, r.rejected()).containsExactly(layout);
                assertThat(r.layout()).isEqualTo(layout);
            }
        }
    }

    @Test
    void aTimeNamespacePageShouldBeRefusedAsSuch() {
        for (VdsoLayout layout : VdsoLayout.values()) {
            try (Arena arena = Arena.ofConfined()) {
                SyntheticPage p = kernelPage(layout, arena, 1, VdsoLayout.CLOCKMODE_TIMENS);
                VdsoLayout.Recognition r = VdsoLayout.recognise(p.page, layout.arch(), EXPECTED);
                assertThat(r.layout()).isNull();
                assertThat(r.rejected()).anyMatch(s -> s.startsWith(layout.name()) && s.contains("time-namespace"));
            }
        }
    }

    @Test
    void aSeqStuckOddShouldBeRefused() {
        for (VdsoLayout layout : VdsoLayout.values()) {
            try (Arena arena = Arena.ofConfined()) {
                SyntheticPage p = kernelPage(layout, arena, 1001, VdsoLayout.CLOCKMODE_COUNTER);
                VdsoLayout.Recognition r = VdsoLayout.recognise(p.page, layout.arch(), EXPECTED);
                assertThat(r.layout()).isNull();
                assertThat(r.rejected()).anyMatch(s -> s.startsWith(layout.name()) && s.contains("odd"));
            }
        }
    }

    @Test
    void aPvclockPageIsRecognisedButItsModeIsNotTheCounter() {
        // Recognition accepts the layout (clock_mode 2 is a known mode); Discovery then refuses to serve,
        // and every read checks clock_mode again.
        try (Arena arena = Arena.ofConfined()) {
            SyntheticPage p = kernelPage(VdsoLayout.X86_VDSO_CLOCK_6_15, arena, 8, 2);
            VdsoLayout.Recognition r = VdsoLayout.recognise(p.page, Arch.X86_64, EXPECTED);
            assertThat(r.layout()).isEqualTo(VdsoLayout.X86_VDSO_CLOCK_6_15);
            assertThat(p.page.get(ValueLayout.JAVA_INT, r.layout().baseOffset(0) + VdsoLayout.CLOCK_MODE))
                    .isNotEqualTo(VdsoLayout.CLOCKMODE_COUNTER);
            assertThat(Discovery.modeName(2)).contains("PVCLOCK");
        }
    }

    @Test
    void garbageAndEmptyPagesShouldFitNoLayout() {
        SplittableRandom r = new SplittableRandom(7);
        for (Arch arch : Arch.values()) {
            try (Arena arena = Arena.ofConfined()) {
                SyntheticPage p = new SyntheticPage(VdsoLayout.X86_VDSO_CLOCK_6_15, arena);
                assertThat(VdsoLayout.recognise(p.page, arch, EXPECTED).fitting()).as("zeros").isEmpty();
                for (int trial = 0; trial < 1000; trial++) {
                    for (long o = 0; o < 4096; o += 8) {
                        p.page.set(ValueLayout.JAVA_LONG, o, r.nextLong());
                    }
                    assertThat(VdsoLayout.recognise(p.page, arch, EXPECTED).fitting()).as("garbage").isEmpty();
                }
            }
        }
    }

    @Test
    void aPageOfAnotherArchitectureShouldNotBeTakenForThisOne() {
        try (Arena arena = Arena.ofConfined()) {
            SyntheticPage arm = kernelPage(VdsoLayout.ARM64_VDSO_CLOCK_6_15, arena, 4, VdsoLayout.CLOCKMODE_COUNTER);
            assertThat(VdsoLayout.recognise(arm.page, Arch.X86_64, EXPECTED).fitting()).isEmpty();
        }
    }

    @Test
    void theMapsParserShouldMatchVvarExactly() {
        VvarMapping m = VvarMapping.parse(List.of(
                "7f4ba25b0000-7f4ba25b4000 r--p 00000000 00:00 0                          [vvar]",
                "7f4ba25b4000-7f4ba25b6000 r--p 00000000 00:00 0                          [vvar_vclock]",
                "7f4ba25b6000-7f4ba25b8000 r-xp 00000000 00:00 0                          [vdso]"));
        assertThat(m.start()).isEqualTo(0x7f4ba25b0000L);
        assertThat(m.size()).isEqualTo(4 * 4096);
        assertThat(m.vdsoStart()).isEqualTo(0x7f4ba25b6000L);
        assertThat(VvarMapping.parse(List.of(
                "7f4ba25b4000-7f4ba25b6000 r--p 00000000 00:00 0  [vvar_vclock]"))).isNull();
    }

    @Test
    void onlyTheLinesThatEndInABracketReachTheParser() {
        String maps = String.join("\n",
                "00400000-00401000 r--p 00000000 fd:00 1312 /usr/lib/jvm/bin/java",
                "7f4b90000000-7f4b90021000 rw-p 00000000 00:00 0 ",
                "7f4ba2400000-7f4ba2600000 rw-p 00000000 00:00 0 [anon: odd]",
                "7f4ba25b0000-7f4ba25b4000 r--p 00000000 00:00 0                          [vvar]",
                "7f4ba25b6000-7f4ba25b8000 r-xp 00000000 00:00 0                          [vdso]",
                "7f4ba2600000-7f4ba2601000 r--p 00000000 fd:00 9 /tmp/a file]",
                "7ffd2a000000-7ffd2a021000 rw-p 00000000 00:00 0                          [stack]");
        String[] kept = VvarMapping.bracketed(maps.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat(kept).containsExactly(maps.lines().filter(l -> l.endsWith("]")).toArray(String[]::new));
        assertThat(kept).hasSize(5); // the last line has no newline and is kept too
        VvarMapping m = VvarMapping.parse(List.of(kept));
        assertThat(m.start()).isEqualTo(0x7f4ba25b0000L);
        assertThat(m.vdsoStart()).isEqualTo(0x7f4ba25b6000L);
        assertThat(VvarMapping.bracketed(new byte[0])).isEmpty();
        assertThat(VvarMapping.bracketed("]\n\n]".getBytes(java.nio.charset.StandardCharsets.US_ASCII)))
                .containsExactly("]", "]");
    }

    @Test
    void theAuxBasesFollowTheTwoClockBasesInTheVdsoClockLayouts() {
        // struct vdso_time_data (6.17+): clock_data[2], then aux_clock_data[8], each a struct vdso_clock.
        assertThat(VdsoLayout.X86_VDSO_CLOCK_6_15.auxBaseOffset(0)).isEqualTo(464);
        assertThat(VdsoLayout.X86_VDSO_CLOCK_6_15.auxBaseOffset(7)).isEqualTo(464 + 7 * 232);
        assertThat(VdsoLayout.ARM64_VDSO_CLOCK_6_15.auxBaseOffset(0)).isEqualTo(448);
        assertThat(VdsoLayout.ARM64_VDSO_CLOCK_6_15.auxBaseOffset(7) + 224).isLessThanOrEqualTo(2240); // then tz
        for (VdsoLayout l : new VdsoLayout[] {VdsoLayout.X86_VDSO_DATA_5_3, VdsoLayout.X86_VDSO_DATA_6_10,
                VdsoLayout.X86_VDSO_DATA_6_13, VdsoLayout.ARM64_VDSO_DATA_5_3}) {
            assertThat(l.auxOffset()).as(l.name()).isEqualTo(-1);
        }
    }
}
