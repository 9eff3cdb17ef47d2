package org.timekeeping4j.cli.path;

import java.util.Optional;
import org.timekeeping4j.ClockId;

/**
 * A path whose core API is not in this build yet ({@code fast}, {@code ticks}, {@code snapshot}): known to
 * {@code --path} so that asking for it gives a clear "not available" instead of "unknown", never run.
 * Replace its line in {@link ClockPaths#ALL} with the real path when the API lands.
 */
final class PlannedPath implements ClockPath {

    private final String name;
    private final String api;

    PlannedPath(String name, String api) {
        this.name = name;
        this.api = api;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return api + " (not in this build yet)";
    }

    @Override
    public Optional<String> unavailableReason() {
        return Optional.of("path '" + name + "' is not available yet: " + api
                + " (the user-space fast clocks) is not in this build");
    }

    @Override
    public boolean serves(ClockId clock) {
        return false;
    }

    @Override
    public ClockReader reader(ClockId clock) {
        throw new UnsupportedOperationException(unavailableReason().orElseThrow());
    }

    @Override
    public long agreementBoundNanos(ClockId clock) {
        return 0;
    }
}
