// Index math, 32-bit: every offset fits in u32. Index values are one word each from word VALUES.
alias Idx = u32;
fn ix(a: u32) -> Idx { return a; }
fn ip(k: u32) -> Idx { return param(VALUES + k); }
fn iu32(a: Idx) -> u32 { return a; }
fn iadd(a: Idx, b: Idx) -> Idx { return a + b; }
fn imul(a: Idx, b: Idx) -> Idx { return a * b; }
fn idiv(a: Idx, b: Idx) -> Idx { return a / b; }
fn imod(a: Idx, b: Idx) -> Idx { return a % b; }
fn ilt(a: Idx, b: Idx) -> bool { return a < b; }
