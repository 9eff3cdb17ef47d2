package org.timekeeping4j.device;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Struct sizes, offsets and ioctl numbers against the uapi headers (reference numbers). */
class AbiTest {

    @Test
    void ptpStructsHaveTheKernelsSizesAndOffsets() {
        assertThat(Abi.Ptp.CLOCK_TIME.byteSize()).isEqualTo(16);
        assertThat(Abi.Ptp.TIME_SEC).isZero();
        assertThat(Abi.Ptp.TIME_NSEC).isEqualTo(8);
        assertThat(Abi.Ptp.CAPS.byteSize()).isEqualTo(80);
        assertThat(Abi.Ptp.CAPS.byteOffset(groupElement("cross_timestamping"))).isEqualTo(24);
        assertThat(Abi.Ptp.CAPS.byteOffset(groupElement("max_phase_adj"))).isEqualTo(32);
        assertThat(Abi.Ptp.SYS_OFFSET.byteSize()).isEqualTo(832);
        assertThat(Abi.Ptp.SYS_OFFSET_TS).isEqualTo(16);
        assertThat(Abi.Ptp.basicTime(50)).isEqualTo(816);
        assertThat(Abi.Ptp.SYS_OFFSET_EXTENDED.byteSize()).isEqualTo(1216);
        assertThat(Abi.Ptp.EXTENDED_CLOCKID).isEqualTo(4);
        assertThat(Abi.Ptp.EXTENDED_TS).isEqualTo(16);
        assertThat(Abi.Ptp.extendedTime(1, 2)).isEqualTo(16 + 48 + 32);
        assertThat(Abi.Ptp.extendedTime(24, 2)).isEqualTo(1216 - 16);
        assertThat(Abi.Ptp.SYS_OFFSET_PRECISE.byteSize()).isEqualTo(64);
        assertThat(Abi.Ptp.PRECISE_DEVICE).isZero();
        assertThat(Abi.Ptp.PRECISE_REALTIME).isEqualTo(16);
        assertThat(Abi.Ptp.PRECISE_MONORAW).isEqualTo(32);
    }

    @Test
    void ptpIoctlNumbersMatchTheHeader() {
        assertThat(Abi.Ptp.CLOCK_GETCAPS).isEqualTo(0x80503D01L);
        assertThat(Abi.Ptp.SYS_OFFSET_REQ).isEqualTo(0x43403D05L);
        assertThat(Abi.Ptp.SYS_OFFSET_PRECISE_REQ).isEqualTo(0xC0403D08L);
        assertThat(Abi.Ptp.SYS_OFFSET_EXTENDED_REQ).isEqualTo(0xC4C03D09L);
        // The *2 variants differ only in nr: 0x0A, 0x0E, 0x11, 0x12.
        assertThat(Abi.ioc(Abi.IOC_READ, '=', 0x0A, 80)).isEqualTo(0x80503D0AL);
        assertThat(Abi.ioc(Abi.IOC_WRITE, '=', 0x0E, 832)).isEqualTo(0x43403D0EL);
        assertThat(Abi.ioc(Abi.IOC_READ | Abi.IOC_WRITE, '=', 0x11, 64)).isEqualTo(0xC0403D11L);
        assertThat(Abi.ioc(Abi.IOC_READ | Abi.IOC_WRITE, '=', 0x12, 1216)).isEqualTo(0xC4C03D12L);
    }

    @Test
    void ppsStructsHaveTheKernelsSizesAndOffsets() {
        assertThat(Abi.Pps.KTIME.byteSize()).isEqualTo(16);
        assertThat(Abi.Pps.KTIME_NSEC).isEqualTo(8);
        assertThat(Abi.Pps.KTIME_FLAGS).isEqualTo(12);
        assertThat(Abi.Pps.KINFO.byteSize()).isEqualTo(48);
        assertThat(Abi.Pps.ASSERT_SEQUENCE).isZero();
        assertThat(Abi.Pps.CLEAR_SEQUENCE).isEqualTo(4);
        assertThat(Abi.Pps.ASSERT_TU).isEqualTo(8);
        assertThat(Abi.Pps.CLEAR_TU).isEqualTo(24);
        assertThat(Abi.Pps.CURRENT_MODE).isEqualTo(40);
        assertThat(Abi.Pps.FDATA.byteSize()).isEqualTo(64);
        assertThat(Abi.Pps.TIMEOUT).isEqualTo(48);
        assertThat(Abi.Pps.KPARAMS.byteSize()).isEqualTo(40);
    }

    @Test
    void ppsIoctlNumbersMatchTheHeader() {
        assertThat(Abi.Pps.GETPARAMS).isEqualTo(0x800870A1L);
        assertThat(Abi.Pps.SETPARAMS).isEqualTo(0x400870A2L);
        assertThat(Abi.Pps.GETCAP).isEqualTo(0x800870A3L);
        assertThat(Abi.Pps.FETCH).isEqualTo(0xC00870A4L);
        assertThat(Abi.Pps.KC_BIND).isEqualTo(0x400870A5L);
    }

    @Test
    void fakeKernelUsesTheSameRequestNumbers() {
        assertThat(FakeKernel.GETCAPS).isEqualTo(Abi.Ptp.CLOCK_GETCAPS);
        assertThat(FakeKernel.EXTENDED).isEqualTo(Abi.Ptp.SYS_OFFSET_EXTENDED_REQ);
        assertThat(FakeKernel.PPS_FETCH).isEqualTo(Abi.Pps.FETCH);
    }

    @Test
    void clockBoundOffsetsMatchProtocolV2() {
        assertThat(ClockBound.OFF_SEGSIZE).isEqualTo(8);
        assertThat(ClockBound.OFF_VERSION).isEqualTo(12);
        assertThat(ClockBound.OFF_GENERATION).isEqualTo(14);
        assertThat(ClockBound.OFF_AS_OF).isEqualTo(16);
        assertThat(ClockBound.OFF_VOID_AFTER).isEqualTo(32);
        assertThat(ClockBound.OFF_BOUND_NSEC).isEqualTo(48);
        assertThat(ClockBound.OFF_DISRUPTION_MARKER).isEqualTo(56);
        assertThat(ClockBound.OFF_MAX_DRIFT_PPB).isEqualTo(64);
        assertThat(ClockBound.OFF_CLOCK_STATUS).isEqualTo(68);
        assertThat(ClockBound.OFF_DISRUPTION_SUPPORT).isEqualTo(72);
        assertThat(ClockBound.SEGMENT_SIZE).isEqualTo(80);
    }
}
