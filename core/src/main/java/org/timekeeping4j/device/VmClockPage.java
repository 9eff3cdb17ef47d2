package org.timekeeping4j.device;

import java.util.ArrayList;
import java.util.List;

/**
 * Every field of a VMClock page (Linux 7.x header), copied under one seqlock read. Unsigned fields are Java
 * longs holding their bits (print them with {@link Long#toUnsignedString(long)}).
 *
 * @param size                             the region's size in bytes (fields past it read 0)
 * @param version                          1
 * @param counterId                        0 ARM_VCNT, 1 X86_TSC, 255 INVALID
 * @param timeType                         0 UTC, 1 TAI, 2 MONOTONIC, 3 and 4 smeared
 * @param seqCount                         the (even) seq_count the copy was taken at
 * @param disruptionMarker                 changes at each disruption
 * @param flags                            the FLAG_ bits
 * @param clockStatus                      0 UNKNOWN, 1 INITIALIZING, 2 SYNCHRONIZED, 3 FREERUNNING, 4 UNRELIABLE
 * @param leapSecondSmearingHint           0 STRICT, 1 NOON_LINEAR, 2 UTC_SLS
 * @param taiOffsetSec                     signed; its sign convention differs between sources
 * @param leapIndicator                    0 NONE .. 5 POST_NEG
 * @param counterPeriodShift               the period's extra shift
 * @param counterValue                     the counter value the time is stated at
 * @param counterPeriodFracSec             the counter's period, units of 2^-(64 + shift) s
 * @param counterPeriodEsterrorRateFracSec its estimated error, same units
 * @param counterPeriodMaxerrorRateFracSec its maximum error, same units
 * @param timeSec                          seconds at counterValue, since the time type's epoch
 * @param timeFracSec                      the fraction, units of 2^-64 s
 * @param timeEsterrorNanosec              the time's estimated error
 * @param timeMaxerrorNanosec              the time's maximum error
 * @param vmGenerationCounter              Linux 7.0+, 0 unless {@link #vmGenerationCounterPresent()}
 */
public record VmClockPage(int size, int version, int counterId, int timeType, int seqCount, long disruptionMarker,
                   long flags, int clockStatus, int leapSecondSmearingHint, int taiOffsetSec, int leapIndicator,
                   int counterPeriodShift, long counterValue, long counterPeriodFracSec,
                   long counterPeriodEsterrorRateFracSec, long counterPeriodMaxerrorRateFracSec, long timeSec,
                   long timeFracSec, long timeEsterrorNanosec, long timeMaxerrorNanosec,
                   long vmGenerationCounter) {

    /** {@return whether vm_generation_counter is there: flag bit 8, and a size that reaches it} */
    public boolean vmGenerationCounterPresent() {
        return (flags & VmClock.FLAG_VM_GEN_COUNTER_PRESENT) != 0 && size >= VmClockLayout.HEADER_END;
    }

    /** {@return the names of the set flags, bit 0 first; an unknown bit as BIT_n} */
    public List<String> flagNames() {
        List<String> names = new ArrayList<>();
        for (int bit = 0; bit < 64; bit++) {
            if ((flags & (1L << bit)) != 0) {
                names.add(bit < VmClockLayout.FLAG_NAMES.length ? VmClockLayout.FLAG_NAMES[bit] : "BIT_" + bit);
            }
        }
        return names;
    }

    /** {@return counter_id's name: ARM_VCNT, X86_TSC, INVALID} */
    public String counterName() {
        return VmClockLayout.name(VmClockLayout.COUNTER_NAMES, counterId);
    }

    /** {@return time_type's name: UTC, TAI, MONOTONIC, ...} */
    public String timeTypeName() {
        return VmClockLayout.name(VmClockLayout.TIME_TYPE_NAMES, timeType);
    }

    /** {@return clock_status's name: UNKNOWN, INITIALIZING, SYNCHRONIZED, FREERUNNING, UNRELIABLE} */
    public String clockStatusName() {
        return VmClockLayout.name(VmClockLayout.STATUS_NAMES, clockStatus);
    }

    /** {@return leap_second_smearing_hint's name} */
    public String smearingHintName() {
        return VmClockLayout.name(VmClockLayout.SMEARING_NAMES, leapSecondSmearingHint);
    }

    /** {@return leap_indicator's name} */
    public String leapIndicatorName() {
        return VmClockLayout.name(VmClockLayout.LEAP_NAMES, leapIndicator);
    }
}
