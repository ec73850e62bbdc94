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
    if e == 0x1fu {
        return sign | 0x7f800000u | (m << 13u);
    }
    if e != 0u {
        return sign | ((e + 112u) << 23u) | (m << 13u);
    }
    if m == 0u {
        return sign;
    }
    // A subnormal, m * 2^-24: normalised, it is a normal f32.
    let top = 31u - countLeadingZeros(m);
    return sign | ((top + 103u) << 23u) | ((m << (23u - top)) & 0x7fffffu);
}

fn bf16_to_f32(h: u32) -> u32 {
    return (h & 0xffffu) << 16u;
}

fn f32_to_f32(b: u32) -> u32 {
    return b;
}

fn f32_to_f16(b: u32) -> u32 {
    let sign = (b >> 16u) & 0x8000u;
    let e = (b >> 23u) & 0xffu;
    let m = b & 0x7fffffu;
    if e == 0xffu {
        // Infinity, or NaN made quiet with the top of its payload.
        return sign | 0x7c00u | select(0u, 0x200u | (m >> 13u), m != 0u);
    }
    let exp = i32(e) - 127;
    if exp > 15 {
        return sign | 0x7c00u;
    }
    if exp >= -14 {
        // Normal: keep 10 of 23 mantissa bits; a carry may reach the exponent, and from
        // the largest finite value, infinity.
        let h = (u32(exp + 15) << 10u) | (m >> 13u);
        let rest = m & 0x1fffu;
        return sign | (h + select(0u, 1u, rest > 0x1000u || (rest == 0x1000u && (h & 1u) == 1u)));
    }
    if exp < -25 {
        return sign;
    }
    // Subnormal, in units of 2^-24 (a carry may give the smallest normal, as it should).
    let full = 0x800000u | m;
    let shift = u32(-1 - exp);
    let h = full >> shift;
    let rest = full & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    return sign | (h + select(0u, 1u, rest > half || (rest == half && (h & 1u) == 1u)));
}

fn f32_to_bf16(b: u32) -> u32 {
    if (b & 0x7fffffffu) > 0x7f800000u {
        return (b >> 16u) | 0x40u;
    }
    return (b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u;
}

// np.clip(np.rint(y), 0, 255); NaN gives 0. WGSL's round() takes ties to even.
fn f32_to_u8(b: u32) -> u32 {
    if (b & 0x7fffffffu) > 0x7f800000u {
        return 0u;
    }
    let y = bitcast<f32>(b);
    if y <= 0.0 {
        return 0u;
    }
    if y >= 255.0 {
        return 255u;
    }
    return u32(round(y));
}

// y = x * scale + bias in f32, on bits.
fn affine_f32(b: u32, scale: f32, bias: f32) -> u32 {
    return bitcast<u32>(bitcast<f32>(b) * scale + bias);
}
