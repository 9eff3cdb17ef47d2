package org.timekeeping4j.machine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The machine code of the counter stubs, byte for byte, with its disassembly. Each stub is a complete
 * function under the platform's C calling convention (System V AMD64: result in rax, arguments in rdi,
 * rsi, rdx; rbx callee-saved. AAPCS64: result in x0), called through an FFM downcall.
 */
final class MachineCode {

    private MachineCode() {}

    // ---- x86_64 ----------------------------------------------------------------------------------------

    /**
     * {@code uint64_t rdtsc(void)}, unordered: the CPU may execute it before earlier instructions retire.
     * <pre>
     *   0f 31          rdtsc              ; edx:eax = TSC
     *   48 c1 e2 20    shl  rdx, 32
     *   48 09 d0       or   rax, rdx
     *   c3             ret
     * </pre>
     */
    static final byte[] X86_RDTSC = bytes(0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3);

    /**
     * {@code uint64_t lfence_rdtsc(void)}, ordered: lfence waits until all earlier instructions have
     * completed locally (on AMD with the LFENCE-serialising MSR bit the kernel sets), so the TSC is read
     * after every earlier load. What the vDSO uses (rdtsc_ordered).
     * <pre>
     *   0f ae e8       lfence
     *   0f 31          rdtsc
     *   48 c1 e2 20    shl  rdx, 32
     *   48 09 d0       or   rax, rdx
     *   c3             ret
     * </pre>
     */
    static final byte[] X86_LFENCE_RDTSC =
            bytes(0x0f, 0xae, 0xe8, 0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3);

    /**
     * {@code uint64_t rdtscp(uint32_t *aux)}, ordered: rdtscp waits for earlier instructions to execute and
     * also returns IA32_TSC_AUX (Linux stores the CPU and node number there), written to {@code *aux}.
     * ecx is caller-saved, so clobbering it is allowed.
     * <pre>
     *   0f 01 f9       rdtscp             ; edx:eax = TSC, ecx = TSC_AUX
     *   89 0f          mov  [rdi], ecx
     *   48 c1 e2 20    shl  rdx, 32
     *   48 09 d0       or   rax, rdx
     *   c3             ret
     * </pre>
     */
    static final byte[] X86_RDTSCP =
            bytes(0x0f, 0x01, 0xf9, 0x89, 0x0f, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3);

    /**
     * {@code uint64_t rdtscp_noaux(void)}: rdtscp for clock reads, dropping TSC_AUX (ecx is caller-saved).
     * Storing TSC_AUX to one shared location from every thread would bounce its cache line between cores.
     * <pre>
     *   0f 01 f9       rdtscp
     *   48 c1 e2 20    shl  rdx, 32
     *   48 09 d0       or   rax, rdx
     *   c3             ret
     * </pre>
     */
    static final byte[] X86_RDTSCP_NOAUX = bytes(0x0f, 0x01, 0xf9, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3);

    /**
     * {@code void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4])}: eax, ebx, ecx, edx of the leaf.
     * cpuid overwrites rbx, which the caller expects preserved: it is saved and restored.
     * <pre>
     *   53             push rbx
     *   49 89 d0       mov  r8, rdx        ; out
     *   89 f8          mov  eax, edi       ; leaf
     *   89 f1          mov  ecx, esi       ; subleaf
     *   0f a2          cpuid
     *   41 89 00       mov  [r8], eax
     *   41 89 58 04    mov  [r8+4], ebx
     *   41 89 48 08    mov  [r8+8], ecx
     *   41 89 50 0c    mov  [r8+12], edx
     *   5b             pop  rbx
     *   c3             ret
     * </pre>
     */
    static final byte[] X86_CPUID = bytes(0x53, 0x49, 0x89, 0xd0, 0x89, 0xf8, 0x89, 0xf1, 0x0f, 0xa2,
            0x41, 0x89, 0x00, 0x41, 0x89, 0x58, 0x04, 0x41, 0x89, 0x48, 0x08, 0x41, 0x89, 0x50, 0x0c, 0x5b, 0xc3);

