// Index math, 64-bit emulated with vec2<u32>(low, high), for devices without SHADER_INT64.
// Index values are (low, high) word pairs from word VALUES. Division is shift-and-subtract, slow
// but only used for tensors whose offsets exceed 32 bits; divisors stay below 2^63.
alias Idx = vec2<u32>;
fn ix(a: u32) -> Idx { return vec2<u32>(a, 0u); }
fn ip(k: u32) -> Idx { return vec2<u32>(param(VALUES + 2u * k), param(VALUES + 1u + 2u * k)); }
fn iu32(a: Idx) -> u32 { return a.x; }
fn iadd(a: Idx, b: Idx) -> Idx {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}
fn isub(a: Idx, b: Idx) -> Idx {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}
fn ilt(a: Idx, b: Idx) -> bool { return a.y < b.y || (a.y == b.y && a.x < b.x); }
// Full 64-bit product of two u32, from 16-bit halves.
fn mul_wide(a: u32, b: u32) -> Idx {
    let p00 = (a & 0xffffu) * (b & 0xffffu);
    let p01 = (a & 0xffffu) * (b >> 16u);
    let p10 = (a >> 16u) * (b & 0xffffu);
    let p11 = (a >> 16u) * (b >> 16u);
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return vec2<u32>((p00 & 0xffffu) | (mid << 16u), p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}
fn imul(a: Idx, b: Idx) -> Idx {
    let low = mul_wide(a.x, b.x);
    return vec2<u32>(low.x, low.y + a.x * b.y + a.y * b.x);
}
struct DivMod {
    q: Idx,
    r: Idx,
}
fn idivmod(a: Idx, d: Idx) -> DivMod {
    if a.y == 0u && d.y == 0u {
        return DivMod(vec2<u32>(a.x / d.x, 0u), vec2<u32>(a.x % d.x, 0u));
    }
    var q = vec2<u32>(0u, 0u);
    var r = vec2<u32>(0u, 0u);
    for (var i = 63u; i < 64u; i--) {
        var bit = 0u;
        if i >= 32u {
            bit = (a.y >> (i - 32u)) & 1u;
        } else {
            bit = (a.x >> i) & 1u;
        }
        r = vec2<u32>((r.x << 1u) | bit, (r.y << 1u) | (r.x >> 31u));
        if !ilt(r, d) {
            r = isub(r, d);
            if i >= 32u {
                q.y |= 1u << (i - 32u);
            } else {
                q.x |= 1u << i;
            }
        }
    }
    return DivMod(q, r);
}
fn idiv(a: Idx, b: Idx) -> Idx { return idivmod(a, b).q; }
fn imod(a: Idx, b: Idx) -> Idx { return idivmod(a, b).r; }
