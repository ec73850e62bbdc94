"""Views as numpy makes them, for tests/views_numpy.rs.

Prints one line per case (fixed seed, so the same cases every run):

    name;itemsize;source;shape;strides;offset;bounds;fill;dst_strides;expected

- source: the bytes of the 1-d base array every view of the case is a view of (hex);
- shape, strides (in elements, any sign), offset (element of index 0 relative to the base):
  comma-separated, read from numpy's own `strides` and `__array_interface__` pointers;
- bounds: `dims:lo:hi` entries (dims dot-separated) joined by `/`, empty for none; each says
  that the combined index of those view dims exists in lo..hi (np.pad's source range);
- fill: the bytes of np.pad's constant value (hex), empty without bounds;
- dst_strides: `-` for a contiguous output, else the strides (elements) of the window of a
  larger zeroed array the view is assigned to;
- expected: numpy's bytes (hex): np.ascontiguousarray(view), np.pad(...), or the span of the
  destination array from the window's first element to its last.

Prints `missing;<why>` and nothing else when numpy cannot be imported.

The last cases once failed on the GPU and stay as regressions: np.pad of an empty dim
(every position is the fill, with 8- or 16-byte movement units: the source binding must
still hold one unit), and padded views written into a strided window.
"""

import sys

try:
    import numpy as np
    from numpy.lib.stride_tricks import as_strided
except ImportError as e:
    print("missing;" + ascii(str(e)))
    sys.exit(0)

rng = np.random.default_rng(0x5EED_0F_71E5)

# 1, 2 (float and integer), 4, 8 and 16 bytes.
DTYPES = [np.uint8, np.float16, np.int16, np.float32, np.int32, np.float64, np.complex128]


def pick_dtype():
    return np.dtype(DTYPES[int(rng.integers(len(DTYPES)))])


def random_base(n, dtype):
    """A 1-d array of n elements of random bytes: a misplaced element shows."""
    dtype = np.dtype(dtype)
    return rng.integers(0, 256, size=n * dtype.itemsize, dtype=np.uint8).view(dtype)


def fill_value(dtype):
    if dtype.kind == "u":
        return int(rng.integers(1, 256))
    if dtype.kind == "i":
        return int(rng.integers(-30000, 30000))
    if dtype.kind == "c":
        return complex(float(rng.normal()), float(rng.normal()))
    return float(np.float16(rng.normal() * 100))  # exact in every float dtype