    /**
     * {@code int64_t seqlock_read(const uint64_t *page, const uint64_t *record, uint64_t limit_select)}: a
     * whole timekeeper read in one downcall, the vDSO's do_hres over a page laid out as {@link SeqlockReader}
     * documents. Built by {@link #x86SeqlockRead} around an ordered counter read; with rdtscp (GNU as):
     * <pre>
     *    0: 49 89 d3             mov    r11, rdx            ; 0: the fresh limit, 8: the any limit
     *    3: 0f 01 f9             rdtscp                     ; edx:eax = TSC (ecx clobbered, rax's top half 0)
     *    6: 4c 8b 07             mov    r8, [rdi]           ; seq
     *    9: 49 83 e0 fe          and    r8, -2              ; odd (writer inside): cannot match the re-read
     *    d: 4c 8b 4e 10          mov    r9, [rsi+16]        ; k0: the constant for hi = E (cycle_last's)
     *   11: 4c 8b 56 18          mov    r10, [rsi+24]
     *   15: 3b 56 04             cmp    edx, [rsi+4]        ; hi = E (cycle_last's high half)?
     *   18: 4c 0f 45 4e 30       cmovne r9, [rsi+48]        ;   else k1, the constant for E + 1
     *   1d: 4c 0f 45 56 38       cmovne r10, [rsi+56]
     *   22: 48 89 d1             mov    rcx, rdx
     *   25: 48 c1 e1 20          shl    rcx, 32
     *   29: 48 09 c1             or     rcx, rax            ; now
     *   2c: 48 f7 66 08          mul    qword [rsi+8]       ; rdx:rax = lo * mult' (lo = eax, the TSC's low half)
     *   30: 4c 01 c8             add    rax, r9             ; + k_hi, 128 bits: the value is the high word
     *   33: 4c 11 d2             adc    rdx, r10
     *   36: 48 2b 0e             sub    rcx, [rsi]          ; delta = now - cycle_last
     *   39: 4a 3b 4c 1e 20       cmp    rcx, [rsi+r11+32]   ; delta &gt;= the record's limit (unsigned)?
     *   3e: 73 09                jae    49                  ;   then the slow path
     *   40: 48 89 d0             mov    rax, rdx
     *   43: 4c 3b 07             cmp    r8, [rdi]           ; seq again: unchanged and even?
     *   46: 75 51                jne    99                  ;   else wait, then read the counter again
     *   48: c3                   ret
     *   49: 48 89 c8             mov    rax, rcx            ; slow path: the Java reader's logic, in full
     *   4c: 45 31 d2             xor    r10d, r10d
     *   4f: 48 85 c0             test   rax, rax
     *   52: 49 0f 48 c2          cmovs  rax, r10            ; a counter value before cycle_last: delta 0
     *   56: 4d 85 db             test   r11, r11
     *   59: 75 06                jne    61                  ; not a fresh read: no staleness
     *   5b: 48 3b 46 40          cmp    rax, [rsi+64]       ; delta &gt; valid cycles (unsigned)?
     *   5f: 77 2c                ja     8d                  ;   then stale
     *   61: 48 f7 66 68          mul    qword [rsi+104]     ; rdx:rax = delta * mult
     *   65: 48 03 46 70          add    rax, [rsi+112]      ; + xtime
     *   69: 48 83 d2 00          adc    rdx, 0
     *   6d: 8b 4f 08             mov    ecx, [rdi+8]        ; shift
     *   70: 48 0f ad d0          shrd   rax, rdx, cl        ; ns since base
     *   74: 48 03 46 48          add    rax, [rsi+72]       ; value = base + ns
     *   78: 4c 8b 4e 60          mov    r9, [rsi+96]        ; leap step
     *   7c: 48 3b 46 58          cmp    rax, [rsi+88]       ; value &lt; leap threshold (signed)?
     *   80: 4d 0f 4c ca          cmovl  r9, r10             ;   then no step
     *   84: 48 03 46 50          add    rax, [rsi+80]       ; + offset
     *   88: 4c 01 c8             add    rax, r9
     *   8b: eb b6                jmp    43                  ; validate
     *   8d: 48 b8 00..00 80      movabs rax, 0x8000000000000000   ; stale: Long.MIN_VALUE
     *   97: eb aa                jmp    43                  ; validate
     *   99: f3 90                pause                      ; the writer is inside its window, or was
     *   9b: e9 63 ff ff ff       jmp    3
     * </pre>
     * <b>Why this shape.</b> The reads come in a stream (a loop, or code that reads the time between a few
     * instructions): an ordered counter read does not start before every older instruction has executed, so
     * what a read costs beyond the bare counter read is how long, after the counter, its last instruction
     * takes to execute. Two chains start at the counter: the value's, and the branch's that checks the
     * delta against the limit. Measured on this machine (AMD EPYC, Zen 3; docs/bench/seqlock-stub runs these
     * bytes and variants of them, results in docs/PERFORMANCE.md): each instruction on the value's chain shows,
     * and a branch on the counter costs its chain's length plus about a cycle even when never taken,
     * while loads independent of the counter and the seq check cost nearly nothing. Hence:
     * <ul>
     * <li>the value's chain is mul, add, adc: three instructions, the least an exact 128-bit conversion
     *     takes. The writer folds base, offset, xtime and cycle_last into 128-bit constants, one per value
     *     of the counter's high half the record's window can see, so that the TSC's low half, as rdtscp
     *     leaves it in rax, is multiplied directly: with {@code now = hi * 2^32 + lo} and
     *     {@code mult' = mult * 2^(64 - shift)}, {@code now * mult' + k = lo * mult' + k_hi} where
     *     {@code k_hi = k + hi * 2^32 * mult'} and {@code k = (base + offset) * 2^64 + xtime * 2^(64 - shift)
     *     - cycle_last * mult'}, whose high word is exactly {@code base + offset + ((xtime + delta * mult)
     *     >>> shift)}. The constant is picked by a cmove on a compare of edx, ready before the mul is. Two
     *     constants, not three: a second cmove pair measured 0.4 ns slower (three-epochs.s against
     *     check-before-value.s in docs/bench/seqlock-stub).</li>
     * <li>the limit check joins the halves and compares after the value is computed in program order
     *     (measured 0.4 ns cheaper than before it), and one compare covers both ends: a counter value
     *     before cycle_last is a huge unsigned delta.</li>
     * <li>the writer bounds each limit so that a delta below it implies {@code hi} in {E, E + 1} (E =
     *     cycle_last's high half: a window of one to two 2^32-cycle epochs, 1.75 to 3.5 s at 2.45 GHz) and
     *     the conversion exact (see timekeeper.VvarPublisher.anyLimit); beyond it, the slow path, exact too.</li>
     * <li>the fast path's fields fill the record's first cache line (64 bytes).</li>
     * </ul>
     *
     * <p><b>Memory ordering, decided here.</b> x86 keeps loads in program order (TSO): the record loads come
     * after the first seq load and the seq re-read after them, and the writer stores seq odd, fences,
     * stores the records, then seq even (release). The first seq is kept with its low bit cleared, so an
     * odd one (a writer inside its window) never equals the re-read (seq only grows): one compare and one
     * branch check both "even" and "unchanged", and the reader retries after a pause. The counter may be read before the first seq load: a
     * reader that then sees the new state with a counter value before the writer's pivot c0 gets a negative
     * delta, which the slow path clamps to the value at c0, so every reader of the new state returns at
     * least new(c0) = old(c0) (TimekeeperWriter's monotonicity argument, case 2). Case 1 needs the counter read
     * before the seq re-read, which the ISA does not state for rdtscp (later instructions may begin before
     * it reads the TSC); it holds because of how x86 cores keep loads ordered: a load that executed early is
     * re-executed if its line is invalidated before it retires, and the re-read retires after rdtscp,
     * which reads the TSC before it retires. The kernel's vDSO relies on the same (rdtsc_ordered, then
     * vdso_read_retry with only a compiler barrier).
     */
    static byte[] x86SeqlockRead(byte[] orderedCounterRead) {
        byte[] tail = X86_SEQLOCK_TAIL.clone();
        // The template was assembled around rdtscp's 3 bytes: the one branch back over the counter read
        // (the spin loop's jmp 3 at 0x9b, rel32) must reach further when the read is longer. The spin loop
        // sits at the end so that the common path takes no branch before the counter read.
        int grow = orderedCounterRead.length - 3;
        ByteBuffer rel32 = ByteBuffer.wrap(tail).order(ByteOrder.LITTLE_ENDIAN);
        rel32.putInt(X86_SEQLOCK_SPIN_REL32, rel32.getInt(X86_SEQLOCK_SPIN_REL32) - grow);
        byte[] code = new byte[X86_SEQLOCK_HEAD.length + orderedCounterRead.length + tail.length];
        System.arraycopy(X86_SEQLOCK_HEAD, 0, code, 0, X86_SEQLOCK_HEAD.length);
        System.arraycopy(orderedCounterRead, 0, code, X86_SEQLOCK_HEAD.length, orderedCounterRead.length);
        System.arraycopy(tail, 0, code, X86_SEQLOCK_HEAD.length + orderedCounterRead.length, tail.length);
        return code;
    }

