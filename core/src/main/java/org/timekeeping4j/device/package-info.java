/**
 * Precision time sources beyond the system clocks.
 * <ul>
 *   <li>{@link org.timekeeping4j.device.PtpClock}: a PTP hardware clock (/dev/ptpN): its time, its capabilities
 *       ({@link org.timekeeping4j.device.PtpCapabilities}), its kernel clock id, and its offset against a system
 *       clock as phc2sys measures it ({@link org.timekeeping4j.device.PtpOffset}); read at counter speed with its
 *       uncertainty by {@link org.timekeeping4j.device.FastPtpClock}, a user-space timekeeper that cross timestamps
 *       discipline.</li>
 *   <li>{@link org.timekeeping4j.device.PpsSource}: a pulse-per-second source (/dev/ppsN): its capabilities and
 *       its events ({@link org.timekeeping4j.device.PpsEvent}).</li>
 *   <li>{@link org.timekeeping4j.device.BoundedClock}: an interval that contains true time
 *       ({@link org.timekeeping4j.device.TimeBounds}, with its {@link org.timekeeping4j.device.TimeBounds.Status}
 *       and the {@link org.timekeeping4j.device.TimeBounds.Disruption} a VMClock page says is coming), from
 *       chronyd, AWS ClockBound's shared segment, adjtimex's maxerror, or the VMClock page.</li>
 *   <li>{@link org.timekeeping4j.device.VmClock}: the VMClock page (/dev/vmclockN): time at counter speed where
 *       the hypervisor publishes it, its every field ({@link org.timekeeping4j.device.VmClockPage}), and live
 *       migration / snapshot restore disruptions.</li>
 * </ul>
 * A device that cannot be opened or used throws {@link org.timekeeping4j.device.DeviceException}, naming the path
 * and the errno.
 */
package org.timekeeping4j.device;
