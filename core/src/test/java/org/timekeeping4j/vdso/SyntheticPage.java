package org.timekeeping4j.vdso;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A vDSO data page in native memory, written field by field in one layout, for tests. */
final class SyntheticPage {

    final VdsoLayout layout;
    final MemorySegment page;

    SyntheticPage(VdsoLayout layout, Arena arena) {
        this(layout, arena.allocate(4096, 4096));
    }

    /** Over {@code page} (at least 4096 bytes). */
    SyntheticPage(VdsoLayout layout, MemorySegment page) {
        this.layout = layout;
        this.page = page;
    }

    long baseAddress(int base) {
        return page.address() + layout.baseOffset(base);
    }

    long timestampAddress(int base, int slot) {
        return page.address() + layout.timestampOffset(base, slot);
    }

    /** Writes base {@code base}'s fields and basetime[slot]. */
    SyntheticPage base(int base, int seq, int mode, VdsoReference.Base b, int slot) {
        long o = layout.baseOffset(base);
        page.set(ValueLayout.JAVA_INT_UNALIGNED, o + VdsoLayout.SEQ, seq);
        page.set(ValueLayout.JAVA_INT_UNALIGNED, o + VdsoLayout.CLOCK_MODE, mode);
        page.set(ValueLayout.JAVA_LONG_UNALIGNED, o + VdsoLayout.CYCLE_LAST, b.cycleLast());
        if (layout.maxCyclesOffset() >= 0) {
            page.set(ValueLayout.JAVA_LONG_UNALIGNED, o + layout.maxCyclesOffset(), b.maxCycles());
        }
        page.set(ValueLayout.JAVA_LONG_UNALIGNED, o + layout.maskOffset(), b.mask());
        page.set(ValueLayout.JAVA_INT_UNALIGNED, o + layout.multOffset(), (int) b.mult());
        page.set(ValueLayout.JAVA_INT_UNALIGNED, o + layout.shiftOffset(), b.shift());
        long ts = layout.timestampOffset(base, slot);
        page.set(ValueLayout.JAVA_LONG_UNALIGNED, ts, b.sec());
        page.set(ValueLayout.JAVA_LONG_UNALIGNED, ts + 8, b.nsec());
        return this;
    }

    void seq(int base, int seq) {
        page.set(ValueLayout.JAVA_INT_UNALIGNED, layout.baseOffset(base) + VdsoLayout.SEQ, seq);
    }

    void mode(int base, int mode) {
        page.set(ValueLayout.JAVA_INT_UNALIGNED, layout.baseOffset(base) + VdsoLayout.CLOCK_MODE, mode);
    }
}
