//! `sgx535 hwdocs`: the blocks of hwdocs and how well each is known.

use crate::out::outln;
use sgx_hwdocs::{blocks, evidence_summary, Evidence, ITEMS};

#[derive(clap::Args)]
pub struct Args {
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
    /// List every item of this evidence level (CONFIRMED, INFERRED, MODEL) with its source.
    #[arg(long, value_name = "LEVEL")]
    list: Option<String>,
}

pub fn run(a: &Args) -> anyhow::Result<()> {
    let filter = match a.list.as_deref().map(str::to_ascii_uppercase) {
        None => None,
        Some(l) => Some(
            [Evidence::Confirmed, Evidence::Inferred, Evidence::Model]
                .into_iter()
                .find(|e| e.name() == l)
                .ok_or_else(|| {
                    anyhow::anyhow!("--list takes CONFIRMED, INFERRED or MODEL, not {l}")
                })?,
        ),
    };
    if a.json {
        let mut out = serde_json::Map::new();
        let mut bl = Vec::new();
        for b in blocks() {
            let s = evidence_summary(Some(b));
            bl.push(serde_json::json!({"block": b, "confirmed": s.confirmed, "inferred": s.inferred, "model": s.model}));
        }
        let t = evidence_summary(None);
        out.insert("blocks".into(), bl.into());
        out.insert(
            "total".into(),
            serde_json::json!({"items": ITEMS.len(), "confirmed": t.confirmed, "inferred": t.inferred, "model": t.model}),
        );
        if let Some(f) = filter {
            let items: Vec<_> = ITEMS
                .iter()
                .filter(|i| i.evidence == f)
                .map(|i| serde_json::json!({"path": i.path, "kind": i.kind, "source": i.source}))
                .collect();
            out.insert("items".into(), items.into());
        }
        outln!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    if let Some(f) = filter {
        for i in ITEMS.iter().filter(|i| i.evidence == f) {
            outln!("{:<48} {:<9} {}", i.path, i.kind, i.source);
        }
        return Ok(());
    }
    outln!(
        "{:<12} {:>9} {:>9} {:>7} {:>7}",
        "block",
        "CONFIRMED",
        "INFERRED",
        "MODEL",
        "items"
    );
    for b in blocks() {
        let s = evidence_summary(Some(b));
        outln!(
            "{:<12} {:>9} {:>9} {:>7} {:>7}",
            b,
            s.confirmed,
            s.inferred,
            s.model,
            s.confirmed + s.inferred + s.model
        );
    }
    let t = evidence_summary(None);
    outln!(
        "{:<12} {:>9} {:>9} {:>7} {:>7}",
        "total",
        t.confirmed,
        t.inferred,
        t.model,
        ITEMS.len()
    );
    let missing = ITEMS.iter().filter(|i| i.source.trim().is_empty()).count();
    outln!("items without evidence or source: {missing}");
    Ok(())
}
