//! One line per failure, each cause said once.

/// The error and its causes joined by ": ", leaving out a cause whose text the message
/// before it already contains (an error that prints its source and also returns it as
/// `source()` would otherwise say the same thing twice or three times).
pub fn chain(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("loading fixture: {0}")]
    struct Echoes(#[source] std::io::Error);

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = anyhow::Error::new(Echoes(io)).context("replay a.json");
        assert_eq!(chain(&e), "replay a.json: loading fixture: no such file");
    }

    #[test]
    fn a_stopped_mip_generation_says_its_cause_once_not_three_times() {
        let e = anyhow::Error::new(sgx_blitter::BlitError::Stopped {
            level: 3,
            first_stale: 3,
            source: sgx_pipe::PipeError::Winsys(sgx_winsys::WinsysError::DeviceLost),
        });
        assert_eq!(format!("{e:#}").matches("device lost").count(), 3);
        assert_eq!(
            chain(&e),
            "mip generation stopped at level 3: winsys: device lost"
        );
    }

    #[test]
    fn distinct_causes_are_all_said() {
        let e = anyhow::anyhow!("inner").context("middle").context("outer");
        assert_eq!(chain(&e), "outer: middle: inner");
    }
}
