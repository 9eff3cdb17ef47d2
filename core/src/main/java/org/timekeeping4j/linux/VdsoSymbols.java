package org.timekeeping4j.linux;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;

/**
 * Finds a function in the vDSO the kernel mapped into this process, as the dynamic loader does: the image's
 * address from the auxiliary vector (getauxval(AT_SYSINFO_EHDR), man 3 getauxval), then its ELF program
 * headers, its dynamic section, and the dynamic symbol table (man 5 elf). Written in Java so that nothing is
 * compiled at build or run time.
 *
 * <p>Every offset is checked against the image's extent (its PT_LOAD segment) before it is read, and anything
 * unexpected (another ELF class, byte order or machine, no dynamic section, no hash table, a name outside the
 * string table) is a refusal with its reason, never a guess: the caller then uses libc's function. Symbol
 * versions are not checked: the vDSO defines each name once.
 */
public final class VdsoSymbols {

    /** getauxval's key for the vDSO's ELF header (include/uapi/linux/auxvec.h). */
    static final long AT_SYSINFO_EHDR = 33;

    /**
     * unsigned long getauxval(unsigned long type): man 3 getauxval (glibc 2.16+, musl); bound only where
     * /proc/self/auxv cannot be read (a downcall handle of its own descriptor costs a cold JVM milliseconds).
     */
    private static final class Getauxval {
        static final MethodHandle HANDLE = LibC.handle("getauxval", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    }

    /** The auxiliary vector's entry size on LP64: a_type and a_val, 8 bytes each (man 5 proc, /proc/pid/auxv). */
    private static final int AUXV_ENTRY = 16;

    // ELF64 (include/uapi/linux/elf.h): header, program header, dynamic entry and symbol offsets and sizes.
    private static final int EHDR_SIZE = 64;
    private static final long E_MACHINE = 18;
    private static final long E_PHOFF = 32;
    private static final long E_PHENTSIZE = 54;
    private static final long E_PHNUM = 56;
    private static final int PHDR_SIZE = 56;
    private static final int PT_LOAD = 1;
    private static final int PT_DYNAMIC = 2;
    private static final long P_OFFSET = 8;
    private static final long P_VADDR = 16;
    private static final long P_FILESZ = 32;
    private static final long P_MEMSZ = 40;
    private static final int DYN_SIZE = 16;
    private static final long DT_NULL = 0;
    private static final long DT_HASH = 4;
    private static final long DT_STRTAB = 5;
    private static final long DT_SYMTAB = 6;
    private static final long DT_STRSZ = 10;
    private static final long DT_SYMENT = 11;
    private static final long DT_GNU_HASH = 0x6ffffef5L;
    private static final int SYM_SIZE = 24;
    private static final int STT_FUNC = 2;
    private static final int STB_GLOBAL = 1;
    private static final int STB_WEAK = 2;
    /** The program headers must lie in the image's first page: only its extent says how much more is mapped. */
    private static final long HEADER_PAGE = 4096;
    /** A sanity bound on a vDSO's size (they are a few pages): larger means the header was misread. */
    private static final long MAX_IMAGE = 1 << 20;

    private VdsoSymbols() {}

    /** A function's address in the vDSO, or why there is none ({@code address} 0 then). */
    public record Lookup(long address, String failure) {
        /** {@return true when the function was found} */
        public boolean found() {
            return address != 0;
        }
    }

