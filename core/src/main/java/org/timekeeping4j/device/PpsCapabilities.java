package org.timekeeping4j.device;

/**
 * What a PPS source supports: the mode bits PPS_GETCAP returns (include/uapi/linux/pps.h, RFC 2783).
 *
 * @param bits the raw PPS_* capability bits
 */
public record PpsCapabilities(int bits) {
    public static final int CAPTURE_ASSERT = 0x01;
    public static final int CAPTURE_CLEAR = 0x02;
    public static final int OFFSET_ASSERT = 0x10;
    public static final int OFFSET_CLEAR = 0x20;
    public static final int ECHO_ASSERT = 0x40;
    public static final int ECHO_CLEAR = 0x80;
    public static final int CAN_WAIT = 0x100;
    public static final int CAN_POLL = 0x200;
    public static final int TSFMT_TSPEC = 0x1000;
    public static final int TSFMT_NTPFP = 0x2000;

    /** {@return whether the source time-stamps assert edges (PPS_CAPTUREASSERT)} */
    public boolean canCaptureAssert() {
        return (bits & CAPTURE_ASSERT) != 0;
    }

    /** {@return whether the source time-stamps clear edges (PPS_CAPTURECLEAR)} */
    public boolean canCaptureClear() {
        return (bits & CAPTURE_CLEAR) != 0;
    }

    /** {@return whether PPS_FETCH can block until the next event (PPS_CANWAIT)} */
    public boolean canWait() {
        return (bits & CAN_WAIT) != 0;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("PpsCapabilities[0x").append(Integer.toHexString(bits));
        if (canCaptureAssert()) {
            sb.append(" assert");
        }
        if (canCaptureClear()) {
            sb.append(" clear");
        }
        if ((bits & (OFFSET_ASSERT | OFFSET_CLEAR)) != 0) {
            sb.append(" offset");
        }
        if ((bits & (ECHO_ASSERT | ECHO_CLEAR)) != 0) {
            sb.append(" echo");
        }
        if (canWait()) {
            sb.append(" canwait");
        }
        return sb.append(']').toString();
    }
}
