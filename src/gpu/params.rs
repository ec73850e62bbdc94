//! The kernels' parameter blocks, uploaded once per distinct content: recording a plan
//! again binds the uniform buffer it had, instead of making and writing a new one (about a
//! third of the host's time to record a small permute on lavapipe).

use std::collections::HashMap;
use std::sync::Mutex;

/// Distinct parameter contents kept; past it the cache starts over (a buffer still bound in
/// recorded work lives on with it).
const MAX_KEPT: usize = 1024;

#[derive(Default)]
pub(super) struct ParamBuffers {
    cache: Mutex<HashMap<Vec<u8>, wgpu::Buffer>>,
}

impl ParamBuffers {
    /// The uniform buffer holding `bytes`, if one was kept.
    pub fn get(&self, bytes: &[u8]) -> Option<wgpu::Buffer> {
        self.lock().get(bytes).cloned()
    }

    /// Keeps `buffer`, made and written without error, as the one holding `bytes`.
    pub fn keep(&self, bytes: &[u8], buffer: wgpu::Buffer) {
        let mut cache = self.lock();
        if cache.len() >= MAX_KEPT {
            cache.clear();
        }
        cache.insert(bytes.to_vec(), buffer);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Vec<u8>, wgpu::Buffer>> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}
