//! Output files that are never lost: each is written to a temporary file in the target's
//! folder, synced to disk, and renamed over the target only once the caller commits. A run
//! that fails (or is interrupted) before that leaves an existing target as it was.
//!
//! A symlink is followed (the file it points to is replaced, the link stays); a target that
//! exists but is not a regular file (`/dev/null`, a pipe) is written directly.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Checks, before any work, that `path` can be an output file: its folder exists and it is
/// not itself a folder.
pub fn check_target(path: &Path) -> Result<(), String> {
    if path.as_os_str().is_empty() {
        return Err("the output path is empty".into());
    }
    if path.is_dir() {
        return Err(format!("cannot write {}: it is a folder", path.display()));
    }
    let folder = folder_of(path);
    if !folder.is_dir() {
        let why = if folder.exists() {
            "is not a folder"
        } else {
            "does not exist"
        };
        return Err(format!(
            "cannot write {}: the folder {} {why}",
            path.display(),
            folder.display()
        ));
    }
    Ok(())
}

fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A temporary file next to its target; removed on drop unless committed.
pub struct Staged {
    /// Where the temporary file goes when committed.
    target: PathBuf,
    /// Empty when writing directly to a target that is not a regular file, or once
    /// committed.
    temp: PathBuf,
    file: Option<File>,
}

impl Staged {
    pub fn new(path: &Path) -> Result<Staged, String> {
        let fail = |e: io::Error| format!("cannot write {}: {e}", path.display());
        let target = match fs::metadata(path) {
            Ok(meta) if !meta.is_file() && !meta.is_dir() => {
                let file = OpenOptions::new().write(true).open(path).map_err(fail)?;
                return Ok(Staged {
                    target: path.to_path_buf(),
                    temp: PathBuf::new(),
                    file: Some(file),
                });
            }
            // An existing file, possibly through symlinks: replace the file they lead to.
            Ok(_) => fs::canonicalize(path).map_err(fail)?,
            Err(_) => path.to_path_buf(),
        };
        let name = target
            .file_name()
            .ok_or_else(|| format!("cannot write {}: it names no file", path.display()))?;
        let folder = folder_of(&target);
        let mut attempt = 0u32;
        loop {
            let mut temp_name = std::ffi::OsString::from(".");
            temp_name.push(name);
            temp_name.push(format!(".{}-{attempt}.tmp", std::process::id()));
            let temp = folder.join(temp_name);
            match OpenOptions::new().write(true).create_new(true).open(&temp) {
                Ok(file) => {
                    return Ok(Staged {
                        target,
                        temp,
                        file: Some(file),
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
                Err(e) => return Err(fail(e)),
            }
        }
    }

    pub fn file(&mut self) -> &mut File {
        self.file
            .as_mut()
            .expect("a staged file is open until committed")
    }

    /// Syncs the data to disk and renames it over the target, keeping an existing target's
    /// permissions.
    pub fn commit(mut self) -> Result<(), String> {
        let fail = |e: io::Error| format!("cannot write {}: {e}", self.target.display());
        let file = self.file.take().expect("committed once");
        if self.temp.as_os_str().is_empty() {
            // Not a regular file: nothing to sync or rename.
            return Ok(());
        }
        if let Ok(meta) = fs::metadata(&self.target) {
            file.set_permissions(meta.permissions()).map_err(fail)?;
        }
        file.sync_all().map_err(fail)?;
        drop(file);
        fs::rename(&self.temp, &self.target).map_err(fail)?;
        // Make the rename itself durable; not every platform or file system can sync a folder.
        if let Ok(folder) = File::open(folder_of(&self.target)) {
            let _ = folder.sync_all();
        }
        self.temp = PathBuf::new();
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            self.file = None;
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// Writes `bytes` to `path` through a [`Staged`] file.
pub fn write_all(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut staged = Staged::new(path)?;
    staged
        .file()
        .write_all(bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    staged.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("wgpu-permute-output-{name}-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn uncommitted_files_leave_the_target_alone() {
        let dir = temp_dir("uncommitted");
        let target = dir.join("t.bin");
        fs::write(&target, b"old").unwrap();
        {
            let mut s = Staged::new(&target).unwrap();
            s.file().write_all(b"new").unwrap();
        }
        assert_eq!(fs::read(&target).unwrap(), b"old");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        write_all(&target, b"new").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn symlinks_are_followed() {
        let dir = temp_dir("symlink");
        let (real, link) = (dir.join("real.bin"), dir.join("link.bin"));
        fs::write(&real, b"old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_all(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 2);
        fs::remove_dir_all(dir).unwrap();
    }

    /// A pipe (like /dev/null or /dev/stdout) is written to, not replaced.
    #[test]
    fn pipes_are_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let dir = temp_dir("fifo");
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo failed");
            return;
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        write_all(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn targets_are_checked_up_front() {
        let dir = temp_dir("check");
        assert!(check_target(&dir.join("x")).is_ok());
        assert!(check_target(Path::new("relative.npy")).is_ok());
        assert!(check_target(&dir).err().unwrap().contains("is a folder"));
        let e = check_target(&dir.join("missing/x")).err().unwrap();
        assert!(e.contains("does not exist"), "{e}");
        fs::write(dir.join("file"), b"").unwrap();
        let e = check_target(&dir.join("file/x")).err().unwrap();
        assert!(e.contains("is not a folder"), "{e}");
        assert!(check_target(Path::new("")).is_err());
        fs::remove_dir_all(dir).unwrap();
    }
}
