package org.timekeeping4j.timekeeper;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.clocksource.Clocksource;

/**
 * A timekeeper's user clocks, one slot per AUX id (CLOCK_AUX+0 to +7): read lock-free ({@link #get}, and
 * {@link #updateAll} from the timekeeper's update), changed under this object's monitor.
 */
final class UserClocks {

    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(UserClock[].class);

    private final UserClock[] slots = new UserClock[8];

    /** Creates the clock for {@code auxId} (an AUX id, checked by the caller); refuses a second one. */
    synchronized UserClock create(ClockId auxId, Clocksource clocksource, long initialNanos, int historySize) {
        int i = auxId.id() - ClockId.AUX_BASE;
        if (slots[i] != null) {
            throw new IllegalStateException(auxId.kernelName() + " exists already");
        }
        UserClock u = new UserClock(auxId, clocksource, initialNanos, historySize);
        // Pairs with getAcquire in get()/updateAll(): a reader that finds the clock sees it fully constructed.
        SLOTS.setRelease(slots, i, u);
        return u;
    }

    /** Empties {@code auxId}'s slot (an AUX id, checked by the caller). */
    synchronized void remove(ClockId auxId) {
        // Pairs with getAcquire in get()/updateAll(): once a reader sees null it no longer reads the clock.
        SLOTS.setRelease(slots, auxId.id() - ClockId.AUX_BASE, (UserClock) null);
    }

    /** {@return the clock in {@code auxId}'s slot; null if there is none or the id is not an AUX id} */
    UserClock get(ClockId auxId) {
        if (!auxId.isAux()) {
            return null;
        }
        return (UserClock) SLOTS.getAcquire(slots, auxId.id() - ClockId.AUX_BASE); // pairs with create()'s setRelease
    }

    /**
     * The clock of {@code clock}'s slot, for a read or conversion of it.
     *
     * @param clock an AUX id with a user clock
     * @return its user clock, never null
     * @throws IllegalArgumentException for an AUX id without a user clock, or an id that is not an AUX id
     */
    UserClock require(ClockId clock) {
        UserClock u = get(clock);
        if (u == null) {
            throw new IllegalArgumentException(clock.kernelName() + " is not a clock of this timekeeper" + (clock.isAux()
                    ? " (create it with createUserClock)"
                    : ": it reads REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI, their ALARM twins, the COARSE "
                            + "clocks and the AUX clocks created with createUserClock"));
        }
        return u;
    }

    /** Updates every user clock (see {@link UserClock#update()}). */
    void updateAll() {
        for (int i = 0; i < slots.length; i++) {
            UserClock u = (UserClock) SLOTS.getAcquire(slots, i); // pairs with create()'s setRelease
            if (u != null) {
                u.update();
            }
        }
    }
}
