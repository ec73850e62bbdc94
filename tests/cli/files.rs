//! `.npy` files in and out: permutation errors, headers that disagree with the data, output
//! paths, a file permuted onto itself, failed writes.

use super::*;

#[test]
fn perm_errors_are_the_same_for_c_and_fortran_order_and_need_no_gpu() {
    let dir = temp_dir("perm-orders");
    let data = iota_u32(12);
    let c = dir.join("c.npy");
    let f = dir.join("f.npy");
    std::fs::write(&c, npy_file("<u4", false, "(3, 4)", &data)).unwrap();
    std::fs::write(&f, npy_file("<u4", true, "(3, 4)", &data)).unwrap();
    let out = dir.join("out.npy");
    let cases = [
        (
            "0,5",
            "permutation entry 5 is out of range for a tensor of rank 2",
        ),
        (
            "2,0",
            "permutation entry 2 is out of range for a tensor of rank 2",
        ),
        ("0,0", "permutation names dimension 0 more than once"),
        ("1,1", "permutation names dimension 1 more than once"),
    ];
    for input in [&c, &f] {
        for (perm, want) in cases {
            let args = [
                "permute".as_ref(),
                "--perm".as_ref(),
                perm.as_ref(),
                input.as_os_str(),
                out.as_os_str(),
            ];
            let (code, stderr) = run(&args, NO_GPU);
            assert_eq!(code, 1, "{input:?} --perm {perm}: {stderr}");
            assert_eq!(
                stderr,
                format!("error: {want}\n"),
                "{input:?} --perm {perm}"
            );
        }
        let args = [
            "permute".as_ref(),
            "--perm".as_ref(),
            "1,0,2".as_ref(),
            input.as_os_str(),
            out.as_os_str(),
        ];
        let (code, stderr) = run(&args, NO_GPU);
        assert_eq!(code, 1);
        assert!(
            stderr.contains("--perm has 3 entries but") && stderr.contains("has 2 dimensions"),
            "{stderr}"
        );
    }
    assert!(!out.exists());
    std::fs::remove_dir_all(dir).ok();
}

