//! The CPU-adapter family's shaders (`shaders/cpu/`): the micro kernel's register blocks
//! (`micro`, with `packed` for its packed units' masked shifts and `bounds` for a padded
//! view's rows), and the generic kernel's runs (`runs`: walked in tiles, stacked, lane-major,
//! scattering, wide stores). The GPU path's generators call these only for the variants
//! a CPU adapter's plans name.

mod bounds;
mod micro;
mod packed;
mod runs;

pub(in crate::shaders) use bounds::*;
pub(in crate::shaders) use micro::*;
pub(in crate::shaders) use runs::*;
