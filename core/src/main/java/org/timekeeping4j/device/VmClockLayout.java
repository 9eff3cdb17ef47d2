package org.timekeeping4j.device;

/**
 * The VMClock page's layout (Linux {@code include/uapi/linux/vmclock-abi.h}, 7.x; little-endian, as both
 * architectures this reads it on) and the names of its values, for {@link VmClock} and {@link VmClockPage}.
 */
final class VmClockLayout {

    private VmClockLayout() {}

    static final String[] FLAG_NAMES = {"TAI_OFFSET_VALID", "DISRUPTION_SOON", "DISRUPTION_IMMINENT",
        "PERIOD_ESTERROR_VALID", "PERIOD_MAXERROR_VALID", "TIME_ESTERROR_VALID", "TIME_MAXERROR_VALID",
        "TIME_MONOTONIC", "VM_GEN_COUNTER_PRESENT", "NOTIFICATION_PRESENT"};

    static final int MAGIC = 0x4b4c4356; // "VCLK" little-endian
    static final int VERSION = 1;
    static final long OFF_MAGIC = 0x00;
    static final long OFF_SIZE = 0x04;
    static final long OFF_VERSION = 0x08;
    static final long OFF_COUNTER_ID = 0x0a;
    static final long OFF_TIME_TYPE = 0x0b;
    static final long OFF_SEQ = 0x0c;
    static final long OFF_MARKER = 0x10;
    static final long OFF_FLAGS = 0x18;
    static final long OFF_STATUS = 0x22;
    static final long OFF_SMEARING = 0x23;
    static final long OFF_TAI_OFFSET = 0x24;
    static final long OFF_LEAP = 0x26;
    static final long OFF_SHIFT = 0x27;
    static final long OFF_COUNTER_VALUE = 0x28;
    static final long OFF_PERIOD = 0x30;
    static final long OFF_PERIOD_ESTERROR = 0x38;
    static final long OFF_PERIOD_MAXERROR = 0x40;
    static final long OFF_TIME_SEC = 0x48;
    static final long OFF_TIME_FRAC = 0x50;
    static final long OFF_TIME_ESTERROR = 0x58;
    static final long OFF_TIME_MAXERROR = 0x60;
    static final long OFF_VM_GENERATION = 0x68;
    /** The Linux 7.x header's end. */
    static final int HEADER_END = 0x70;
    /** The driver's VMCLOCK_MIN_SIZE: the flags must be there. */
    static final int MIN_SIZE = 0x20;
    /** The time fields end here (time_frac_sec); the driver registers its PTP clock only past it. */
    static final int TIME_END = 0x58;
    /** The driver maps exactly one page. */
    static final long MAP_LENGTH = 4096;

    static final int COUNTER_ARM_VCNT = 0;
    static final int COUNTER_X86_TSC = 1;
    static final int TIME_UTC = 0;
    static final int TIME_TAI = 1;
    static final int STATUS_SYNCHRONIZED = 2;
    static final int STATUS_FREERUNNING = 3;

    static final String[] COUNTER_NAMES = {"ARM_VCNT", "X86_TSC"};
    static final String[] TIME_TYPE_NAMES = {"UTC", "TAI", "MONOTONIC", "INVALID_SMEARED",
        "INVALID_MAYBE_SMEARED"};
    static final String[] STATUS_NAMES = {"UNKNOWN", "INITIALIZING", "SYNCHRONIZED", "FREERUNNING",
        "UNRELIABLE"};
    static final String[] SMEARING_NAMES = {"STRICT", "NOON_LINEAR", "UTC_SLS"};
    static final String[] LEAP_NAMES = {"NONE", "PRE_POS", "PRE_NEG", "POS", "POST_POS", "POST_NEG"};

    static String name(String[] names, int value) {
        if (names == COUNTER_NAMES && value == 0xff) {
            return "INVALID";
        }
        return value >= 0 && value < names.length ? names[value] : "unknown (" + value + ")";
    }
}
