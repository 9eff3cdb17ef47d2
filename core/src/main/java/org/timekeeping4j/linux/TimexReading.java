package org.timekeeping4j.linux;

/**
 * The fields of struct timex that clock_adjtime(modes = 0) filled, in the kernel's units.
 *
 * @param state     the return value: TIME_OK 0, TIME_INS 1, TIME_DEL 2, TIME_OOP 3, TIME_WAIT 4, TIME_ERROR 5
 * @param status    STA_* bits
 * @param offset    time offset, us (ns when STA_NANO is set)
 * @param freq      frequency offset, ppm with a 16-bit fraction (ppm << 16)
 * @param maxerror  maximum error, us
 * @param esterror  estimated error, us
 * @param constant  PLL time constant
 * @param precision clock precision, us
 * @param tolerance maximum frequency tolerance, ppm << 16
 * @param tick      us between clock ticks
 * @param tai       TAI - UTC, seconds
 */
public record TimexReading(int state, int status, long offset, long freq, long maxerror, long esterror,
                           long constant, long precision, long tolerance, long tick, int tai) {}
