#!/usr/bin/env python3
"""scripts/lab/criu/timens.py: reads and edits a CRIU checkpoint's timens-N.img, and reads this host's clocks.

  timens.py show IMG                      prints "MONO_NS BOOT_NS": the clocks the checkpoint holds
  timens.py shift IMG MONO_S BOOT_S       moves them forward by whole seconds (the restored namespace's offsets
                                          grow by as much), and prints the new "MONO_NS BOOT_NS"
  timens.py now                           prints this process's "MONO_NS BOOT_NS" (clock_gettime)

The image (CRIU's images/timens.proto and criu/image.c, as CRIU 4.x writes it): the common magic and the timens
magic (two little-endian u32), then one entry: a little-endian u32 size and a protobuf message
  timens_entry { required timespec_s monotonic = 1; required timespec_s boottime = 2; }
  timespec_s   { required uint64 tv_sec = 1; required uint64 tv_nsec = 2; }
Decoded and encoded here (a few varints), so that no protobuf library or CRIU's crit is needed. Anything else in
the file (another field, a second entry) is refused rather than dropped.
"""
import struct
import sys
import time

IMG_COMMON_MAGIC = 0x54564319
TIMENS_MAGIC = 0x43114433


def varint(buf, pos):
    value = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, pos


def put_varint(value):
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        out.append(b | (0x80 if value else 0))
        if not value:
            return bytes(out)


def fields(msg):
    """{field number: value} of a message with only varint (0) and length-delimited (2) fields, each once."""
    out, pos = {}, 0
    while pos < len(msg):
        key, pos = varint(msg, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(msg, pos)
        elif wire == 2:
            length, pos = varint(msg, pos)
            value, pos = msg[pos:pos + length], pos + length
        else:
            raise ValueError(f"wire type {wire} in field {number}: not a timens image")
        if number in out:
            raise ValueError(f"field {number} twice: not a timens image")
        out[number] = value
    return out


def timespec(msg):
    f = fields(msg)
    if set(f) != {1, 2}:
        raise ValueError(f"timespec with fields {sorted(f)}, expected tv_sec and tv_nsec")
    return f[1] * 1_000_000_000 + f[2]


def encode_timespec(ns):
    sec, nsec = divmod(ns, 1_000_000_000)
    return b"\x08" + put_varint(sec) + b"\x10" + put_varint(nsec)


def read(path):
    data = open(path, "rb").read()
    if len(data) < 12:
        raise ValueError(f"{path}: {len(data)} bytes, too short for a timens image")
    magic, kind, size = struct.unpack_from("<III", data, 0)
    if magic != IMG_COMMON_MAGIC or kind != TIMENS_MAGIC:
        raise ValueError(f"{path}: magic {magic:#x} {kind:#x}, expected {IMG_COMMON_MAGIC:#x} {TIMENS_MAGIC:#x}")
    if len(data) != 12 + size:
        raise ValueError(f"{path}: {len(data)} bytes, expected one entry of {size} after the header")
    f = fields(data[12:])
    if set(f) != {1, 2}:
        raise ValueError(f"{path}: timens_entry with fields {sorted(f)}, expected monotonic and boottime")
    return timespec(f[1]), timespec(f[2])


def write(path, mono, boot):
    inner = [encode_timespec(mono), encode_timespec(boot)]
    msg = b"".join(bytes([0x0A if i == 0 else 0x12]) + put_varint(len(m)) + m for i, m in enumerate(inner))
    with open(path, "wb") as out:
        out.write(struct.pack("<III", IMG_COMMON_MAGIC, TIMENS_MAGIC, len(msg)) + msg)


def main(argv):
    if len(argv) == 2 and argv[1] == "now":
        print(time.clock_gettime_ns(time.CLOCK_MONOTONIC), time.clock_gettime_ns(time.CLOCK_BOOTTIME))
    elif len(argv) == 3 and argv[1] == "show":
        print(*read(argv[2]))
    elif len(argv) == 5 and argv[1] == "shift":
        mono, boot = read(argv[2])
        mono += int(argv[3]) * 1_000_000_000
        boot += int(argv[4]) * 1_000_000_000
        write(argv[2], mono, boot)
        if read(argv[2]) != (mono, boot):
            raise ValueError(f"{argv[2]}: the rewritten image does not read back")
        print(mono, boot)
    else:
        print("\n".join(__doc__.strip().splitlines()[2:5]), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (OSError, ValueError, IndexError) as e:
        print(f"timens.py: {e}", file=sys.stderr)
        sys.exit(1)