def describe(v, base):
    """Shape, strides (elements) and element offset of view v of base, as numpy has them."""
    it = base.itemsize
    assert base.ndim == 1 and base.flags.c_contiguous
    assert v.size == 0 or np.shares_memory(v, base), "not a view of the base"
    off = v.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    assert off % it == 0 and all(s % it == 0 for s in v.strides)
    return list(v.shape), [s // it for s in v.strides], off // it


def ints(xs):
    return ",".join(str(int(x)) for x in xs)


count = 0


def emit(name, base, shape, strides, offset, bounds, fill, dst_strides, expected):
    global count
    count += 1
    bounds = "/".join(
        ".".join(str(d) for d in dims) + f":{lo}:{hi}" for dims, lo, hi in bounds
    )
    fill = b"" if fill is None else fill
    dst = "-" if dst_strides is None else ints(dst_strides)
    fields = [
        f"{count:03}-{name}-{base.dtype.name}",
        str(base.itemsize),
        base.tobytes().hex(),
        ints(shape),
        ints(strides),
        str(offset),
        bounds,
        fill.hex(),
        dst,
        expected.tobytes().hex(),
    ]
    print(";".join(fields))


def emit_view(name, base, v):
    shape, strides, offset = describe(v, base)
    emit(name, base, shape, strides, offset, [], None, None, np.ascontiguousarray(v))


# (a) as_strided: random shapes and strides (0 and overlapping ones too), then flips and
# steps by slicing, transposes and broadcasts.
def random_as_strided(dtype):
    rank = int(rng.integers(1, 5))
    shape = [int(n) for n in rng.integers(1, 7, size=rank)]
    strides = [int(s) for s in rng.integers(0, 9, size=rank)]
    span = sum((n - 1) * s for n, s in zip(shape, strides))
    start = int(rng.integers(0, 5))
    base = random_base(start + span + 1 + int(rng.integers(0, 4)), dtype)
    it = base.itemsize
    v = as_strided(base[start:], shape=shape, strides=[s * it for s in strides])
    steps = [int(rng.choice([1, 1, -1, -1, 2, -2])) for _ in range(rank)]
    v = v[tuple(slice(None, None, s) for s in steps)]
    if rng.random() < 0.4:
        v = v.transpose(rng.permutation(rank))
    if rng.random() < 0.4 and v.ndim < 4:
        # A new axis anywhere, broadcast to a few copies (stride 0).
        axis = int(rng.integers(0, v.ndim + 1))
        v = np.expand_dims(v, axis)
        to = list(v.shape)
        to[axis] = int(rng.integers(2, 5))
        v = np.broadcast_to(v, to)
    return base, v


for i in range(45):
    base, v = random_as_strided(pick_dtype())
    emit_view("as_strided", base, v)

# (b) Slicing with steps of either sign, integer indices, new axes, transposes.
FIXED_SLICES = [
    ((9, 20, 6), lambda x: x[::2, 3:17, ::-1]),
    ((9, 20, 6), lambda x: x[::-1, ::-3, 1:5]),
    ((9, 20, 6), lambda x: x[4, ::-1]),
    ((9, 20, 6), lambda x: x[..., None, 2:]),
    ((9, 20, 6), lambda x: x[2:7].T),
    ((9, 20, 6), lambda x: x[:, ::-2].transpose(2, 0, 1)),
    ((9, 20, 6), lambda x: x[::-1, ::-1, ::-1]),
    ((9, 20, 6), lambda x: x[5:2]),  # empty
    ((9, 20, 6), lambda x: x[1, 2, 3, ...]),  # 0-d
    ((9, 20, 6), lambda x: x[:, 7:8, :]),
    ((9, 20, 6), lambda x: x[3:4, ::7, 5:6]),
    ((64, 300), lambda x: x[::2, 7:263]),  # rows of a slice
    ((128, 257), lambda x: x[:, 1:]),
    ((48, 64, 4), lambda x: x[:, ::-1, :]),
    ((3, 67, 129), lambda x: x.transpose(0, 2, 1)),  # a permute, through the view path
    ((130, 70), lambda x: x.T),
    ((2, 3, 4, 5), lambda x: x.transpose(3, 1, 0, 2)[::-1]),
    ((33,), lambda x: x[::-1]),
    ((40, 40), lambda x: np.broadcast_to(x[3], (5, 40))),
    ((40, 40), lambda x: np.broadcast_to(x[:, 3:4], (40, 7)).T),
]
for k, (shape, take) in enumerate(FIXED_SLICES):
    dtype = DTYPES[k % len(DTYPES)]
    base = random_base(int(np.prod(shape)), dtype)
    emit_view("slice", base, take(base.reshape(shape)))


def random_slice(x, allow_index=True, allow_newaxis=True, allow_empty=True):
    """A random basic-slicing view of x: per dim a slice with a step of either sign (now and
    then empty), now and then an integer index or a new axis; then, half the time, a
    transpose."""
    key = []
    for n in x.shape:
        if allow_newaxis and rng.random() < 0.1:
            key.append(None)
        if allow_index and rng.random() < 0.1:
            key.append(int(rng.integers(-n, n)))
            continue
        step = int(rng.choice([1, 1, 2, 3, -1, -1, -2, -3]))
        a, b = 0, n
        if rng.random() < 0.6:  # a part of the dim, at least one element
            a = int(rng.integers(0, n))
            b = int(rng.integers(a + 1, n + 1))
        if allow_empty and rng.random() < 0.03:
            b = a
        if step > 0 or a == b:
            key.append(slice(a, b, step))
        else:  # the same range, walked backwards
            key.append(slice(b - 1, a - 1 if a > 0 else None, step))
    v = x[tuple(key) + (...,)]  # a 0-d view, not a scalar, when every dim is indexed
    if v.ndim > 1 and rng.random() < 0.5:
        v = v.transpose(rng.permutation(v.ndim))
    return v


for i in range(50):
    dtype = pick_dtype()
    rank = int(rng.integers(1, 5))
    shape = [int(n) for n in rng.integers(2, 17, size=rank)]
    base = random_base(int(np.prod(shape)), dtype)
    emit_view("random-slice", base, random_slice(base.reshape(shape)))


# (c) np.pad with constant values, per-dim widths, of a tensor or of a view of it. Padding
# dim d of a view (extent n, stride s) by (b, a) is a dim of extent b + n + a with stride s,
# the offset moved by -b * s, and the source range b..b + n.
def padded(base, v, widths, value, perm=None):
    shape, strides, offset = describe(v, base)
    bounds = []
    for d, (b, a) in enumerate(widths):
        if b or a:
            bounds.append(([d], b, b + shape[d]))
            offset -= b * strides[d]
            shape[d] += b + a
    want = np.pad(v, widths, mode="constant", constant_values=value)
    if perm is not None:  # a transpose of the padded tensor
        want = want.transpose(perm)
        where = {p: i for i, p in enumerate(perm)}
        shape = [shape[p] for p in perm]
        strides = [strides[p] for p in perm]
        bounds = [([where[d] for d in dims], lo, hi) for dims, lo, hi in bounds]
    fill = np.array(value, dtype=base.dtype).tobytes()
    return shape, strides, offset, bounds, fill, np.ascontiguousarray(want)


for i in range(57):
    dtype = pick_dtype()
    rank = int(rng.integers(1, 5))
    shape = [int(n) for n in rng.integers(1, 13, size=rank)]
    base = random_base(int(np.prod(shape)), dtype)
    x = base.reshape(shape)
    kind = ["pad", "pad-slice", "pad-as_strided"][i % 3]
    if kind == "pad-slice":
        x = random_slice(x, allow_index=rank > 1, allow_newaxis=rank < 4, allow_empty=False)
    elif kind == "pad-as_strided":
        base, x = random_as_strided(dtype)
    widths = [
        (int(rng.integers(0, 4)), int(rng.integers(0, 4))) if rng.random() < 0.7 else (0, 0)
        for _ in range(x.ndim)
    ]
    perm = [int(p) for p in rng.permutation(x.ndim)] if rng.random() < 0.4 else None
    case = padded(base, x, widths, fill_value(base.dtype), perm)
    emit(kind, base, *case[:5], None, case[5])

# Larger ones: spatial padding of images, a row pad of bytes.
for shape, widths, dtype in [
    ((2, 3, 50, 60), ((0, 0), (0, 0), (1, 1), (1, 1)), np.float32),
    ((100, 300), ((0, 0), (3, 5)), np.uint8),
    ((64, 64, 3), ((2, 2), (2, 2), (0, 1)), np.float16),
]:
    base = random_base(int(np.prod(shape)), dtype)
    case = padded(base, base.reshape(shape), list(widths), fill_value(base.dtype))
    emit("pad-large", base, *case[:5], None, case[5])

# np.pad of a channel dim to a multiple of k, split into blocks and moved last:
# n c h w -> n (cb k) h w -> n cb h w k (NCHW -> NCHWkc), one bound over the dims (cb, k).
for i in range(12):
    dtype = pick_dtype()
    n, c, h, w = (int(t) for t in rng.integers(1, 6, size=4))
    c += 1
    k = int(rng.choice([2, 4, 8]))
    before = int(rng.integers(0, 3)) if i % 2 else 0
    after = (-(before + c)) % k
    base = random_base(n * c * h * w, dtype)
    x = base.reshape(n, c, h, w)
    if i % 3 == 1:
        x = x[::-1, ::-1]  # flipped batch and channels: negative strides under the split
    elif i % 3 == 2:  # channels-last memory, rows flipped
        x = base.reshape(n, h, w, c).transpose(0, 3, 1, 2)[:, :, :, ::-1]
    (sn, sc, sh, sw), offset = describe(x, base)[1:]
    value = fill_value(base.dtype)
    cb = (before + c + after) // k
    want = np.pad(x, ((0, 0), (before, after), (0, 0), (0, 0)), constant_values=value)
    want = want.reshape(n, cb, k, h, w).transpose(0, 1, 3, 4, 2)
    emit(
        f"pad-blocked{k}",
        base,
        [n, cb, h, w, k],
        [sn, k * sc, sh, sw, sc],
        offset - before * sc,
        [([1, 4], before, before + c)],
        np.array(value, dtype=base.dtype).tobytes(),
        None,
        np.ascontiguousarray(want),
    )


# (d) A view assigned to a strided window (positive steps, any dim order) of a larger zeroed
# array: the expected output is that array from the window's first element to its last.
# The GPU writes 8/16-bit data in whole 32-bit words, so it refuses most strided outputs of
# such data (a typed error): the fixed windows below are ones it takes (rows of whole words).
def emit_window(name, base, view, src, dst, key, perm):
    """Assigns src to the window dst[key].transpose(perm); view is (shape, strides, offset,
    bounds, fill) of the source side."""
    vshape, strides, offset, bounds, fill = view
    window = dst[key].transpose(perm)
    window[...] = src
    flat = dst.reshape(-1)
    wshape, dst_strides, first = describe(window, flat)
    assert wshape == list(vshape)
    span = 1 + sum((m - 1) * s for m, s in zip(vshape, dst_strides))
    want = flat[first : first + span]
    emit(name, base, vshape, strides, offset, bounds, fill, dst_strides, want)


def into_window(shape):
    """A random window of this shape: the destination's shape, the slicing key (positive
    steps) and the transpose that gives the window."""
    perm = [int(p) for p in rng.permutation(len(shape))]
    inner = [0] * len(shape)  # the window before its transpose
    for i, p in enumerate(perm):
        inner[p] = shape[i]
    steps = [int(rng.integers(1, 4)) for _ in shape]
    starts = [int(rng.integers(0, 3)) for _ in shape]
    ends = [s + (m - 1) * t + 1 for m, t, s in zip(inner, steps, starts)]
    dshape = [e + int(rng.integers(0, 3)) for e in ends]
    return dshape, tuple(slice(s, e, t) for s, e, t in zip(starts, ends, steps)), perm


for shape, take, dshape, key, dtype in [
    ((10, 16), lambda x: x[::-2, 4:12], (6, 20), np.s_[1:, 8:16], np.uint8),
    ((6, 8, 6), lambda x: x[:, ::-1, 2:4], (6, 8, 4), np.s_[:, :, 1:3], np.int16),
    ((5, 7, 8), lambda x: x[1:4, ::3].transpose(1, 0, 2), (4, 7, 8), np.s_[1:, 2:5], np.float16),
]:
    base = random_base(int(np.prod(shape)), dtype)
    v = take(base.reshape(shape))
    dst = np.zeros(dshape, dtype=base.dtype)
    view = (*describe(v, base), [], None)
    emit_window("window-words", base, view, v, dst, key, list(range(v.ndim)))

for i in range(20):
    dtype = pick_dtype()
    rank = int(rng.integers(1, 4))
    shape = [int(n) for n in rng.integers(2, 9, size=rank)]
    base = random_base(int(np.prod(shape)), dtype)
    v = random_slice(base.reshape(shape), allow_index=False, allow_empty=False)
    view = (*describe(v, base), [], None)
    dshape, key, perm = into_window(view[0])
    emit_window("window", base, view, v, np.zeros(dshape, dtype=base.dtype), key, perm)

# np.pad of an empty dim: nothing exists, every position is the fill.
for shape, key, widths, dtype in [
    ((6,), np.s_[3:3], [(2, 2)], np.float64),  # 8-byte unit
    ((5, 4), np.s_[2:2], [(1, 1), (0, 0)], np.float32),  # rows of 16 bytes
    ((5, 4), np.s_[2:2], [(1, 1), (0, 0)], np.int16),  # rows of 8 bytes
]:
    base = random_base(int(np.prod(shape)), dtype)
    case = padded(base, base.reshape(shape)[key], widths, fill_value(base.dtype))
    emit("pad-empty", base, *case[:5], None, case[5])
# np.pad written into a strided window of a larger array.
for shape, widths, dshape, key, dtype in [
    ((2,), [(1, 1)], (7,), np.s_[::2], np.float32),
    ((2, 3), [(1, 1), (0, 0)], (4, 5), np.s_[:, 1:4], np.int32),
    ((4, 6), [(1, 1), (0, 0)], (8, 10), np.s_[1:7, 2:8], np.float16),  # rows of words
]:
    base = random_base(int(np.prod(shape)), dtype)
    *view, src = padded(base, base.reshape(shape), widths, -3)
    dst = np.zeros(dshape, dtype=base.dtype)
    emit_window("pad-window", base, view, src, dst, key, list(range(len(shape))))
for i in range(4):
    dtype = DTYPES[3 + i % 4]  # 4 bytes and more: strided outputs the GPU takes
    shape = [int(n) for n in rng.integers(2, 9, size=int(rng.integers(1, 4)))]
    base = random_base(int(np.prod(shape)), dtype)
    widths = [(int(rng.integers(0, 3)), int(rng.integers(0, 3))) for _ in shape]
    *view, src = padded(base, base.reshape(shape)[::-1], widths, fill_value(base.dtype))
    while True:  # a window that is not contiguous
        dshape, key, perm = into_window(view[0])
        dst = np.zeros(dshape, dtype=base.dtype)
        if not dst[key].transpose(perm).flags.c_contiguous:
            break
    emit_window("pad-window", base, view, src, dst, key, perm)
