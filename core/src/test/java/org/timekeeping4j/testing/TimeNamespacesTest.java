package org.timekeeping4j.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TimeNamespacesTest {

    /** The kernel's rule (proc_timens_set_offset): the namespace's clock, now plus offset, is not negative. */
    private static void assertAllowed(long[][] pairs, long mono, long boot) {
        for (long[] p : pairs) {
            assertThat(mono + p[0]).as("MONOTONIC %d + %d", mono, p[0]).isNotNegative();
            assertThat(boot + p[1]).as("BOOTTIME %d + %d", boot, p[1]).isNotNegative();
        }
    }

    @Test
    void offsetsShouldStayWithinWhatAJustBootedMachineAllows() {
        for (long[] clocks : new long[][] {{0, 0}, {1, 1}, {3, 3}, {45, 47}, {240, 250}, {900, 912}, {86_400, 90_000}}) {
            long[][] pairs = TimeNamespaces.offsetPairs(clocks[0], clocks[1]);
            assertAllowed(pairs, clocks[0], clocks[1]);
            assertThat(pairs[1][1]).as("BOOTTIME's offset below MONOTONIC's").isLessThan(pairs[1][0]);
        }
    }

    @Test
    void negativeOffsetsShouldBeChosenWhereTheClocksAllowThem() {
        long[][] young = TimeNamespaces.offsetPairs(60, 62);
        assertThat(young[1][1]).isEqualTo(-31);
        assertThat(young[2][0]).isEqualTo(-30);
        long[][] old = TimeNamespaces.offsetPairs(100_000, 100_500);
        assertThat(old[1][1]).isEqualTo(-500);
        assertThat(old[2][0]).isEqualTo(-100);
        long[][] newborn = TimeNamespaces.offsetPairs(1, 1);
        assertThat(newborn[1][1]).isEqualTo(500);
        assertThat(newborn[2][0]).isZero();
    }

    @Test
    void theHostsUserNamespaceShouldNeedBothCapabilities() {
        assertThat(TimeNamespaces.mayUseHostUserNamespace("Name:\tx\nCapEff:\t000001ffffffffff\n")).isTrue();
        // root in a container without CAP_SYS_TIME (bit 25)
        assertThat(TimeNamespaces.mayUseHostUserNamespace("CapEff:\t000001fffdffffff\n")).isFalse();
        // without CAP_SYS_ADMIN (bit 21)
        assertThat(TimeNamespaces.mayUseHostUserNamespace("CapEff:\t000001ffffdfffff\n")).isFalse();
        assertThat(TimeNamespaces.mayUseHostUserNamespace("CapEff:\t0000000000000000\n")).isFalse();
        assertThat(TimeNamespaces.mayUseHostUserNamespace("Name:\tno caps line\n")).isFalse();
    }
}
