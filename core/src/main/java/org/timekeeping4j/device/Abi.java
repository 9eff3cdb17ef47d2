package org.timekeeping4j.device;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.StructLayout;

/**
 * Struct layouts and ioctl request numbers of include/uapi/linux/ptp_clock.h and pps.h, LP64. The
 * sizes and offsets are asserted in tests against the reference numbers; the request numbers are
 * encoded here the way asm-generic/ioctl.h does (_IOC) from the struct sizes, and also asserted.
 */
final class Abi {

    private Abi() {}

    // asm-generic/ioctl.h: dir (2 bits) << 30 | size (14 bits) << 16 | type << 8 | nr.
    static final int IOC_WRITE = 1;
    static final int IOC_READ = 2;

    static long ioc(int dir, char type, int nr, long size) {
        return ((long) dir << 30) | (size << 16) | ((long) type << 8) | nr;
    }

    /** PTP hardware clocks, ioctl magic '='. */
    static final class Ptp {
        private Ptp() {}

        static final char MAGIC = '=';
        static final int MAX_SAMPLES = 25;

        /** struct ptp_clock_time { __s64 sec; __u32 nsec; __u32 reserved; } */
        static final StructLayout CLOCK_TIME = structLayout(
                JAVA_LONG.withName("sec"), JAVA_INT.withName("nsec"), JAVA_INT.withName("reserved"));

        /** struct ptp_clock_caps: nine ints, then int rsv[11]. */
        static final StructLayout CAPS = structLayout(
                JAVA_INT.withName("max_adj"), JAVA_INT.withName("n_alarm"), JAVA_INT.withName("n_ext_ts"),
                JAVA_INT.withName("n_per_out"), JAVA_INT.withName("pps"), JAVA_INT.withName("n_pins"),
                JAVA_INT.withName("cross_timestamping"), JAVA_INT.withName("adjust_phase"),
                JAVA_INT.withName("max_phase_adj"), sequenceLayout(11, JAVA_INT).withName("rsv"));

        /** struct ptp_sys_offset { __u32 n_samples; __u32 rsv[3]; ptp_clock_time ts[2 * 25 + 1]; } */
        static final StructLayout SYS_OFFSET = structLayout(
                JAVA_INT.withName("n_samples"), sequenceLayout(3, JAVA_INT).withName("rsv"),
                sequenceLayout(2 * MAX_SAMPLES + 1, CLOCK_TIME).withName("ts"));

        /** struct ptp_sys_offset_extended { __u32 n_samples; clockid_t clockid; __u32 rsv[2]; ts[25][3]; } */
        static final StructLayout SYS_OFFSET_EXTENDED = structLayout(
                JAVA_INT.withName("n_samples"), JAVA_INT.withName("clockid"),
                sequenceLayout(2, JAVA_INT).withName("rsv"),
                sequenceLayout(MAX_SAMPLES, sequenceLayout(3, CLOCK_TIME)).withName("ts"));

        /** struct ptp_sys_offset_precise { device; sys_realtime; sys_monoraw; __u32 rsv[4]; } */
        static final StructLayout SYS_OFFSET_PRECISE = structLayout(
                CLOCK_TIME.withName("device"), CLOCK_TIME.withName("sys_realtime"),
                CLOCK_TIME.withName("sys_monoraw"), sequenceLayout(4, JAVA_INT).withName("rsv"));

        static final long TIME_SIZE = CLOCK_TIME.byteSize();
        static final long TIME_SEC = CLOCK_TIME.byteOffset(groupElement("sec"));
        static final long TIME_NSEC = CLOCK_TIME.byteOffset(groupElement("nsec"));

        static final long SYS_OFFSET_N_SAMPLES = SYS_OFFSET.byteOffset(groupElement("n_samples"));
        static final long SYS_OFFSET_TS = SYS_OFFSET.byteOffset(groupElement("ts"));
        static final long EXTENDED_N_SAMPLES = SYS_OFFSET_EXTENDED.byteOffset(groupElement("n_samples"));
        static final long EXTENDED_CLOCKID = SYS_OFFSET_EXTENDED.byteOffset(groupElement("clockid"));
        static final long EXTENDED_TS = SYS_OFFSET_EXTENDED.byteOffset(groupElement("ts"));
        static final long PRECISE_DEVICE = SYS_OFFSET_PRECISE.byteOffset(groupElement("device"));
        static final long PRECISE_REALTIME = SYS_OFFSET_PRECISE.byteOffset(groupElement("sys_realtime"));
        static final long PRECISE_MONORAW = SYS_OFFSET_PRECISE.byteOffset(groupElement("sys_monoraw"));

