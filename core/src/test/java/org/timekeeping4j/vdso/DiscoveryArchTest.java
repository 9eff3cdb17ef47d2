package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.linux.Platform;

/** Exact mode on an architecture without a counter descriptor: refused before [vvar] is touched. */
class DiscoveryArchTest {

    @Test
    void anUnknownArchitectureShouldBeRefusedNamingIt() {
        assumeTrue(Platform.UNSUPPORTED_REASON == null, Platform.UNSUPPORTED_REASON);
        assumeTrue(System.getProperty(KernelVdso.PROPERTY) == null && System.getProperty("timekeeping4j.counter") == null,
                "exact mode configured by a property: refused for that reason first");
        for (String machine : new String[] {"riscv64", "ppc64le", "s390x"}) {
            Discovery.Result r = Discovery.run(machine);
            assertThat(r.reason()).isEqualTo(Arch.noDescriptor(machine));
            assertThat(r.layout()).isNull(); // no layout of x86_64 or arm64 tried
            assertThat(r.mapping()).isNull(); // [vvar] not even looked up
            assertThat(r.read()).isNull();
            assertThat(r.rejected()).isEmpty();
        }
    }

    @Test
    void layoutsShouldBeRecognisedOnlyForTheirOwnArchitecture() {
        for (VdsoLayout l : VdsoLayout.values()) {
            assertThat(l.algorithm()).as(l.name()).isNotNull();
            assertThat(l.arch()).as(l.name()).isEqualTo(Arch.of(l.algorithm().arch().machine()))
                    .isEqualTo(l.name().startsWith("X86_") ? Arch.X86_64 : Arch.AARCH64);
        }
    }
}
