// Index math, native 64-bit (SHADER_INT64). Index values are (low, high) word pairs from word VALUES.
alias Idx = u64;
fn ix(a: u32) -> Idx { return u64(a); }
fn ip(k: u32) -> Idx { return u64(param(VALUES + 2u * k)) | (u64(param(VALUES + 1u + 2u * k)) << 32u); }
fn iu32(a: Idx) -> u32 { return u32(a); }
fn iadd(a: Idx, b: Idx) -> Idx { return a + b; }
fn imul(a: Idx, b: Idx) -> Idx { return a * b; }
fn idiv(a: Idx, b: Idx) -> Idx { return a / b; }
fn imod(a: Idx, b: Idx) -> Idx { return a % b; }
fn ilt(a: Idx, b: Idx) -> bool { return a < b; }