        /** _IOR('=', 1, struct ptp_clock_caps) */
        static final long CLOCK_GETCAPS = ioc(IOC_READ, MAGIC, 1, CAPS.byteSize());
        /** _IOW('=', 5, struct ptp_sys_offset) */
        static final long SYS_OFFSET_REQ = ioc(IOC_WRITE, MAGIC, 5, SYS_OFFSET.byteSize());
        /** _IOWR('=', 8, struct ptp_sys_offset_precise) */
        static final long SYS_OFFSET_PRECISE_REQ = ioc(IOC_READ | IOC_WRITE, MAGIC, 8, SYS_OFFSET_PRECISE.byteSize());
        /** _IOWR('=', 9, struct ptp_sys_offset_extended) */
        static final long SYS_OFFSET_EXTENDED_REQ =
                ioc(IOC_READ | IOC_WRITE, MAGIC, 9, SYS_OFFSET_EXTENDED.byteSize());

        /** Offset of ptp_clock_time {@code index} in a ptp_sys_offset: system, phc, system, ..., system. */
        static long basicTime(int index) {
            return SYS_OFFSET_TS + index * TIME_SIZE;
        }

        /** Offset of ts[sample][which] (0 pre, 1 phc, 2 post) in a ptp_sys_offset_extended. */
        static long extendedTime(int sample, int which) {
            return EXTENDED_TS + (sample * 3L + which) * TIME_SIZE;
        }
    }

    /** Pulse-per-second sources (RFC 2783 over Linux ioctls), magic 'p'. */
    static final class Pps {
        private Pps() {}

        static final char MAGIC = 'p';
        /** pps_ktime.flags bit: the time is invalid; as a FETCH timeout, "wait without limit". */
        static final int TIME_INVALID = 1;

        /** PPS_CAPTUREASSERT, PPS_CAPTURECLEAR and PPS_CANWAIT: the capability bits a reader decides on. */
        static final int CAPTURE_ASSERT = 0x01;
        static final int CAPTURE_CLEAR = 0x02;
        static final int CAN_WAIT = 0x100;
        /** The PPS_* mode bits' names without the prefix, indexed by bit (null where pps.h defines none). */
        static final String[] MODE_NAMES = {"CAPTUREASSERT", "CAPTURECLEAR", null, null, "OFFSETASSERT",
            "OFFSETCLEAR", "ECHOASSERT", "ECHOCLEAR", "CANWAIT", "CANPOLL", null, null, "TSFMT_TSPEC", "TSFMT_NTPFP"};

        /** struct pps_ktime { __s64 sec; __s32 nsec; __u32 flags; } */
        static final StructLayout KTIME = structLayout(
                JAVA_LONG.withName("sec"), JAVA_INT.withName("nsec"), JAVA_INT.withName("flags"));

        /** struct pps_kinfo { __u32 assert_sequence; __u32 clear_sequence; assert_tu; clear_tu; int current_mode; } */
        static final StructLayout KINFO = structLayout(
                JAVA_INT.withName("assert_sequence"), JAVA_INT.withName("clear_sequence"),
                KTIME.withName("assert_tu"), KTIME.withName("clear_tu"), JAVA_INT.withName("current_mode"),
                java.lang.foreign.MemoryLayout.paddingLayout(4));

        /** struct pps_fdata { struct pps_kinfo info; struct pps_ktime timeout; } */
        static final StructLayout FDATA = structLayout(KINFO.withName("info"), KTIME.withName("timeout"));

        /** struct pps_kparams { int api_version; int mode; assert_off_tu; clear_off_tu; } */
        static final StructLayout KPARAMS = structLayout(
                JAVA_INT.withName("api_version"), JAVA_INT.withName("mode"),
                KTIME.withName("assert_off_tu"), KTIME.withName("clear_off_tu"));

        static final long KTIME_SEC = KTIME.byteOffset(groupElement("sec"));
        static final long KTIME_NSEC = KTIME.byteOffset(groupElement("nsec"));
        static final long KTIME_FLAGS = KTIME.byteOffset(groupElement("flags"));
        static final long ASSERT_SEQUENCE = KINFO.byteOffset(groupElement("assert_sequence"));
        static final long CLEAR_SEQUENCE = KINFO.byteOffset(groupElement("clear_sequence"));
        static final long ASSERT_TU = KINFO.byteOffset(groupElement("assert_tu"));
        static final long CLEAR_TU = KINFO.byteOffset(groupElement("clear_tu"));
        static final long CURRENT_MODE = KINFO.byteOffset(groupElement("current_mode"));
        static final long TIMEOUT = FDATA.byteOffset(groupElement("timeout"));

        // The PPS ioctls declare their argument as a pointer (e.g. _IOR('p', 0xa3, int *)), so the size
        // field is sizeof(pointer) = 8 on LP64, whatever the pointee.
        static final long GETPARAMS = ioc(IOC_READ, MAGIC, 0xA1, 8);
        static final long SETPARAMS = ioc(IOC_WRITE, MAGIC, 0xA2, 8);
        static final long GETCAP = ioc(IOC_READ, MAGIC, 0xA3, 8);
        static final long FETCH = ioc(IOC_READ | IOC_WRITE, MAGIC, 0xA4, 8);
        static final long KC_BIND = ioc(IOC_WRITE, MAGIC, 0xA5, 8);
    }
}
