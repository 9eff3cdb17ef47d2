package org.timekeeping4j.cli;

import org.timekeeping4j.device.DeviceSyscalls;

/**
 * The kernel the device commands (phc, pps) talk to: the real one. Tests put a simulated kernel here to run
 * the commands' output paths, which need hardware this machine lacks; they restore the real one afterwards.
 */
final class Devices {

    // Written only by tests, between commands; volatile so a command thread sees the current one.
    static volatile DeviceSyscalls syscalls = DeviceSyscalls.linux();

    private Devices() {}
}
