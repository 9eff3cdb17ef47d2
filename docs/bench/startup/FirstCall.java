// Time to the first Clocks.nanos and until the counter serves, on a cold JVM (development aid). Run from the
// repository root after mvn -B -q -pl core compile:
//   javac -cp core/target/classes -d /tmp/fc docs/bench/startup/FirstCall.java
//   java --enable-native-access=ALL-UNNAMED -cp core/target/classes:/tmp/fc FirstCall
import org.timekeeping4j.*;
public class FirstCall {
    public static void main(String[] a) {
        long t0 = System.nanoTime();
        long v = Clocks.nanos(ClockId.MONOTONIC);
        long t1 = System.nanoTime();
        while (Clocks.diagnostics().clocks().get(ClockId.MONOTONIC).path() != Diagnostics.Path.COUNTER) { Thread.onSpinWait(); }
        long t2 = System.nanoTime();
        System.out.printf("first nanos %.1f ms, counter serving after %.1f ms%n", (t1-t0)/1e6, (t2-t0)/1e6);
    }
}
