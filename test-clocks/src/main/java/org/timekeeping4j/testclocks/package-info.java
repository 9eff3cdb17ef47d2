/**
 * Clocks a test controls, for code that reads time through a {@link org.timekeeping4j.ClockReader} (or through an
 * adapter made from one, such as {@code TimekeepingTicker.of}): {@link org.timekeeping4j.testclocks.ManualClock},
 * which the test advances by hand, and {@link org.timekeeping4j.testclocks.TestClocks#fixed} and
 * {@link org.timekeeping4j.testclocks.TestClocks#offset}. A test of code that waits for time to pass advances the
 * clock instead of sleeping: it runs in microseconds and its verdict depends on nothing but the code.
 */
package org.timekeeping4j.testclocks;
