// Element conversions, on bits: a source element (its low bits of a u32) to the bits of an
// f32, then f32 bits to a destination element. Integer operations only, so the results do
// not depend on what WGSL leaves to the implementation (rounding of large integer-to-float
// casts, pack2x16float outside f16's range, flushing subnormals): round to nearest even,
// overflow to infinity, NaN kept (quiet), signed zeros and subnormals kept, as numpy's
// `astype`. src/convert.rs is the reference they are checked against, bit for bit.
// src/shaders/convert.rs adds `src_to_f32` and `f32_to_dst` for one pair of types.

// Through i32: the value is non-negative, and a CPU's SIMD converts signed integers in one
// instruction (unsigned ones take several).
fn u8_to_f32(b: u32) -> u32 {
    return bitcast<u32>(f32(i32(b & 0xffu)));
}

fn i8_to_f32(b: u32) -> u32 {
    return bitcast<u32>(f32(bitcast<i32>(b << 24u) >> 24u));
}

fn u16_to_f32(b: u32) -> u32 {
    return bitcast<u32>(f32(i32(b & 0xffffu)));
}

fn i16_to_f32(b: u32) -> u32 {
    return bitcast<u32>(f32(bitcast<i32>(b << 16u) >> 16u));
}

// Below 2^24 the cast is exact; above, the top 24 bits rounded to nearest even by hand.
fn u32_to_f32(x: u32) -> u32 {
    if x < 0x1000000u {
        return bitcast<u32>(f32(x));
    }
    let top = 31u - countLeadingZeros(x);
    let shift = top - 23u;
    let m = x >> shift;
    let rest = x & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    let up = select(0u, 1u, rest > half || (rest == half && (m & 1u) == 1u));
    // A carry out of the mantissa (m + up == 2^24) bumps the exponent, as it should.
    return ((top + 127u) << 23u) + (m - 0x800000u) + up;
}

fn i32_to_f32(b: u32) -> u32 {
    let negative = (b >> 31u) == 1u;
    let magnitude = select(b, ~b + 1u, negative);
    return select(0u, 0x80000000u, negative) | u32_to_f32(magnitude);
}

fn f16_to_f32(h: u32) -> u32 {
    let sign = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    let normal = ((e + 112u) << 23u) | (m << 13u);
    // A subnormal, m * 2^-24: normalised, it is a normal f32 (for m = 0 the value is
    // garbage, and not chosen).
    let top = 31u - countLeadingZeros(m);
    let subnormal = ((top + 103u) << 23u) | ((m << ((23u - top) & 31u)) & 0x7fffffu);
    var f = select(subnormal, normal, e != 0u);
    f = select(f, 0x7f800000u | (m << 13u), e == 0x1fu);
    return sign | select(f, 0u, (h & 0x7fffu) == 0u);
}

fn bf16_to_f32(h: u32) -> u32 {
    return (h & 0xffffu) << 16u;
}

fn f32_to_f32(b: u32) -> u32 {
    return b;
}

fn f32_to_f16(b: u32) -> u32 {
    let sign = (b >> 16u) & 0x8000u;
    let a = b & 0x7fffffffu;
    // Normal: the exponent rebased, 10 of 23 mantissa bits kept, rounded to nearest even
    // (0xfff, plus the kept part's last bit, carries exactly when the rest is over half,
    // or half with an odd kept part); a carry may reach the exponent, and from the largest
    // finite value or beyond, infinity (the min).
    let normal = min((a - 0x38000000u + 0xfffu + ((a >> 13u) & 1u)) >> 13u, 0x7c00u);
    // Subnormal, in units of 2^-24 (a carry may give the smallest normal, as it should):
    // 14 to 24 bits shifted out; more leave nothing, and round to zero.
    let shift = min(126u - (a >> 23u), 31u);
    let full = 0x800000u | (a & 0x7fffffu);
    let h = full >> shift;
    let rest = full & ((1u << shift) - 1u);
    // (shift is 0 for values that are not subnormal, and not chosen: no shift by -1.)
    let half = (1u << shift) >> 1u;
    let subnormal = h + select(0u, 1u, rest > half || (rest == half && (h & 1u) == 1u));
    // Infinity, or NaN made quiet with the top of its payload.
    let special = 0x7c00u | select(0u, 0x200u | ((a & 0x7fffffu) >> 13u), a > 0x7f800000u);
    var f = select(subnormal, normal, a >= 0x38800000u);
    f = select(f, special, a >= 0x7f800000u);
    return sign | f;
}

fn f32_to_bf16(b: u32) -> u32 {
    if (b & 0x7fffffffu) > 0x7f800000u {
        return (b >> 16u) | 0x40u;
    }
    return (b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u;
}

// np.clip(np.rint(y), 0, 255); NaN gives 0 (checked on the bits: clamp leaves NaN to the
// implementation). WGSL's round() takes ties to even.
fn f32_to_u8(b: u32) -> u32 {
    let y = clamp(bitcast<f32>(b), 0.0, 255.0);
    return select(u32(round(y)), 0u, (b & 0x7fffffffu) > 0x7f800000u);
}

// y = x * scale + bias in f32, on bits.
fn affine_f32(b: u32, scale: f32, bias: f32) -> u32 {
    return bitcast<u32>(bitcast<f32>(b) * scale + bias);
}
