package org.timekeeping4j.linux;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The one seqlock reader: what begin and retry say of a count, and when a reader gives up. */
class SeqcountTest {

    @Test
    void retryShouldSayWhetherTheCountMovedSinceBegin() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment page = arena.allocate(16, 8);
            page.set(ValueLayout.JAVA_INT, 4, 6);
            int begun = Seqcount.begin(page, 4);
            assertThat(begun).isEqualTo(6);
            assertThat(Seqcount.writing(begun)).isFalse();
            assertThat(Seqcount.retry(page, 4, begun)).as("unchanged").isFalse();
            page.set(ValueLayout.JAVA_INT, 4, 7); // a writer began
            assertThat(Seqcount.writing(Seqcount.begin(page, 4))).isTrue();
            assertThat(Seqcount.retry(page, 4, begun)).as("odd since").isTrue();
            page.set(ValueLayout.JAVA_INT, 4, 8); // and ended
            assertThat(Seqcount.retry(page, 4, begun)).as("moved on").isTrue();
            // 16 bits, unsigned: 0xfffe is even, and a wrap to 2 is a move.
            page.set(ValueLayout.JAVA_SHORT, 10, (short) 0xfffe);
            int g = Seqcount.begin16(page, 10);
            assertThat(g).isEqualTo(0xfffe);
            assertThat(Seqcount.retry16(page, 10, g)).isFalse();
            page.set(ValueLayout.JAVA_SHORT, 10, (short) 2);
            assertThat(Seqcount.retry16(page, 10, g)).isTrue();
        }
    }

    @Test
    void aReaderShouldSpinThenYieldThenGiveUpAfterBothItsBudgets() {
        long giveUpAt = 0;
        for (int attempt = 0; attempt < Seqcount.SPIN_READS; attempt++) {
            giveUpAt = Seqcount.pace(attempt, giveUpAt);
        }
        assertThat(giveUpAt).as("no clock read while spinning").isZero();
        giveUpAt = Seqcount.pace(Seqcount.SPIN_READS, giveUpAt);
        assertThat(giveUpAt).as("the budget starts at the first yield").isNotZero().isNotEqualTo(Seqcount.GIVE_UP);
        long past = giveUpAt - 1 - Seqcount.SETTLE_BUDGET_NANOS; // as if the budget had run out long ago
        assertThat(Seqcount.pace(Seqcount.MIN_READS - 1, past)).as("too few attempts yet").isEqualTo(past);
        assertThat(Seqcount.pace(Seqcount.MIN_READS, past)).isEqualTo(Seqcount.GIVE_UP);
        assertThat(Seqcount.notSettled(65536, 7)).isEqualTo(
                "never settled within 100 ms (65536 reads; now 7, odd: writer stuck mid-update)");
        assertThat(Seqcount.notSettled(65536, 8)).endsWith("now 8, changing too fast)");
    }
}
