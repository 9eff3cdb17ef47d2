package org.timekeeping4j.clocksource;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.machine.Stubs;

/**
 * timekeeping4j.execmem takes allow (the default) or deny; anything else is an error naming both, as an unknown
 * timekeeping4j.counter is (issue 15: "maybe" used to mean allow, silently). The property itself is not set here:
 * the stubs' holders read it once, process-wide; tk4j's SystemPropertiesTest runs a JVM with it.
 */
class ExecmemPropertyTest {

    @Test
    void onlyAllowAndDenyAreModes() {
        assertThat(Stubs.execmemError(null)).isNull();
        assertThat(Stubs.execmemError("allow")).isNull();
        assertThat(Stubs.execmemError(" Deny ")).isNull();
        assertThat(Stubs.execmemError("maybe")).isEqualTo(
                "timekeeping4j.execmem=maybe is not an execmem mode; use one of allow, deny");
        assertThat(Stubs.execmemError("")).contains("use one of allow, deny");
        assertThat(Stubs.execmemError("denied")).contains("timekeeping4j.execmem=denied");
    }

    @Test
    void theKernelModeIsReportedAsAChoice() {
        CounterSelection s = CounterSelector.select(CounterSelector.Mode.KERNEL, new CounterSelectorTest.Fake());
        assertThat(s.rejected()).singleElement().extracting(Rejection::reason).asString()
                .contains("timekeeping4j.counter=kernel chose the kernel's clocks");
    }
}
