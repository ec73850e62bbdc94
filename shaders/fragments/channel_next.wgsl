// The affine's channel cursor (channel, place within the channel's step) of the next
// element, from the step and the channel count at words WORDS and WORDS + 1: the place
// moves on, and at the step the channel does, wrapping at the count. No division: a CPU
// divides lane by lane. Shared by the generic kernel's conversions (over output elements)
// and the micro kernel's blocks and the tiled kernel's strips (over their rows or columns).
fn channel_next(at: vec2<u32>) -> vec2<u32> {
    let place = at.y + 1u;
    let next = place == param({{WORDS}});
    let c = at.x + select(0u, 1u, next);
    return vec2<u32>(select(c, 0u, c == param({{WORDS}} + 1u)), select(place, 0u, next));
}