    /** rdtscp, the counter read of {@link #x86SeqlockRead} where the CPU has it. */
    static final byte[] X86_RDTSCP_INSN = bytes(0x0f, 0x01, 0xf9);
    /** lfence;rdtsc, where the kernel says lfence orders rdtsc (X86_FEATURE_LFENCE_RDTSC). */
    static final byte[] X86_LFENCE_RDTSC_INSN = bytes(0x0f, 0xae, 0xe8, 0x0f, 0x31);

    /** Bytes 0x00-0x02 of {@link #x86SeqlockRead}: everything before the counter read. */
    private static final byte[] X86_SEQLOCK_HEAD = bytes(0x49, 0x89, 0xd3);
    /** Bytes 0x06-0x9f of {@link #x86SeqlockRead} (as assembled after rdtscp): everything after the read. */
    private static final byte[] X86_SEQLOCK_TAIL = bytes(0x4c, 0x8b, 0x07, 0x49, 0x83, 0xe0, 0xfe, 0x4c, 0x8b, 0x4e,
            0x10, 0x4c, 0x8b, 0x56, 0x18, 0x3b, 0x56, 0x04, 0x4c, 0x0f, 0x45, 0x4e, 0x30, 0x4c, 0x0f, 0x45, 0x56,
            0x38, 0x48, 0x89, 0xd1, 0x48, 0xc1, 0xe1, 0x20, 0x48, 0x09, 0xc1, 0x48, 0xf7, 0x66, 0x08, 0x4c, 0x01,
            0xc8, 0x4c, 0x11, 0xd2, 0x48, 0x2b, 0x0e, 0x4a, 0x3b, 0x4c, 0x1e, 0x20, 0x73, 0x09, 0x48, 0x89, 0xd0,
            0x4c, 0x3b, 0x07, 0x75, 0x51, 0xc3, 0x48, 0x89, 0xc8, 0x45, 0x31, 0xd2, 0x48, 0x85, 0xc0, 0x49, 0x0f,
            0x48, 0xc2, 0x4d, 0x85, 0xdb, 0x75, 0x06, 0x48, 0x3b, 0x46, 0x40, 0x77, 0x2c, 0x48, 0xf7, 0x66, 0x68,
            0x48, 0x03, 0x46, 0x70, 0x48, 0x83, 0xd2, 0x00, 0x8b, 0x4f, 0x08, 0x48, 0x0f, 0xad, 0xd0, 0x48, 0x03,
            0x46, 0x48, 0x4c, 0x8b, 0x4e, 0x60, 0x48, 0x3b, 0x46, 0x58, 0x4d, 0x0f, 0x4c, 0xca, 0x48, 0x03, 0x46,
            0x50, 0x4c, 0x01, 0xc8, 0xeb, 0xb6, 0x48, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0xeb,
            0xaa, 0xf3, 0x90, 0xe9, 0x63, 0xff, 0xff, 0xff);
    /** Position in the tail of the rel32 of the spin loop's jmp 3 (bytes 0x9c-0x9f). */
    private static final int X86_SEQLOCK_SPIN_REL32 = 0x9c - 0x06;

