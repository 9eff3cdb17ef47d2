import org.timekeeping4j.*;
import java.time.Instant;
/** Interleaved rounds in one JVM: each round times N calls of each read, so load drift hits all alike. */
public class Inter {
  static long sink;
  public static void main(String[] a) {
    int rounds = Integer.parseInt(a[0]); int n = 2_000_000;
    System.out.println("# " + Clocks.diagnostics().vdsoData().vclock());
    String[] names = {"nanoTime", "nanos(MONO)", "nanos(REAL)", "Instant.now", "kernelNanos(MONO)"};
    double[][] r = new double[names.length][rounds];
    for (int round = -3; round < rounds; round++) {
      for (int k = 0; k < names.length; k++) {
        long t0 = System.nanoTime(); long s = 0;
        switch (k) {
          case 0 -> { for (int i = 0; i < n; i++) s += System.nanoTime(); }
          case 1 -> { for (int i = 0; i < n; i++) s += Clocks.nanos(ClockId.MONOTONIC); }
          case 2 -> { for (int i = 0; i < n; i++) s += Clocks.nanos(ClockId.REALTIME); }
          case 3 -> { for (int i = 0; i < n; i++) s += Instant.now().getNano(); }
          default -> { for (int i = 0; i < n; i++) s += KernelClocks.nanos(ClockId.MONOTONIC); }
        }
        long t1 = System.nanoTime(); sink += s;
        if (round >= 0) r[k][round] = (t1 - t0) / (double) n;
      }
    }
    for (int k = 0; k < names.length; k++) {
      double[] v = r[k].clone(); java.util.Arrays.sort(v);
      System.out.printf("%-18s median %.2f ns (min %.2f)%n", names[k], v[v.length / 2], v[0]);
    }
    // per-round ratios, median
    double[] m = new double[rounds], re = new double[rounds];
    for (int i = 0; i < rounds; i++) { m[i] = r[1][i] / r[0][i]; re[i] = r[2][i] / r[3][i]; }
    java.util.Arrays.sort(m); java.util.Arrays.sort(re);
    System.out.printf("ratio nanos(MONO)/nanoTime per round: median %.3f [%.3f..%.3f]%n", m[rounds/2], m[0], m[rounds-1]);
    System.out.printf("ratio nanos(REAL)/Instant.now per round: median %.3f [%.3f..%.3f]%n", re[rounds/2], re[0], re[rounds-1]);
  }
}
