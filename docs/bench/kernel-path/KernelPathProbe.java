import static java.lang.foreign.ValueLayout.*;
import java.lang.foreign.*;
import java.lang.invoke.MethodHandle;
import java.util.*;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.TimeSpec;

/**
 * Where the kernel path's cost went: each variant of one clock_gettime(MONOTONIC) read from Java, interleaved
 * round by round (N calls a round, every variant once per round) so that the load of a shared machine falls on
 * all of them alike; per variant the median and minimum ns per call, and the median of its per-round ratio to
 * System.nanoTime. Variants: the library's KernelClocks.nanos/time; a critical downcall to libc's or the
 * vDSO's clock_gettime into a constant (static final) native segment, a segment from a ThreadLocal, one from a
 * plain static field, a heap long[2] with Linker.Option.critical(true); and the stack-buffer stub (as
 * machine.ClockGettimeStub maps it) over libc's and over the vDSO's function. Run: see run.sh.
 */
public class KernelPathProbe {
    static final Linker L = Linker.nativeLinker();
    static final FunctionDescriptor CG = FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS);
    static final MemorySegment LIBC_SYM = L.defaultLookup().find("clock_gettime").orElseThrow();
    static final MemorySegment VDSO_SYM = SymbolLookup.libraryLookup("linux-vdso.so.1", Arena.global()).find("__vdso_clock_gettime").orElseThrow();
    static final MethodHandle LIBC = L.downcallHandle(LIBC_SYM, CG, Linker.Option.critical(false));
    static final MethodHandle LIBC_HEAP = L.downcallHandle(LIBC_SYM, CG, Linker.Option.critical(true));
    static final MethodHandle VDSO = L.downcallHandle(VDSO_SYM, CG, Linker.Option.critical(false));
    static final MethodHandle VDSO_HEAP = L.downcallHandle(VDSO_SYM, CG, Linker.Option.critical(true));
    static final ThreadLocal<MemorySegment> TL = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(16, 16));
    static final MemorySegment GSEG = Arena.global().allocate(16, 16);
    static final long[] ARR = new long[2];
    static final MemorySegment HSEG = MemorySegment.ofArray(ARR);
    static final TimeSpec TS = new TimeSpec();
    static final int N = Integer.getInteger("n", 200_000);

    static long nanoTime() { long s = 0; for (int i = 0; i < N; i++) s += System.nanoTime(); return s; }
    static long kernelNanos() { long s = 0; for (int i = 0; i < N; i++) s += KernelClocks.nanos(ClockId.MONOTONIC); return s; }
    static long kernelNanosRt() { long s = 0; for (int i = 0; i < N; i++) s += KernelClocks.nanos(ClockId.REALTIME); return s; }
    static long kernelTime() { long s = 0; for (int i = 0; i < N; i++) s += KernelClocks.time(ClockId.MONOTONIC, TS).nanosOfSecond(); return s; }
    static long libcGlobal() throws Throwable { long s = 0; for (int i = 0; i < N; i++) { int rc = (int) LIBC.invokeExact(1, GSEG); s += GSEG.get(JAVA_LONG, 0) * 1_000_000_000L + GSEG.get(JAVA_LONG, 8) + rc; } return s; }
    static long libcTL() throws Throwable { long s = 0; for (int i = 0; i < N; i++) { MemorySegment g = TL.get(); int rc = (int) LIBC.invokeExact(1, g); s += g.get(JAVA_LONG, 0) * 1_000_000_000L + g.get(JAVA_LONG, 8) + rc; } return s; }
    static long libcHeap() throws Throwable { long s = 0; for (int i = 0; i < N; i++) { int rc = (int) LIBC_HEAP.invokeExact(1, HSEG); s += ARR[0] * 1_000_000_000L + ARR[1] + rc; } return s; }
    static long vdsoGlobal() throws Throwable { long s = 0; for (int i = 0; i < N; i++) { int rc = (int) VDSO.invokeExact(1, GSEG); s += GSEG.get(JAVA_LONG, 0) * 1_000_000_000L + GSEG.get(JAVA_LONG, 8) + rc; } return s; }
    static long vdsoHeap() throws Throwable { long s = 0; for (int i = 0; i < N; i++) { int rc = (int) VDSO_HEAP.invokeExact(1, HSEG); s += ARR[0] * 1_000_000_000L + ARR[1] + rc; } return s; }
    static long vdsoTL() throws Throwable { long s = 0; for (int i = 0; i < N; i++) { MemorySegment g = TL.get(); int rc = (int) VDSO.invokeExact(1, g); s += g.get(JAVA_LONG, 0) * 1_000_000_000L + g.get(JAVA_LONG, 8) + rc; } return s; }

    static MemorySegment fieldSeg = Arena.global().allocate(16, 16);
    static long libcField() throws Throwable { long s = 0; for (int i = 0; i < N; i++) { MemorySegment g = fieldSeg; int rc = (int) LIBC.invokeExact(1, g); s += g.get(JAVA_LONG, 0) * 1_000_000_000L + g.get(JAVA_LONG, 8) + rc; } return s; }
    static byte[] stub(long target) {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        int[] pre = {0x48,0x83,0xEC,0x18, 0x48,0x89,0xE6, 0x48,0xB8};
        for (int x : pre) b.write(x);
        for (int k = 0; k < 8; k++) b.write((int) (target >>> (8 * k)));
        int[] post = {0xFF,0xD0, 0x85,0xC0, 0x75,0x12, 0x48,0x69,0x04,0x24,0x00,0xCA,0x9A,0x3B, 0x48,0x03,0x44,0x24,0x08, 0x48,0x83,0xC4,0x18, 0xC3,
                      0x48,0xB8,0,0,0,0,0,0,0,0x80, 0x48,0x83,0xC4,0x18, 0xC3};
        for (int x : post) b.write(x);
        return b.toByteArray();
    }
    static final FunctionDescriptor LI = FunctionDescriptor.of(JAVA_LONG, JAVA_INT);
    static final MethodHandle STUB_LIBC = L.downcallHandle(org.timekeeping4j.linux.ExecutableMemory.map(stub(LIBC_SYM.address())), LI, Linker.Option.critical(false));
    static final MethodHandle STUB_VDSO = L.downcallHandle(org.timekeeping4j.linux.ExecutableMemory.map(stub(VDSO_SYM.address())), LI, Linker.Option.critical(false));
    static long stubLibc() throws Throwable { long s = 0; for (int i = 0; i < N; i++) { s += (long) STUB_LIBC.invokeExact(1); } return s; }
    static long stubVdso() throws Throwable { long s = 0; for (int i = 0; i < N; i++) { s += (long) STUB_VDSO.invokeExact(1); } return s; }

    interface V { long run() throws Throwable; }

    public static void main(String[] a) throws Throwable {
        LinkedHashMap<String, V> vs = new LinkedHashMap<>();
        vs.put("nanoTime", KernelPathProbe::nanoTime);
        vs.put("kernelNanos(MONO)", KernelPathProbe::kernelNanos);
        vs.put("kernelNanos(RT)", KernelPathProbe::kernelNanosRt);
        vs.put("kernelTime", KernelPathProbe::kernelTime);
        vs.put("libcGlobal", KernelPathProbe::libcGlobal);
        vs.put("libcTL", KernelPathProbe::libcTL);
        vs.put("libcHeap", KernelPathProbe::libcHeap);
        vs.put("vdsoGlobal", KernelPathProbe::vdsoGlobal);
        vs.put("vdsoHeap", KernelPathProbe::vdsoHeap);
        vs.put("vdsoTL", KernelPathProbe::vdsoTL);
        vs.put("libcField", KernelPathProbe::libcField);
        vs.put("stubLibc", KernelPathProbe::stubLibc);
        vs.put("stubVdso", KernelPathProbe::stubVdso);
        if (a.length > 0) { vs.keySet().retainAll(Arrays.asList(a)); }
        int rounds = Integer.getInteger("rounds", 200);
        Map<String, double[]> t = new LinkedHashMap<>();
        for (String k : vs.keySet()) t.put(k, new double[rounds]);
        long sink = 0;
        for (int w = 0; w < 30; w++) for (V v : vs.values()) sink += v.run();
        for (int r = 0; r < rounds; r++) {
            for (Map.Entry<String, V> e : vs.entrySet()) {
                long t0 = System.nanoTime(); sink += e.getValue().run(); long t1 = System.nanoTime();
                t.get(e.getKey())[r] = (t1 - t0) / (double) N;
            }
        }
        double[] base = t.get("nanoTime");
        for (var e : t.entrySet()) {
            double[] x = e.getValue().clone(); double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++) ratio[r] = e.getValue()[r] / base[r];
            Arrays.sort(x); Arrays.sort(ratio);
            System.out.printf("%-20s median %6.2f ns  p10 %6.2f  min %6.2f | ratio median %.3f (p25 %.3f p75 %.3f)%n", e.getKey(), x[rounds/2], x[rounds/10], x[0], ratio[rounds/2], ratio[rounds/4], ratio[3*rounds/4]);
        }
        System.out.println("invalid id 99 through the stubs: " + (long) STUB_LIBC.invokeExact(99) + " " + (long) STUB_VDSO.invokeExact(99));
        if (sink == 42) System.out.println();
    }
}
