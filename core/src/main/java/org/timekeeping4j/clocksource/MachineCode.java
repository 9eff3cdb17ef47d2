package org.timekeeping4j.clocksource;

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
     *    9: 41 f6 c0 01          test   r8b, 1
     *    d: 0f 85 9f 00 00 00    jne    b2                  ; odd: wait, then read the counter again
     *   13: 4c 8b 4e 10          mov    r9, [rsi+16]        ; k0: the constant for hi = E (cycle_last's)
     *   17: 4c 8b 56 18          mov    r10, [rsi+24]
     *   1b: 3b 56 30             cmp    edx, [rsi+48]       ; hi = E + 1?
     *   1e: 4c 0f 44 4e 38       cmove  r9, [rsi+56]        ;   then k1
     *   23: 4c 0f 44 56 40       cmove  r10, [rsi+64]
     *   28: 3b 56 34             cmp    edx, [rsi+52]       ; hi = E + 2?
     *   2b: 4c 0f 44 4e 48       cmove  r9, [rsi+72]        ;   then k2
     *   30: 4c 0f 44 56 50       cmove  r10, [rsi+80]
     *   35: 48 89 d1             mov    rcx, rdx
     *   38: 48 c1 e1 20          shl    rcx, 32
     *   3c: 48 09 c1             or     rcx, rax            ; now
     *   3f: 48 2b 0e             sub    rcx, [rsi]          ; delta = now - cycle_last
     *   42: 4a 3b 4c 1e 20       cmp    rcx, [rsi+r11+32]   ; delta &gt;= the record's limit (unsigned)?
     *   47: 73 13                jae    5c                  ;   then the slow path
     *   49: 48 f7 66 08          mul    qword [rsi+8]       ; rdx:rax = lo * mult' (lo = eax, the TSC's low half)
     *   4d: 4c 01 c8             add    rax, r9             ; + k_hi, 128 bits: the value is the high word
     *   50: 4c 11 d2             adc    rdx, r10
     *   53: 48 89 d0             mov    rax, rdx
     *   56: 4c 3b 07             cmp    r8, [rdi]           ; seq again
     *   59: 75 a8                jne    3                   ; changed: retry
     *   5b: c3                   ret
     *   5c: 48 89 c8             mov    rax, rcx            ; slow path: the Java reader's logic, in full
     *   5f: 45 31 d2             xor    r10d, r10d
     *   62: 48 85 c0             test   rax, rax
     *   65: 49 0f 48 c2          cmovs  rax, r10            ; a counter value before cycle_last: delta 0
     *   69: 4d 85 db             test   r11, r11
     *   6c: 75 06                jne    74                  ; not a fresh read: no staleness
     *   6e: 48 3b 46 58          cmp    rax, [rsi+88]       ; delta &gt; valid cycles (unsigned)?
     *   72: 77 32                ja     a6                  ;   then stale
     *   74: 48 f7 a6 80 00 00 00 mul    qword [rsi+128]     ; rdx:rax = delta * mult
     *   7b: 48 03 86 88 00 00 00 add    rax, [rsi+136]      ; + xtime
     *   82: 48 83 d2 00          adc    rdx, 0
     *   86: 8b 4f 08             mov    ecx, [rdi+8]        ; shift
     *   89: 48 0f ad d0          shrd   rax, rdx, cl        ; ns since base
     *   8d: 48 03 46 60          add    rax, [rsi+96]       ; value = base + ns
     *   91: 4c 8b 4e 78          mov    r9, [rsi+120]       ; leap step
     *   95: 48 3b 46 70          cmp    rax, [rsi+112]      ; value &lt; leap threshold (signed)?
     *   99: 4d 0f 4c ca          cmovl  r9, r10             ;   then no step
     *   9d: 48 03 46 68          add    rax, [rsi+104]      ; + offset
     *   a1: 4c 01 c8             add    rax, r9
     *   a4: eb b0                jmp    56                  ; validate
     *   a6: 48 b8 00..00 80      movabs rax, 0x8000000000000000   ; stale: Long.MIN_VALUE
     *   b0: eb a4                jmp    56                  ; validate
     *   b2: f3 90                pause                      ; the writer is inside its window
     *   b4: e9 4a ff ff ff       jmp    3
     * </pre>
     * <b>Why this shape.</b> An ordered counter read waits for every older instruction to execute (AMD
     * rdtscp; lfence;rdtsc with a serialising lfence), so in a stream of reads each instruction on the
     * value's chain after the counter adds its latency, and each load before it too. Hence: the counter is
     * read first (it waits only for the caller's loads, not for the page's); every load of the page is
     * independent of the counter, so it completes while the counter is read; and the value's chain after the
     * counter is mul, add, adc: three instructions, the least an exact 128-bit conversion takes. The writer
     * folds base, offset, xtime and cycle_last into 128-bit constants, one per value of the counter's high
     * half that the record's window can see, so that the TSC's low half, as rdtscp leaves it in rax, is
     * multiplied directly: with {@code now = hi * 2^32 + lo} and {@code mult' = mult * 2^(64 - shift)},
     * {@code now * mult' + k = lo * mult' + k_hi} where {@code k_hi = k + hi * 2^32 * mult'} and
     * {@code k = (base + offset) * 2^64 + xtime * 2^(64 - shift) - cycle_last * mult'}, whose high word is
     * exactly {@code base + offset + ((xtime + delta * mult) >>> shift)}. The constant for hi is picked by two
     * cmoves on a compare of edx (one cycle after the counter, ready before the mul is), so the shl/or that
     * joins the halves, the delta and its limit check are off the value's chain: they feed a predicted branch
     * only. The writer bounds each limit so that a delta below it implies {@code hi} in {E, E + 1, E + 2}
     * (E = cycle_last's high half: a window of two to three 2^32-cycle epochs, 3.5 s or more at 2.45 GHz,
     * beyond any update interval the tracker uses) and the conversion exact (see VvarPage.anyLimit); beyond
     * it, the slow path. Measured against the previous shape (one 64-bit constant, shl/or on the chain):
     * docs/PERFORMANCE.md.
     *
     * <p><b>Memory ordering, decided here.</b> x86 keeps loads in program order (TSO): the record loads come
     * after the first seq load and the seq re-read after them, and the writer stores seq odd, fences,
     * stores the records, then seq even (release). The counter may be read before the first seq load: a
     * reader that then sees the new state with a counter value before the writer's pivot c0 gets a negative
     * delta, which the slow path clamps to the value at c0, so every reader of the new state returns at
     * least new(c0) = old(c0) (the Timekeeper's monotonicity argument, case 2). Case 1 needs the counter read
     * before the seq re-read, which the ISA does not state for rdtscp (later instructions may begin before
     * it reads the TSC); it holds because of how x86 cores keep loads ordered: a load that executed early is
     * re-executed if its line is invalidated before it retires, and the re-read retires after rdtscp,
     * which reads the TSC before it retires. The kernel's vDSO relies on the same (rdtsc_ordered, then
     * vdso_read_retry with only a compiler barrier).
     */
    static byte[] x86SeqlockRead(byte[] orderedCounterRead) {
        byte[] tail = X86_SEQLOCK_TAIL.clone();
        // The template was assembled around rdtscp's 3 bytes: the two branches back over the counter read
        // (jne 3 at 0x59, rel8; jmp 3 at 0xb4, rel32) must reach further when the read is longer. The spin
        // loop sits at the end so that the common path takes no branch before the counter read.
        int grow = orderedCounterRead.length - 3;
        tail[X86_SEQLOCK_RETRY_REL8] = (byte) (tail[X86_SEQLOCK_RETRY_REL8] - grow);
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
    /** Bytes 0x06-0xb8 of {@link #x86SeqlockRead} (as assembled after rdtscp): everything after the read. */
    private static final byte[] X86_SEQLOCK_TAIL = bytes(0x4c, 0x8b, 0x07, 0x41, 0xf6, 0xc0, 0x01, 0x0f, 0x85, 0x9f,
            0x00, 0x00, 0x00, 0x4c, 0x8b, 0x4e, 0x10, 0x4c, 0x8b, 0x56, 0x18, 0x3b, 0x56, 0x30, 0x4c, 0x0f, 0x44,
            0x4e, 0x38, 0x4c, 0x0f, 0x44, 0x56, 0x40, 0x3b, 0x56, 0x34, 0x4c, 0x0f, 0x44, 0x4e, 0x48, 0x4c, 0x0f,
            0x44, 0x56, 0x50, 0x48, 0x89, 0xd1, 0x48, 0xc1, 0xe1, 0x20, 0x48, 0x09, 0xc1, 0x48, 0x2b, 0x0e, 0x4a,
            0x3b, 0x4c, 0x1e, 0x20, 0x73, 0x13, 0x48, 0xf7, 0x66, 0x08, 0x4c, 0x01, 0xc8, 0x4c, 0x11, 0xd2, 0x48,
            0x89, 0xd0, 0x4c, 0x3b, 0x07, 0x75, 0xa8, 0xc3, 0x48, 0x89, 0xc8, 0x45, 0x31, 0xd2, 0x48, 0x85, 0xc0,
            0x49, 0x0f, 0x48, 0xc2, 0x4d, 0x85, 0xdb, 0x75, 0x06, 0x48, 0x3b, 0x46, 0x58, 0x77, 0x32, 0x48, 0xf7,
            0xa6, 0x80, 0x00, 0x00, 0x00, 0x48, 0x03, 0x86, 0x88, 0x00, 0x00, 0x00, 0x48, 0x83, 0xd2, 0x00, 0x8b,
            0x4f, 0x08, 0x48, 0x0f, 0xad, 0xd0, 0x48, 0x03, 0x46, 0x60, 0x4c, 0x8b, 0x4e, 0x78, 0x48, 0x3b, 0x46,
            0x70, 0x4d, 0x0f, 0x4c, 0xca, 0x48, 0x03, 0x46, 0x68, 0x4c, 0x01, 0xc8, 0xeb, 0xb0, 0x48, 0xb8, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0xeb, 0xa4, 0xf3, 0x90, 0xe9, 0x4a, 0xff, 0xff, 0xff);
    /** Position in the tail of the rel8 of jne 3 (the byte at 0x5a). */
    private static final int X86_SEQLOCK_RETRY_REL8 = 0x5a - 0x06;
    /** Position in the tail of the rel32 of the spin loop's jmp 3 (bytes 0xb5-0xb8). */
    private static final int X86_SEQLOCK_SPIN_REL32 = 0xb5 - 0x06;

    // ---- aarch64 (little-endian 32-bit words) ----------------------------------------------------------

    /** isb: instruction synchronisation barrier; later instructions are fetched after it completes. */
    static final int A64_ISB = 0xd5033fdf;
    /** ret (x30). */
    static final int A64_RET = 0xd65f03c0;
    /** mrs x0, cntvct_el0: the virtual counter (op0=3, op1=3, CRn=14, CRm=0, op2=2). */
    static final int A64_MRS_X0_CNTVCT = mrs(3, 3, 14, 0, 2, 0);
    /** mrs x0, cntfrq_el0: the counter frequency in Hz as firmware programmed it (op2=0). */
    static final int A64_MRS_X0_CNTFRQ = mrs(3, 3, 14, 0, 0, 0);

    /**
     * {@code uint64_t cntvct_ordered(void)}: isb; mrs x0, cntvct_el0; ret. The isb keeps the counter read
     * from being executed before earlier instructions, as the kernel's __arch_counter_get_cntvct does.
     */
    static final byte[] A64_ISB_CNTVCT = words(A64_ISB, A64_MRS_X0_CNTVCT, A64_RET);
    /** {@code uint64_t cntvct(void)}: mrs x0, cntvct_el0; ret. Unordered. */
    static final byte[] A64_CNTVCT = words(A64_MRS_X0_CNTVCT, A64_RET);
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
