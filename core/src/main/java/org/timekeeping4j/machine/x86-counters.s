# The x86_64 counter stubs: the source of MachineCode's x86 constants, one function each under its constant's
# name, which AssemblySourcesTest assembles alone (`as --64 --defsym X86_RDTSC=1 -o x.o x86-counters.s`,
# objcopy -O binary) and compares with that constant. System V AMD64: result in rax; arguments in rdi, rsi,
# rdx; rax, rcx, rdx, r8 caller-saved (free to clobber), rbx callee-saved.
        .intel_syntax noprefix
        .text

# uint64_t rdtsc(void), unordered: the CPU may execute it before earlier instructions retire.
        .ifdef  X86_RDTSC
rdtsc:
        rdtsc                           # edx:eax = TSC
        shl     rdx, 32
        or      rax, rdx
        ret
        .endif

# uint64_t lfence_rdtsc(void), ordered: lfence waits until all earlier instructions have completed locally.
        .ifdef  X86_LFENCE_RDTSC
lfence_rdtsc:
        lfence
        rdtsc                           # edx:eax = TSC
        shl     rdx, 32
        or      rax, rdx
        ret
        .endif

# uint64_t rdtscp(uint32_t *aux), ordered: TSC_AUX (Linux: the CPU and node number) written to *aux.
        .ifdef  X86_RDTSCP
rdtscp:
        rdtscp                          # edx:eax = TSC, ecx = TSC_AUX
        mov     [rdi], ecx
        shl     rdx, 32
        or      rax, rdx
        ret
        .endif

# uint64_t rdtscp_noaux(void): rdtscp for clock reads, TSC_AUX dropped.
        .ifdef  X86_RDTSCP_NOAUX
rdtscp_noaux:
        rdtscp                          # edx:eax = TSC, ecx = TSC_AUX (dropped)
        shl     rdx, 32
        or      rax, rdx
        ret
        .endif

# void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]): eax, ebx, ecx, edx of the leaf.
        .ifdef  X86_CPUID
cpuid:
        push    rbx                     # cpuid overwrites rbx, which the caller expects preserved
        mov     r8, rdx                 # out
        mov     eax, edi                # leaf
        mov     ecx, esi                # subleaf
        cpuid
        mov     [r8], eax
        mov     [r8+4], ebx
        mov     [r8+8], ecx
        mov     [r8+12], edx
        pop     rbx
        ret
        .endif
