//! `demo shadow` draws the box's shadow where a ray caster says it falls: the frame rendered
//! with the shadow map is compared with the same frame whose shadow lookups are forced lit
//! (the hidden `--unshadowed` flag), and the pixels that got darker are checked against the
//! scene's geometry, cast on the CPU.

#[allow(dead_code)]
#[path = "../src/cmd_demo/shadow_scene.rs"]
mod shadow_scene;

use std::path::Path;
use std::process::Command;

use shadow_scene::{seen, Seen, SIZE_PX};

fn render(dir: &Path, extra: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_sgx535"))
        .args(["demo", "shadow", "--frames", "1", "--out"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    // Two passes: the light's depth pass and the camera's.
    assert!(text.contains("shadow-000.png: 2 jobs"), "{text}");
    let file = std::fs::File::open(dir.join("shadow-000.png")).unwrap();
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap();
    let mut rgba = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut rgba).unwrap();
    assert_eq!((info.width, info.height), (SIZE_PX, SIZE_PX));
    assert_eq!(info.color_type, png::ColorType::Rgba);
    rgba.truncate(info.buffer_size());
    rgba
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("sgx535-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_shadow_darkens_exactly_the_floor_the_box_hides_from_the_light() {
    let (d1, d2) = (temp_dir("shadowed"), temp_dir("lit"));
    let shadowed = render(&d1, &[]);
    let lit = render(&d2, &["--unshadowed"]);
    let _ = std::fs::remove_dir_all(&d1);
    let _ = std::fs::remove_dir_all(&d2);

    let n = SIZE_PX as i64;
    let kind: Vec<Seen> = (0..SIZE_PX * SIZE_PX)
        .map(|i| seen(i % SIZE_PX, i / SIZE_PX, SIZE_PX, 0))
        .collect();
    let at = |x: i64, y: i64| kind[(y * n + x) as usize];
    // Within `r` pixels of a pixel that `pick`s (rasterisation, the 2x2 PCF and the depth
    // bias move edges by a pixel or two).
    let near = |x: i64, y: i64, r: i64, pick: &dyn Fn(Seen) -> bool| {
        (y - r..=y + r).any(|v| {
            (x - r..=x + r).any(|u| (0..n).contains(&u) && (0..n).contains(&v) && pick(at(u, v)))
        })
    };
    let in_shadow = |s: Seen| s == Seen::Floor { shadowed: true };

    let (mut darkened, mut partial, mut expected, mut missed) = (0, 0, 0, Vec::new());
    for y in 0..n {
        for x in 0..n {
            let i = ((y * n + x) * 4) as usize;
            let (s, l) = (&shadowed[i..i + 3], &lit[i..i + 3]);
            assert!(
                s.iter().zip(l).all(|(s, l)| s <= l),
                "({x},{y}) brighter in shadow: {s:?} vs {l:?}"
            );
            let drop: i32 = l.iter().zip(s).map(|(l, s)| i32::from(*l - *s)).sum();
            if drop > 24 {
                darkened += 1;
                if drop < 120 {
                    partial += 1;
                }
                assert!(
                    near(x, y, 2, &in_shadow),
                    "({x},{y}) darkened by {drop} but the box does not hide it from the light ({:?})",
                    at(x, y)
                );
            }
            // Well inside the cast shadow: the diffuse term is gone, a large drop.
            if in_shadow(at(x, y)) && !near(x, y, 2, &|k| !in_shadow(k)) {
                expected += 1;
                if drop < 150 {
                    missed.push((x, y, drop));
                }
            }
        }
    }
    assert!(expected > 1_000, "the shadow covers {expected} pixels");
    // LINEAR filtering of the compare results (PCF) grades the edge: some pixels lose only
    // part of their diffuse light, which one compare per pixel could not do.
    assert!(partial > 20, "{partial} partly shadowed pixels");
    assert!(
        darkened >= expected,
        "{darkened} darkened, {expected} expected"
    );
    assert!(
        missed.is_empty(),
        "{} lit in the shadow: {:?}",
        missed.len(),
        &missed[..missed.len().min(10)]
    );
}

#[test]
fn only_demo_shadow_takes_the_unshadowed_flag() {
    let out = Command::new(env!("CARGO_BIN_EXE_sgx535"))
        .args(["demo", "cube", "--unshadowed", "--out"])
        .arg(std::env::temp_dir())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--unshadowed applies to demo shadow only"),
        "{err}"
    );
}
