//! No item lacks evidence; the summary counts every level; hardware facts keep their sources.

use sgx_hwdocs::{evidence_summary, Evidence, ITEMS};

#[test]
fn every_item_has_a_source_and_model_items_say_why() {
    assert!(ITEMS.len() > 300);
    for it in ITEMS {
        assert!(!it.source.trim().is_empty(), "{} has no source", it.path);
        if it.evidence == Evidence::Model {
            assert!(
                it.source.starts_with("model:"),
                "{}: {}",
                it.path,
                it.source
            );
        }
    }
}

#[test]
fn summary_counts_all_three_levels() {
    let s = evidence_summary(None);
    assert_eq!(s.confirmed + s.inferred + s.model, ITEMS.len());
    assert!(s.confirmed > 0 && s.inferred > 0 && s.model > 0);
}

#[test]
fn public_register_offsets_are_confirmed() {
    // The offsets the public sources give (EMGD psb_regs.h, gma500 psb_reg.h), written here
    // independently of the data, against the generated constants.
    use sgx_hwdocs::regs;
    for (path, public_off, generated) in [
        ("regs.EVENT_STATUS", 0x12C, regs::EVENT_STATUS),
        ("regs.VDM_START", 0x200, regs::VDM_START),
        ("regs.ISP_START_RENDER", 0x428, regs::ISP_START_RENDER),
        ("regs.BIF_FAULT", 0xC08, regs::BIF_FAULT),
        ("regs.USE_CODE_BASE", 0xA0C, regs::USE_CODE_BASE),
    ] {
        let it = ITEMS.iter().find(|i| i.path == path).unwrap();
        assert_eq!(it.evidence, Evidence::Confirmed, "{path}");
        assert_eq!(generated, public_off, "{path}");
    }
    // Registers whose offsets are ours sit in the model range and say so.
    let it = ITEMS.iter().find(|i| i.path == "regs.PBE_STATE").unwrap();
    assert_eq!(it.evidence, Evidence::Model);
    assert_eq!(sgx_hwdocs::regs::PBE_STATE, 0xF10);
}

#[test]
fn field_masks_are_the_public_bits() {
    // EMGD psb_regs.h's EVENT_STATUS / BIF bits, written here independently of the data.
    use sgx_hwdocs::regs::{BifIntStat, EventStatus, EventStatus2};
    assert_eq!(EventStatus::TA_FINISHED_MASK, 1 << 13);
    assert_eq!(EventStatus::PIXELBE_END_RENDER_MASK, 1 << 18);
    assert_eq!(EventStatus::TWOD_COMPLETE_MASK, 1 << 27);
    assert_eq!(EventStatus::DPM_3D_MEM_FREE_MASK, 1 << 0);
    assert_eq!(EventStatus::DPM_OOM_GLOBAL_MASK, 1 << 2);
    assert_eq!(EventStatus2::BIF_REQUESTER_FAULT_MASK, 1 << 4);
    assert_eq!(BifIntStat::PAGE_FAULT_NOT_RW_MASK, 1 << 14);
    // A multi-bit field's mask covers exactly its bits.
    use sgx_hwdocs::regs::CoreRevision;
    assert_eq!(CoreRevision::MINOR_MASK, 0x0000_ff00);
}