    /** The vDSO's address in this process (0 where the kernel mapped none, e.g. booted with vdso=0). */
    static long imageAddress() {
        long fromProc = auxv(AT_SYSINFO_EHDR);
        if (fromProc >= 0 || Getauxval.HANDLE == null) {
            return Math.max(fromProc, 0);
        }
        try {
            return (long) Getauxval.HANDLE.invokeExact(AT_SYSINFO_EHDR);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }

    /**
     * Entry {@code type} of this process's auxiliary vector as /proc/self/auxv has it (the vector the kernel
     * passed at exec, which getauxval reads too): its value, 0 where the vector has no such entry, or -1 where the
     * file cannot be read (then ask getauxval). java.io only: no FFM handle, no NIO.
     */
    static long auxv(long type) {
        byte[] v;
        try (java.io.FileInputStream in = new java.io.FileInputStream("/proc/self/auxv")) {
            v = in.readAllBytes();
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(v).order(java.nio.ByteOrder.nativeOrder());
        for (int at = 0; at + AUXV_ENTRY <= v.length; at += AUXV_ENTRY) {
            long t = b.getLong(at);
            if (t == type) {
                return b.getLong(at + 8);
            }
            if (t == 0) { // AT_NULL ends the vector
                break;
            }
        }
        return v.length == 0 ? -1 : 0;
    }

    /**
     * The address of function {@code name} in this process's vDSO.
     *
     * @param name the symbol, e.g. {@code __vdso_clock_gettime}
     * @param elfMachine the e_machine the image must have (62 x86_64, 183 aarch64)
     */
    public static Lookup find(String name, int elfMachine) {
        if (Platform.UNSUPPORTED_REASON != null) {
            return new Lookup(0, Platform.UNSUPPORTED_REASON);
        }
        long base = imageAddress();
        if (base == 0) {
            return new Lookup(0, "the kernel mapped no vDSO (getauxval(AT_SYSINFO_EHDR) is 0)");
        }
        return find(MemorySegment.ofAddress(base).reinterpret(MAX_IMAGE), name, elfMachine);
    }

    /**
     * The address of function {@code name} in the ELF image at {@code window}'s start ({@code window} covers at
     * least the image; reads stay inside the image's PT_LOAD extent). For tests over synthetic images too.
     */
    static Lookup find(MemorySegment window, String name, int elfMachine) {
        try {
            return lookup(window, name, elfMachine);
        } catch (IndexOutOfBoundsException e) {
            return new Lookup(0, "the vDSO image is malformed: an offset points outside it (" + e.getMessage() + ")");
        }
    }

    private static Lookup lookup(MemorySegment window, String name, int elfMachine) {
        MemorySegment head = window.asSlice(0, EHDR_SIZE);
        if (head.get(JAVA_INT_UNALIGNED, 0) != 0x464c457f) { // "\177ELF", little-endian
            return refused("no ELF magic at the vDSO's address");
        }
        if (head.get(JAVA_BYTE, 4) != 2 || head.get(JAVA_BYTE, 5) != 1) {
            return refused("the vDSO is not a little-endian ELF64 image (class " + head.get(JAVA_BYTE, 4) + ", data "
                    + head.get(JAVA_BYTE, 5) + ")");
        }
        int machine = Short.toUnsignedInt(head.get(JAVA_SHORT_UNALIGNED, E_MACHINE));
        if (machine != elfMachine) {
            return refused("the vDSO's e_machine is " + machine + ", expected " + elfMachine);
        }
        long phoff = head.get(JAVA_LONG_UNALIGNED, E_PHOFF);
        int phentsize = Short.toUnsignedInt(head.get(JAVA_SHORT_UNALIGNED, E_PHENTSIZE));
        int phnum = Short.toUnsignedInt(head.get(JAVA_SHORT_UNALIGNED, E_PHNUM));
        if (phentsize < PHDR_SIZE || phoff < EHDR_SIZE || phoff + (long) phnum * phentsize > HEADER_PAGE) {
            return refused("the vDSO's program headers are malformed (e_phoff " + phoff + ", e_phentsize " + phentsize + ")");
        }
        long loadVaddr = -1;
        long loadSize = 0;
        long dynOffset = -1;
        long dynSize = 0;
        for (int i = 0; i < phnum; i++) {
            MemorySegment ph = window.asSlice(phoff + (long) i * phentsize, PHDR_SIZE);
            int type = ph.get(JAVA_INT_UNALIGNED, 0);
            if (type == PT_LOAD && loadVaddr < 0) {
                if (ph.get(JAVA_LONG_UNALIGNED, P_OFFSET) != 0) {
                    return refused("the vDSO's first PT_LOAD does not start at its ELF header");
                }
                loadVaddr = ph.get(JAVA_LONG_UNALIGNED, P_VADDR);
                loadSize = ph.get(JAVA_LONG_UNALIGNED, P_MEMSZ);
            } else if (type == PT_DYNAMIC) {
                dynOffset = ph.get(JAVA_LONG_UNALIGNED, P_OFFSET);
                dynSize = ph.get(JAVA_LONG_UNALIGNED, P_FILESZ);
            }
        }
        if (loadVaddr < 0 || loadSize <= 0 || loadSize > MAX_IMAGE) {
            return refused("the vDSO has no usable PT_LOAD segment");
        }
        if (dynOffset < 0) {
            return refused("the vDSO has no PT_DYNAMIC segment");
        }
        // From here on every read is inside the loaded image; dynamic entries hold link-time addresses, which
        // are offsets into the image once the first PT_LOAD's p_vaddr is taken off (the kernel does not relocate).
        MemorySegment image = window.asSlice(0, loadSize);
        long symtab = -1;
        long strtab = -1;
        long strsz = -1;
        long syment = SYM_SIZE;
        long hash = -1;
        long gnuHash = -1;
        for (long at = dynOffset; at + DYN_SIZE <= dynOffset + dynSize; at += DYN_SIZE) {
            long tag = image.get(JAVA_LONG_UNALIGNED, at);
            long value = image.get(JAVA_LONG_UNALIGNED, at + 8);
            if (tag == DT_NULL) {
                break;
            }
            if (tag == DT_SYMTAB) {
                symtab = value - loadVaddr;
            } else if (tag == DT_STRTAB) {
                strtab = value - loadVaddr;
            } else if (tag == DT_STRSZ) {
                strsz = value;
            } else if (tag == DT_SYMENT) {
                syment = value;
            } else if (tag == DT_HASH) {
                hash = value - loadVaddr;
            } else if (tag == DT_GNU_HASH) {
                gnuHash = value - loadVaddr;
            }
        }
        if (symtab < 0 || strtab < 0 || strsz <= 0 || syment < SYM_SIZE) {
            return refused("the vDSO's dynamic section lacks DT_SYMTAB, DT_STRTAB or DT_STRSZ");
        }
        long count;
        if (hash >= 0) {
            count = Integer.toUnsignedLong(image.get(JAVA_INT_UNALIGNED, hash + 4)); // nchain = number of symbols
        } else if (gnuHash >= 0) {
            count = gnuHashSymbolCount(image, gnuHash);
        } else {
            return refused("the vDSO has neither DT_HASH nor DT_GNU_HASH, so its symbol count is unknown");
        }
        MemorySegment strings = image.asSlice(strtab, strsz);
        byte[] wanted = name.getBytes(StandardCharsets.US_ASCII);
        for (long i = 1; i < count; i++) { // symbol 0 is the undefined symbol
            MemorySegment sym = image.asSlice(symtab + i * syment, SYM_SIZE);
            int info = Byte.toUnsignedInt(sym.get(JAVA_BYTE, 4));
            int bind = info >>> 4;
            if ((info & 0xf) != STT_FUNC || (bind != STB_GLOBAL && bind != STB_WEAK)
                    || sym.get(JAVA_SHORT_UNALIGNED, 6) == 0 || !nameIs(strings, sym.get(JAVA_INT_UNALIGNED, 0), wanted)) {
                continue;
            }
            long offset = sym.get(JAVA_LONG_UNALIGNED, 8) - loadVaddr;
            if (offset <= 0 || offset >= loadSize) {
                return refused(name + "'s value points outside the vDSO");
            }
            return new Lookup(window.address() + offset, null);
        }
        return refused("the vDSO defines no function " + name);
    }

    /** Whether the NUL-terminated string at {@code offset} of {@code strings} is {@code wanted}. */
    private static boolean nameIs(MemorySegment strings, int offset, byte[] wanted) {
        long at = Integer.toUnsignedLong(offset);
        if (at + wanted.length >= strings.byteSize()) {
            return false;
        }
        for (int k = 0; k < wanted.length; k++) {
            if (strings.get(JAVA_BYTE, at + k) != wanted[k]) {
                return false;
            }
        }
        return strings.get(JAVA_BYTE, at + wanted.length) == 0;
    }

    /**
     * The number of dynamic symbols from a DT_GNU_HASH table: one past the last hashed symbol, found from the
     * highest bucket's chain, whose last entry has bit 0 set (the layout glibc's and the kernel's tools read).
     */
    private static long gnuHashSymbolCount(MemorySegment image, long at) {
        long nbuckets = Integer.toUnsignedLong(image.get(JAVA_INT_UNALIGNED, at));
        long symoffset = Integer.toUnsignedLong(image.get(JAVA_INT_UNALIGNED, at + 4));
        long bloomSize = Integer.toUnsignedLong(image.get(JAVA_INT_UNALIGNED, at + 8));
        long buckets = at + 16 + bloomSize * 8;
        long chains = buckets + nbuckets * 4;
        long last = 0;
        for (long b = 0; b < nbuckets; b++) {
            last = Math.max(last, Integer.toUnsignedLong(image.get(JAVA_INT_UNALIGNED, buckets + b * 4)));
        }
        if (last < symoffset) {
            return symoffset;
        }
        while ((image.get(JAVA_INT_UNALIGNED, chains + (last - symoffset) * 4) & 1) == 0) {
            last++;
        }
        return last + 1;
    }

    private static Lookup refused(String why) {
        return new Lookup(0, why);
    }
}
