//! Request validation and simplification: size-1 dims dropped, dims that move together
//! merged, and the movement size chosen. Pure functions with their postconditions written
//! down (tested in `src/plan/tests/`).

/// Simplifies a permutation problem without changing its meaning.
///
/// Postconditions (for a tensor with at least one element), tested in `src/plan/tests/`:
/// - the product of the dims is unchanged, and the result has rank >= 1;
/// - no dim has extent 1, unless the whole tensor is one element (then `[1]`, `[0]`);
/// - no two adjacent output dims come from adjacent input dims (`perm[i+1] != perm[i] + 1`),
///   so nothing more can be merged;
/// - every input offset is sent to the same output offset as by the original problem.
pub fn simplify(shape: &[u64], perm: &[usize]) -> (Vec<u64>, Vec<usize>) {
    // Drop size-1 dims, renumbering the ones that remain.
    let mut new_index = vec![usize::MAX; shape.len()];
    let mut kept = Vec::new();
    for (d, &extent) in shape.iter().enumerate() {
        if extent != 1 {
            new_index[d] = kept.len();
            kept.push(extent);
        }
    }
    let perm: Vec<usize> = perm
        .iter()
        .filter(|&&p| shape[p] != 1)
        .map(|&p| new_index[p])
        .collect();
    if kept.is_empty() {
        return (vec![1], vec![0]);
    }

    // Group runs of output dims that come from consecutive input dims.
    let mut groups: Vec<(usize, usize)> = Vec::new(); // (first input dim, last input dim)
    for &p in &perm {
        match groups.last_mut() {
            Some(last) if last.1 + 1 == p => last.1 = p,
            _ => groups.push((p, p)),
        }
    }
    // Each group becomes one input dim; number them in input order.
    let mut by_input: Vec<usize> = (0..groups.len()).collect();
    by_input.sort_by_key(|&g| groups[g].0);
    let dims: Vec<u64> = by_input
        .iter()
        .map(|&g| kept[groups[g].0..=groups[g].1].iter().product())
        .collect();
    let mut rank_of_group = vec![0; groups.len()];
    for (new_dim, &g) in by_input.iter().enumerate() {
        rank_of_group[g] = new_dim;
    }
    (dims, rank_of_group)
}

/// Movement size: the widest of 16, 8, 4, 2, 1 bytes that divides the bytes moved together
/// (the whole innermost run when the innermost dim stays innermost, else one element) and
/// both offsets. Errs towards narrow units only when alignment forces it.
pub fn movement_unit(run_bytes: u64, src_offset: u64, dst_offset: u64) -> u32 {
    [16u32, 8, 4, 2, 1]
        .into_iter()
        .find(|&u| {
            let u = u as u64;
            run_bytes.is_multiple_of(u)
                && src_offset.is_multiple_of(u)
                && dst_offset.is_multiple_of(u)
        })
        .unwrap_or(1)
}

/// Elements per 32-bit storage word for a movement size: 8/16-bit data is packed.
pub fn pack_of(unit: u32) -> u32 {
    if unit < 4 { 4 / unit } else { 1 }
}

/// The simplified problem in movement units: `(dims, perm, unit)`. Simplifies, picks the
/// movement size from the innermost run and the offsets, re-expresses the dims in units and
/// simplifies again (a unit narrower than an element adds an innermost dim that stays).
pub fn in_units(
    shape: &[usize],
    perm: &[usize],
    elem_size: usize,
    src_offset: u64,
    dst_offset: u64,
) -> (Vec<u64>, Vec<usize>, u32) {
    let shape64: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let (mut dims, mut dims_perm) = simplify(&shape64, perm);
    let last = dims.len() - 1;
    let elem = elem_size as u64;
    let inner_stays = dims_perm[last] == last;
    let run_bytes = if inner_stays { dims[last] * elem } else { elem };
    let unit = movement_unit(run_bytes, src_offset, dst_offset);
    if inner_stays {
        dims[last] = run_bytes / unit as u64;
    } else if elem > unit as u64 {
        dims.push(elem / unit as u64);
        dims_perm.push(dims.len() - 1);
    }
    let (dims, dims_perm) = simplify(&dims, &dims_perm);
    (dims, dims_perm, unit)
}