    // ---- aarch64 (little-endian 32-bit words) ----------------------------------------------------------

    /** isb: instruction synchronisation barrier; later instructions are fetched after it completes. */
    static final int A64_ISB = 0xd5033fdf;
    /** ret (x30). */
    static final int A64_RET = 0xd65f03c0;
    /** mrs x0, cntvct_el0: the virtual counter (op0=3, op1=3, CRn=14, CRm=0, op2=2). */
    static final int A64_MRS_X0_CNTVCT = mrs(3, 3, 14, 0, 2, 0);
    /** mrs x0, cntvctss_el0: the self-synchronised virtual counter, FEAT_ECV only (op2=6). */
    static final int A64_MRS_X0_CNTVCTSS = mrs(3, 3, 14, 0, 6, 0);
    /** mrs x0, cntfrq_el0: the counter frequency in Hz as firmware programmed it (op2=0). */
    static final int A64_MRS_X0_CNTFRQ = mrs(3, 3, 14, 0, 0, 0);

    /**
     * {@code uint64_t cntvct_ordered(void)}: isb; mrs x0, cntvct_el0; ret. The isb keeps the counter read
     * from being executed before earlier instructions, as the kernel's __arch_counter_get_cntvct does.
     */
    static final byte[] A64_ISB_CNTVCT = words(A64_ISB, A64_MRS_X0_CNTVCT, A64_RET);
    /** {@code uint64_t cntvct(void)}: mrs x0, cntvct_el0; ret. Unordered. */
    static final byte[] A64_CNTVCT = words(A64_MRS_X0_CNTVCT, A64_RET);
    /**
     * {@code uint64_t cntvctss(void)}: mrs x0, cntvctss_el0; ret. Ordered without an isb: the
     * self-synchronised view is not read speculatively ahead of earlier instructions (FEAT_ECV); the kernel's
     * __arch_counter_get_cntvct patches "isb; mrs cntvct_el0" into "nop; mrs cntvctss_el0" where every CPU
     * has ECV (ARM64_HAS_ECV), which user space sees as HWCAP2_ECV.
     */
    static final byte[] A64_CNTVCTSS = words(A64_MRS_X0_CNTVCTSS, A64_RET);
    /** {@code uint64_t cntfrq(void)}: mrs x0, cntfrq_el0; ret. */
    static final byte[] A64_CNTFRQ = words(A64_MRS_X0_CNTFRQ, A64_RET);

    /**
     * Encodes MRS Xt, (op0, op1, CRn, CRm, op2) as the Arm ARM's "System register move" class:
     * {@code 1101 0101 0011 o0 op1 CRn CRm op2 Rt}, with op0 = 2 + o0.
     */
    static int mrs(int op0, int op1, int crn, int crm, int op2, int rt) {
        if (op0 < 2 || op0 > 3 || op1 > 7 || crn > 15 || crm > 15 || op2 > 7 || rt > 31) {
            throw new IllegalArgumentException("field out of range");
        }
        return 0xd5300000 | ((op0 - 2) << 19) | (op1 << 16) | (crn << 12) | (crm << 8) | (op2 << 5) | rt;
    }

    static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    static byte[] words(int... words) {
        ByteBuffer buf = ByteBuffer.allocate(words.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int w : words) {
            buf.putInt(w);
        }
        return buf.array();
    }
}
