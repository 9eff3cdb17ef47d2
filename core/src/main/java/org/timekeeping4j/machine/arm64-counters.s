// The arm64 counter stubs: the source of MachineCode's arm64 constants, one function each under its constant's
// name, which AssemblySourcesTest assembles alone (`aarch64-linux-gnu-as --defsym A64_CNTVCT=1 -o x.o
// arm64-counters.s`, objcopy -O binary) and compares with that constant. AAPCS64: result in x0.
        .text

// uint64_t cntvct_ordered(void): the isb keeps the counter read from being executed before earlier
// instructions, as the kernel's __arch_counter_get_cntvct does.
        .ifdef  A64_ISB_CNTVCT
cntvct_ordered:
        isb
        mrs     x0, cntvct_el0
        ret
        .endif

// uint64_t cntvct(void): unordered.
        .ifdef  A64_CNTVCT
cntvct:
        mrs     x0, cntvct_el0
        ret
        .endif

// uint64_t cntvctss(void): the self-synchronised virtual counter, ordered without an isb; FEAT_ECV only.
// By its encoding (S3_3_C14_C0_6): older assemblers do not know the name cntvctss_el0.
        .ifdef  A64_CNTVCTSS
cntvctss:
        mrs     x0, S3_3_C14_C0_6
        ret
        .endif

// uint64_t cntfrq(void): the counter frequency in Hz as firmware programmed it.
        .ifdef  A64_CNTFRQ
cntfrq:
        mrs     x0, cntfrq_el0
        ret
        .endif
