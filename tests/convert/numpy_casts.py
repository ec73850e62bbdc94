# numpy's casts of the values tests/convert/main.rs writes: for each source type SRC,
# DIR/SRC.bin holds raw little-endian elements; this writes DIR/SRC_DST.bin for each
# destination: numpy's astype to float32 and float16; bfloat16 (which numpy lacks) rounded to
# nearest even from the float32 value, on the bits; uint8 as np.clip(np.rint(y), 0, 255),
# NaN as 0. Prints "missing; ..." and exits 0 without numpy.
import sys

try:
    import numpy as np
except ImportError as e:
    print(f"missing; {e}")
    sys.exit(0)

d = sys.argv[1]
sources = sys.argv[2].split(",")
types = {"uint8": np.uint8, "int8": np.int8, "uint16": np.uint16, "int16": np.int16,
         "uint32": np.uint32, "int32": np.int32, "float16": np.float16, "float32": np.float32}


def bf16_bits(f):
    b = f.view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(f)
    r[nan] = ((b[nan] >> 16) | 0x40).astype(np.uint16)
    return r


with np.errstate(all="ignore"):
    for src in sources:
        if src == "bfloat16":
            raw = np.fromfile(f"{d}/{src}.bin", dtype=np.uint16)
            x = (raw.astype(np.uint32) << 16).view(np.float32)
        else:
            x = np.fromfile(f"{d}/{src}.bin", dtype=types[src])
        x.astype(np.float32).tofile(f"{d}/{src}_float32.bin")
        x.astype(np.float16).tofile(f"{d}/{src}_float16.bin")
        bf16_bits(x.astype(np.float32)).tofile(f"{d}/{src}_bfloat16.bin")
        y = x.astype(np.float64)
        u8 = np.clip(np.rint(y), 0, 255)
        u8[np.isnan(y)] = 0
        u8.astype(np.uint8).tofile(f"{d}/{src}_uint8.bin")
print("ok")
