package org.timekeeping4j.cli.verify;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.cli.path.ClockPath;

/** One (path, clock) pair a timed check runs on. */
public record Cell(ClockPath path, ClockId clock) {

    /** "kernel CLOCK_MONOTONIC" */
    public String subject() {
        return path.name() + " " + clock.kernelName();
    }

    /**
     * Every (path, clock) pair the path serves, for the requested clocks (all the path serves when {@code clocks}
     * is empty; a clock named twice counts once) that the mode accepts.
     */
    public static List<Cell> of(List<ClockPath> paths, List<ClockId> clocks, Predicate<ClockId> modeAccepts) {
        List<Cell> cells = new ArrayList<>();
        for (ClockPath p : paths) {
            for (ClockId c : clocks.isEmpty() ? p.clocks() : clocks.stream().distinct().toList()) {
                if (p.serves(c) && modeAccepts.test(c)) {
                    cells.add(new Cell(p, c));
                }
            }
        }
        return cells;
    }
}
