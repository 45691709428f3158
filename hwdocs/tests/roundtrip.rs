//! Every generated word survives pack then unpack, over its valid ranges; out-of-range values
//! are refused by pack and reserved bits by unpack.

use proptest::prelude::*;
use sgx_hwdocs::{pbe, texture, usse, DecodeError, PackError, WORDS};

/// A bit source from a seed (splitmix64), so proptest shrinks over one number.
fn bits_from(seed: u64) -> impl FnMut(u32) -> u64 {
    let mut s = seed;
    move |n: u32| {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        if n >= 64 {
            z
        } else {
            z & ((1u64 << n) - 1)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn every_word_round_trips(seed in any::<u64>()) {
        let mut bits = bits_from(seed);
        for w in WORDS {
            if let Err(e) = (w.roundtrip)(&mut bits) {
                prop_assert!(false, "{}.{}: {}", w.block, w.name, e);
            }
        }
    }
}

#[test]
fn there_are_words_to_check() {
    // A round-trip test over nothing would pass vacuously.
    assert!(WORDS.len() >= 20, "only {} words", WORDS.len());
    for name in [
        "PbeState", "TexState", "UsseAlu", "UsseTex", "CtrlPrim", "IspState",
    ] {
        assert!(WORDS.iter().any(|w| w.name == name), "{name} missing");
    }
}

#[test]
fn pack_refuses_out_of_range_values() {
    let p = pbe::PbeState {
        clip_xmax: 4096,
        ..Default::default()
    };
    assert!(matches!(
        p.pack(),
        Err(PackError::OutOfRange {
            field: "clip_xmax",
            max: 4095,
            ..
        })
    ));
    let p = pbe::PbeState {
        extent_w_tl: 129,
        ..Default::default()
    };
    assert!(matches!(
        p.pack(),
        Err(PackError::OutOfRange {
            field: "extent_w_tl",
            max: 128,
            ..
        })
    ));
    let t = texture::TexState {
        lod_bias: 128,
        ..Default::default()
    };
    assert!(matches!(
        t.pack(),
        Err(PackError::OutOfRange {
            field: "lod_bias",
            min: -128,
            max: 127,
            ..
        })
    ));
}

#[test]
fn pack_refuses_misaligned_addresses() {
    let t = texture::TexState {
        base_addr: 0x1008,
        ..Default::default()
    };
    assert_eq!(
        t.pack(),
        Err(PackError::Misaligned {
            word: "TexState",
            field: "base_addr",
            value: 0x1008,
            align: 16
        })
    );
    // 4-byte granularity for PBE targets: a packed mip tail's 1x1 level at 21840 is fine.
    let p = pbe::PbeState {
        base_addr: 0x10000 + 21840,
        ..Default::default()
    };
    let words = p.pack().expect("a 4-byte aligned target packs");
    assert_eq!(
        pbe::PbeState::unpack(&words).unwrap().base_addr,
        0x10000 + 21840
    );
}

#[test]
fn unpack_refuses_reserved_bits_and_unknown_values() {
    let flow = usse::UsseFlow {
        opcode: usse::Opcode::BR,
        target: 7,
        ..Default::default()
    };
    let ok = flow.pack().unwrap();
    assert_eq!(usse::UsseFlow::unpack(&ok).unwrap(), flow);
    let bad = [ok[0] | (1 << 20), ok[1]];
    assert_eq!(
        usse::UsseFlow::unpack(&bad),
        Err(DecodeError::Reserved {
            word: "UsseFlow",
            dw: 0,
            bits: 1 << 20
        })
    );
    // Pred value 7 has no meaning.
    let bad = [ok[0] | (7 << 7), ok[1]];
    assert!(matches!(
        usse::UsseFlow::unpack(&bad),
        Err(DecodeError::UnknownValue {
            field: "pred",
            value: 7,
            ..
        })
    ));
    // Opcode 127 is not defined.
    assert!(matches!(
        usse::UsseFlow::unpack(&[127, 0]),
        Err(DecodeError::UnknownValue {
            field: "opcode",
            ..
        })
    ));
    assert!(matches!(
        usse::UsseFlow::unpack(&[0]),
        Err(DecodeError::Short {
            need: 2,
            got: 1,
            ..
        })
    ));
}

#[test]
fn observed_hardware_words_decode_as_documented() {
    // reMESA: 0x410 = 0x00020002 for a 32x32 target; last PBE word 0x0001F01F.
    let te = sgx_hwdocs::regs::TeScreen::unpack(&[0x0002_0002]).unwrap();
    assert_eq!((te.w_tl, te.h_tl), (2, 2));
    let p = pbe::PbeState {
        clip_xmax: 31,
        clip_ymax: 31,
        ..Default::default()
    }
    .pack()
    .unwrap();
    assert_eq!(p[4], 0x0001_F01F);
    assert_eq!(sgx_hwdocs::regs::EVENT_STATUS, 0x12C);
    assert_eq!(sgx_hwdocs::regs::ISP_START_RENDER, 0x428);
}

#[test]
fn enums_serialize_by_name() {
    let j = serde_json::to_string(&usse::Opcode::FMAD).unwrap();
    assert_eq!(j, "\"FMAD\"");
    let back: usse::Opcode = serde_json::from_str(&j).unwrap();
    assert_eq!(back, usse::Opcode::FMAD);
    assert!(serde_json::from_str::<usse::Opcode>("\"FROB\"").is_err());
    let f: sgx_hwdocs::Format = serde_json::from_str("\"B5G6R5_UNORM\"").unwrap();
    assert_eq!(f, sgx_hwdocs::Format::B5G6R5_UNORM);
}

/// The primitive record agrees with the limits that size parameter memory: its header is
/// PB_PRIM_RECORD_B, and its varying count reaches MAX_VARYINGS and no further.
#[test]
fn the_primitive_record_matches_the_parameter_memory_limits() {
    use sgx_hwdocs::limits::{MAX_VARYINGS, PB_PRIM_RECORD_B};
    use sgx_hwdocs::render::{PrimKind, PrimRecord};
    assert_eq!((PrimRecord::DWORDS * 4) as u64, PB_PRIM_RECORD_B);
    let full = PrimRecord {
        state_addr: 0xdead_beef,
        var_count: MAX_VARYINGS as u32,
        back_facing: true,
        kind: PrimKind::LINE,
        line_stipple: true,
        index: 7,
        line_stipple_start: 0xffff_fffe,
    };
    let w = full.pack().unwrap();
    assert_eq!(PrimRecord::unpack(&w).unwrap(), full);
    let over = PrimRecord {
        var_count: MAX_VARYINGS as u32 + 1,
        ..full
    };
    assert!(matches!(
        over.pack(),
        Err(PackError::OutOfRange {
            field: "var_count",
            ..
        })
    ));
}