/// Header and data disagree: refused with both byte counts, without allocating what the
/// header claims and without reading what it does not declare. Run under a 1 GiB address
/// space limit, so that a reader that trusts the header fails here rather than hurting the
/// machine.
#[test]
fn npy_header_and_data_must_agree() {
    let dir = temp_dir("npy-sizes");
    let limited = |file: &Path| -> (i32, String) {
        let args = [
            "-c".as_ref(),
            "ulimit -v 1048576; exec \"$0\" \"$@\"".as_ref(),
            BIN.as_ref(),
            "permute".as_ref(),
            "--perm".as_ref(),
            "0".as_ref(),
            file.as_os_str(),
            dir.join("out.npy").into_os_string().leak() as &std::ffi::OsStr,
        ];
        let out = Command::new("sh")
            .args(args)
            .envs(NO_GPU.iter().copied())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{file:?} ({:?}): {stderr}",
            out.status
        );
        assert!(
            stderr.starts_with("error: ") && stderr.lines().count() == 1,
            "{stderr}"
        );
        (1, stderr)
    };
    // Claims 2^44 bytes, holds 16.
    let huge = dir.join("huge.npy");
    std::fs::write(&huge, npy_file("<f4", false, "(4398046511104,)", &[0; 16])).unwrap();
    let (_, e) = limited(&huge);
    assert!(e.contains("17592186044416") && e.contains(" 16"), "{e}");
    // 2^61 elements of 8 bytes: more bytes than a u64 counts.
    let overflow = dir.join("overflow.npy");
    std::fs::write(
        &overflow,
        npy_file("<f8", false, "(2305843009213693952,)", &[0; 16]),
    )
    .unwrap();
    let (_, e) = limited(&overflow);
    assert!(
        e.contains("2305843009213693952") && e.contains("too large"),
        "{e}"
    );
    // Claims 16 bytes, holds 8.
    let short = dir.join("short.npy");
    std::fs::write(&short, npy_file("<f4", false, "(4,)", &[0; 8])).unwrap();
    let (_, e) = limited(&short);
    assert!(e.contains("16") && e.contains(" 8"), "{e}");
    // Claims 4 bytes, followed by 4 GiB (a sparse file: no disk space used).
    let long = dir.join("long.npy");
    std::fs::write(&long, npy_file("<f4", false, "(1,)", &[0; 4])).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&long).unwrap();
    let len = f.metadata().unwrap().len();
    f.set_len(len + (4 << 30)).unwrap();
    drop(f);
    let (_, e) = limited(&long);
    assert!(
        e.contains(" 4 ") && e.contains(&(4u64 + (4 << 30)).to_string()),
        "{e}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_missing_output_folder_is_an_error_before_any_gpu_work() {
    let dir = temp_dir("missing-folder");
    let input = dir.join("in.npy");
    std::fs::write(&input, npy_file("<u4", false, "(3, 4)", &iota_u32(12))).unwrap();
    let missing = dir.join("no/such/folder/out.npy");
    let args = [
        "permute".as_ref(),
        "--perm".as_ref(),
        "1,0".as_ref(),
        input.as_os_str(),
        missing.as_os_str(),
    ];
    let (code, stderr) = run(&args, NO_GPU);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("no/such/folder") && stderr.contains("does not exist"),
        "{stderr}"
    );
    // A folder as the output.
    let args = [
        "permute".as_ref(),
        "--perm".as_ref(),
        "1,0".as_ref(),
        input.as_os_str(),
        dir.as_os_str(),
    ];
    let (code, stderr) = run(&args, NO_GPU);
    assert_eq!(code, 1);
    assert!(stderr.contains("is a folder"), "{stderr}");
    // The benchmark's reports, before any case runs.
    for flag in ["--json", "--plot"] {
        let args = ["bench".as_ref(), flag.as_ref(), missing.as_os_str()];
        let (code, stderr) = run(&args, NO_GPU);
        assert_eq!(code, 1);
        assert!(
            stderr.contains("no/such/folder") && stderr.contains("does not exist"),
            "{stderr}"
        );
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn permuting_a_file_onto_itself_gives_the_transpose() {
    if common::gpu().is_none() {
        return;
    }
    let dir = temp_dir("in-place");
    let a = dir.join("a.npy");
    std::fs::write(&a, npy_file("<u4", false, "(5, 7)", &iota_u32(35))).unwrap();
    for _ in 0..2 {
        let args = [
            "permute".as_ref(),
            "--check".as_ref(),
            "--perm".as_ref(),
            "1,0".as_ref(),
            a.as_os_str(),
            a.as_os_str(),
        ];
        let (code, stderr) = run(&args, &[]);
        assert_eq!(code, 0, "{stderr}");
    }
    // Twice transposed: the original again. Once more: numpy's transpose.
    let args = [
        "permute".as_ref(),
        "--perm".as_ref(),
        "1,0".as_ref(),
        a.as_os_str(),
        a.as_os_str(),
    ];
    assert_eq!(run(&args, &[]).0, 0);
    let report = python(
        "import sys, numpy as np\n\
         b = np.load(sys.argv[1] + '/a.npy')\n\
         assert b.dtype == np.uint32 and np.array_equal(b, np.arange(35, dtype=np.uint32).reshape(5, 7).T), b\n\
         print('transposed')",
        &dir,
    );
    assert!(report.contains("transposed"));
    // Nothing left behind but the file itself.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["a.npy"]);
    std::fs::remove_dir_all(dir).ok();
}

/// The output cannot be written in full (a file size limit, as on a full disk): the run
/// fails after the GPU work, and the file that was there before is left as it was.
#[test]
fn a_failed_write_leaves_the_existing_output_untouched() {
    if common::gpu().is_none() {
        return;
    }
    let dir = temp_dir("failed-write");
    let input = dir.join("in.npy");
    std::fs::write(&input, npy_file("<u4", false, "(64, 64)", &iota_u32(4096))).unwrap();
    let output = dir.join("out.npy");
    let before = b"precious: the result of an earlier run".repeat(10);
    std::fs::write(&output, &before).unwrap();
    // 4 blocks of 512 bytes at most per file; SIGXFSZ ignored, so writes fail with EFBIG.
    let out = Command::new("sh")
        .args(["-c", "trap '' XFSZ; ulimit -f 4; exec \"$0\" \"$@\""])
        .arg(BIN)
        .args(["permute", "--perm", "1,0"])
        .arg(&input)
        .arg(&output)
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("error: cannot write"), "{stderr}");
    assert_eq!(std::fs::read(&output).unwrap(), before);
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["in.npy", "out.npy"], "temporary file left behind");
    std::fs::remove_dir_all(dir).ok();
}
