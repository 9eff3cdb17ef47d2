package org.timekeeping4j.verify;

import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Where {@code tk4j verify skew} finds the timekeeper to test: providers registered here first (tests), then
 * those on the class path through {@link ServiceLoader}.
 */
public final class SimulatedTimekeepers {

    private static final List<SimulatedTimekeeper.Provider> REGISTERED = new CopyOnWriteArrayList<>();

    private SimulatedTimekeepers() {}

    /** Registers a provider ahead of the service-loaded ones. */
    public static void register(SimulatedTimekeeper.Provider provider) {
        REGISTERED.add(0, provider);
    }

    /** Removes a provider registered with {@link #register}. */
    public static void unregister(SimulatedTimekeeper.Provider provider) {
        REGISTERED.remove(provider);
    }

    /** The provider to use, or empty while no timekeeper implementation is available. */
    public static Optional<SimulatedTimekeeper.Provider> provider() {
        if (!REGISTERED.isEmpty()) {
            return Optional.of(REGISTERED.get(0));
        }
        try {
            return ServiceLoader.load(SimulatedTimekeeper.Provider.class).findFirst();
        } catch (java.util.ServiceConfigurationError e) {
            // On the module path core's descriptor would need 'uses' for this service (it has none yet): the
            // class path (the tk4j jar, tests) is where providers are looked up for now.
            return Optional.empty();
        }
    }
}
