/**
 * Precision time sources beyond the system clocks: PTP hardware clocks
 * ({@link org.timekeeping4j.device.PtpClock}, /dev/ptpN; {@link org.timekeeping4j.device.DynamicClockId} reads any
 * clock behind an open descriptor), PPS sources ({@link org.timekeeping4j.device.PpsSource},
 * /dev/ppsN), clocks with error bounds ({@link org.timekeeping4j.device.BoundedClock}: AWS ClockBound's shared
 * segment, or adjtimex's maxerror) and the VMClock page ({@link org.timekeeping4j.device.VmClock}, /dev/vmclockN:
 * time at counter speed where the hypervisor publishes it, and live migration / snapshot restore disruptions).
 * System calls go through {@link org.timekeeping4j.device.DeviceSyscalls}, which tests and simulators replace.
 */
package org.timekeeping4j.device;
