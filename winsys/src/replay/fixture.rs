//! Host fixtures: JSON files that say what a kernel or GPU does wrong, for the replay backend.
//! The format is documented in fixtures/README.md.

use std::path::Path;

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::{Errno, Result, WinsysError};
use crate::faults::{Faults, JobFault};
use crate::job_result::Unit;
use crate::replay::expect::{Expects, Setup};

/// Errors a fixture may make a submission fail with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RefuseErrno {
    /// Invalid argument.
    #[serde(rename = "EINVAL")]
    Inval,
    /// No space (ring or parameter memory full).
    #[serde(rename = "ENOSPC")]
    NoSpc,
    /// Busy (try again).
    #[serde(rename = "EBUSY")]
    Busy,
}

impl RefuseErrno {
    /// The error number.
    pub fn errno(self) -> Errno {
        match self {
            RefuseErrno::Inval => Errno::EINVAL,
            RefuseErrno::NoSpc => Errno::ENOSPC,
            RefuseErrno::Busy => Errno::EBUSY,
        }
    }
}

/// One injected failure. Indices are 0-based: `submission` counts submissions that reach the
/// kernel (refused ones too), `job` counts accepted jobs in submission order, `allocation`
/// counts buffer allocations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case", deny_unknown_fields)]
pub enum Inject {
    /// Refuse a submission with an error number; nothing is queued.
    RefuseSubmission {
        /// Submission index.
        #[serde(deserialize_with = "de_index")]
        submission: u64,
        /// EINVAL, ENOSPC or EBUSY.
        errno: RefuseErrno,
    },
    /// Fail a buffer allocation with ENOMEM.
    FailAllocation {
        /// Allocation index.
        #[serde(deserialize_with = "de_index")]
        allocation: u64,
    },
    /// The job faults in the GPU MMU: its fence ends with a fault of `unit` at `addr`.
    FaultJob {
        /// Job index.
        #[serde(deserialize_with = "de_index")]
        job: u64,
        /// Requester, e.g. "pbe".
        unit: Unit,
        /// Faulting GPU address: a number or a "0x..." string.
        #[serde(deserialize_with = "de_addr", serialize_with = "ser_addr")]
        addr: u32,
    },
    /// The job hangs: its fence never signals, and the GPU runs nothing after it.
    HangJob {
        /// Job index.
        #[serde(deserialize_with = "de_index")]
        job: u64,
    },
    /// The job fails with a reason.
    FailJob {
        /// Job index.
        #[serde(deserialize_with = "de_index")]
        job: u64,
        /// Text carried by the fence error.
        reason: String,
    },
    /// The device is lost when the job would run: its fence and every pending one end with
    /// DeviceLost, and every later call fails with DeviceLost.
    LoseDevice {
        /// Job index.
        #[serde(deserialize_with = "de_index")]
        job: u64,
    },
    /// The job runs out of parameter memory (the DPM's out-of-memory event): its fence ends
    /// with `JobError::OutOfMemory` and it renders nothing.
    JobOutOfMemory {
        /// Job index.
        #[serde(deserialize_with = "de_index")]
        job: u64,
    },
}

impl Inject {
    /// The job index this injection applies to, for job injections.
    pub fn job(&self) -> Option<u64> {
        match self {
            Inject::FaultJob { job, .. }
            | Inject::HangJob { job }
            | Inject::FailJob { job, .. }
            | Inject::LoseDevice { job }
            | Inject::JobOutOfMemory { job } => Some(*job),
            _ => None,
        }
    }
}

/// A host fixture.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    /// What the fixture stands for.
    #[serde(default)]
    pub description: String,
    /// The failures, in any order; two for the same index are an error.
    #[serde(deserialize_with = "de_injects")]
    pub inject: Vec<Inject>,
    /// How `sgx535 replay`'s scenarios are set up.
    #[serde(default)]
    pub setup: Setup,
    /// What each scenario must end with, checked by `sgx535 replay`.
    #[serde(default)]
    pub expect: Expects,
}

/// Indices past this are typing mistakes: no scenario runs a million jobs.
pub const MAX_INDEX: u64 = 1 << 20;

fn de_index<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<u64, D::Error> {
    let n = u64::deserialize(d)?;
    if n >= MAX_INDEX {
        return Err(serde::de::Error::custom(format!(
            "index {n} out of range (0..{MAX_INDEX})"
        )));
    }
    Ok(n)
}

/// Two injections for the same job, submission or allocation contradict each other. Checked
/// while parsing, so the error carries the line of the list.
fn de_injects<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Vec<Inject>, D::Error> {
    let list = Vec::<Inject>::deserialize(d)?;
    let mut seen = std::collections::HashMap::new();
    for (n, i) in list.iter().enumerate() {
        let key = match i {
            Inject::RefuseSubmission { submission, .. } => ("submission", *submission),
            Inject::FailAllocation { allocation } => ("allocation", *allocation),
            other => ("job", other.job().unwrap_or(0)),
        };
        if let Some(first) = seen.insert(key, n) {
            return Err(serde::de::Error::custom(format!(
                "inject[{first}] and inject[{n}] both target {} {}",
                key.0, key.1
            )));
        }
    }
    Ok(list)
}

fn ser_addr<S: serde::Serializer>(a: &u32, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{a:#010x}"))
}

fn de_addr<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<u32, D::Error> {
    use serde::de::Error;
    // Through a Value, so a wrong type names itself and what is allowed (an untagged enum
    // would only say that no variant matched).
    let allowed = "a number from 0 to 4294967295 or a \"0x...\" string";
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::Number(n) => n
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| D::Error::custom(format!("address {n}: an address is {allowed}"))),
        serde_json::Value::String(s) => {
            let hex = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"));
            match hex {
                Some(h) => u32::from_str_radix(h, 16),
                None => s.parse(),
            }
            .map_err(|_| D::Error::custom(format!("address {s:?}: an address is {allowed}")))
        }
        other => Err(D::Error::custom(format!(
            "address {other}: an address is {allowed}"
        ))),
    }
}

/// serde_json's message without its trailing " at line L column C" (the caller prints those).
fn strip_position(msg: &str) -> &str {
    msg.rfind(" at line ").map_or(msg, |i| &msg[..i])
}

impl Fixture {
    /// Parses fixture JSON; `path` names it in errors, which give the line, column and field.
    pub fn from_json(text: &str, path: &str) -> Result<Fixture> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let f: Fixture = serde_path_to_error::deserialize(de).map_err(|e| {
            let field = e.path().to_string();
            let inner = e.into_inner();
            WinsysError::Fixture {
                path: path.into(),
                reason: format!(
                    "line {}, column {}, field `{field}`: {}",
                    inner.line(),
                    inner.column(),
                    strip_position(&inner.to_string())
                ),
            }
        })?;
        if !f.setup.mipgen_size_px.is_power_of_two()
            || !(2..=2048).contains(&f.setup.mipgen_size_px)
        {
            return Err(WinsysError::Fixture {
                path: path.into(),
                reason: format!(
                    "field `setup.mipgen_size_px`: {} is not a power of two in 2..=2048",
                    f.setup.mipgen_size_px
                ),
            });
        }
        Ok(f)
    }

    /// Reads and parses a fixture file.
    pub fn load(path: &Path) -> Result<Fixture> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| WinsysError::Fixture {
            path: name.clone(),
            reason: e.to_string(),
        })?;
        Fixture::from_json(&text, &name)
    }

    /// The refusal of submission `n`, if any.
    pub fn refusal(&self, n: u64) -> Option<Errno> {
        self.inject.iter().find_map(|i| match i {
            Inject::RefuseSubmission { submission, errno } if *submission == n => {
                Some(errno.errno())
            }
            _ => None,
        })
    }

    /// True when allocation `n` fails.
    pub fn fails_allocation(&self, n: u64) -> bool {
        self.inject
            .iter()
            .any(|i| matches!(i, Inject::FailAllocation { allocation } if *allocation == n))
    }

    /// The injection for job `n`, if any.
    pub fn for_job(&self, n: u64) -> Option<&Inject> {
        self.inject.iter().find(|i| i.job() == Some(n))
    }
}

/// The fixture format is the replay backend's: the device sees its failures as a plan.
impl Faults for Fixture {
    fn refusal(&self, submission: u64) -> Option<Errno> {
        Fixture::refusal(self, submission)
    }

    fn fails_allocation(&self, allocation: u64) -> bool {
        Fixture::fails_allocation(self, allocation)
    }

    fn job_fault(&self, job: u64) -> Option<JobFault> {
        Some(match self.for_job(job)? {
            Inject::FaultJob { unit, addr, .. } => JobFault::Fault {
                unit: *unit,
                addr: *addr,
            },
            Inject::HangJob { .. } => JobFault::Hang,
            Inject::FailJob { reason, .. } => JobFault::Fail {
                reason: reason.clone(),
            },
            Inject::LoseDevice { .. } => JobFault::LoseDevice,
            Inject::JobOutOfMemory { .. } => JobFault::OutOfMemory,
            Inject::RefuseSubmission { .. } | Inject::FailAllocation { .. } => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_kind() {
        let f = Fixture::from_json(
            r#"{"description": "all", "inject": [
                {"what": "refuse_submission", "submission": 2, "errno": "ENOSPC"},
                {"what": "fail_allocation", "allocation": 0},
                {"what": "fault_job", "job": 1, "unit": "pbe", "addr": "0x30001000"},
                {"what": "fault_job", "job": 4, "unit": "twod", "addr": 4096},
                {"what": "hang_job", "job": 3},
                {"what": "fail_job", "job": 5, "reason": "why"},
                {"what": "lose_device", "job": 6},
                {"what": "job_out_of_memory", "job": 7}
            ]}"#,
            "t",
        )
        .unwrap();
        assert_eq!(f.refusal(2), Some(Errno::ENOSPC));
        assert_eq!(f.refusal(1), None);
        assert!(f.fails_allocation(0) && !f.fails_allocation(1));
        assert_eq!(
            f.for_job(1),
            Some(&Inject::FaultJob {
                job: 1,
                unit: Unit::Pbe,
                addr: 0x3000_1000
            })
        );
        assert_eq!(
            f.for_job(4),
            Some(&Inject::FaultJob {
                job: 4,
                unit: Unit::TwoD,
                addr: 4096
            })
        );
        assert_eq!(f.for_job(6), Some(&Inject::LoseDevice { job: 6 }));
        assert_eq!(f.for_job(7), Some(&Inject::JobOutOfMemory { job: 7 }));
        assert_eq!(f.for_job(2), None);
    }

    #[test]
    fn the_device_sees_a_fixture_as_a_fault_plan() {
        let f = Fixture::from_json(
            r#"{"inject": [
                {"what": "refuse_submission", "submission": 0, "errno": "EBUSY"},
                {"what": "fail_allocation", "allocation": 3},
                {"what": "fault_job", "job": 1, "unit": "pbe", "addr": 8192},
                {"what": "hang_job", "job": 2},
                {"what": "fail_job", "job": 3, "reason": "why"},
                {"what": "lose_device", "job": 4},
                {"what": "job_out_of_memory", "job": 6}
            ]}"#,
            "t",
        )
        .unwrap();
        let plan: &dyn Faults = &f;
        assert_eq!(plan.refusal(0), Some(Errno::EBUSY));
        assert_eq!(plan.refusal(1), None);
        assert!(plan.fails_allocation(3) && !plan.fails_allocation(0));
        assert_eq!(plan.job_fault(0), None);
        assert_eq!(
            plan.job_fault(1),
            Some(JobFault::Fault {
                unit: Unit::Pbe,
                addr: 8192
            })
        );
        assert_eq!(plan.job_fault(2), Some(JobFault::Hang));
        assert_eq!(
            plan.job_fault(3),
            Some(JobFault::Fail {
                reason: "why".into()
            })
        );
        assert_eq!(plan.job_fault(4), Some(JobFault::LoseDevice));
        assert_eq!(plan.job_fault(5), None);
        assert_eq!(plan.job_fault(6), Some(JobFault::OutOfMemory));
    }

    #[test]
    fn an_address_of_the_wrong_type_says_what_an_address_is() {
        for (addr, says) in [
            ("true", "address true: an address is a number"),
            ("-1", "address -1: an address is a number"),
            ("4294967296", "address 4294967296"),
            ("1.5", "address 1.5"),
            ("\"0xzz\"", "address \"0xzz\""),
        ] {
            let text = format!(
                r#"{{"inject": [{{"what": "fault_job", "job": 0, "unit": "pbe", "addr": {addr}}}]}}"#
            );
            let e = Fixture::from_json(&text, "f.json").unwrap_err().to_string();
            assert!(e.contains(says) && !e.contains("untagged"), "{e}");
            assert!(e.starts_with("fixture f.json: "), "{e}");
        }
    }

    #[test]
    fn rejects_bad_fixtures() {
        for bad in [
            r#"{"inject": [{"what": "refuse_submission", "submission": 0, "errno": "EIO"}]}"#,
            r#"{"inject": [{"what": "fault_job", "job": 0, "unit": "gpu", "addr": 0}]}"#,
            r#"{"inject": [{"what": "fault_job", "job": 0, "unit": "pbe", "addr": "0xzz"}]}"#,
            r#"{"inject": [{"what": "hang_job", "job": 0, "extra": 1}]}"#,
            r#"{"inject": [{"what": "explode", "job": 0}]}"#,
            r#"{"inject": [], "typo": 1}"#,
            r#"{"inject": [{"what": "hang_job", "job": 1}, {"what": "lose_device", "job": 1}]}"#,
            r#"{"inject": [{"what": "job_out_of_memory", "job": 0, "unit": "ta"}]}"#,
            r#"{"inject": [{"what": "job_out_of_memory", "job": 2}, {"what": "fail_job", "job": 2, "reason": "x"}]}"#,
            r#"{"inject": [{"what": "job_out_of_memory"}]}"#,
        ] {
            assert!(
                matches!(
                    Fixture::from_json(bad, "t"),
                    Err(WinsysError::Fixture { .. })
                ),
                "accepted {bad}"
            );
        }
    }

    fn reason(text: &str) -> String {
        match Fixture::from_json(text, "f.json") {
            Err(WinsysError::Fixture { path, reason }) => {
                assert_eq!(path, "f.json");
                reason
            }
            other => panic!("accepted {text}: {other:?}"),
        }
    }

    #[test]
    fn errors_name_the_line_and_the_field() {
        let r = reason("{\n  \"inject\": [\n    {\"what\": \"refuse_submission\", \"submission\": 0, \"errno\": \"EIO\"}\n  ]\n}");
        // An internally tagged entry is read whole before its fields are checked: the position
        // is the entry's end, the field its index.
        assert!(r.starts_with("line 4,"), "{r}");
        assert!(r.contains("field `inject[0]`"), "{r}");
        assert!(r.contains("EIO"), "{r}");
        let r = reason("{\"inject\": [],\n \"expect\": {\"mipgen\": {\"eror\": \"fault\"}}}");
        assert!(
            r.starts_with("line 2,") && r.contains("expect.mipgen"),
            "{r}"
        );
        assert!(r.contains("eror"), "{r}");
        let r = reason("{\"inject\": [], \"expect\": {\"frobnicate\": {}}}");
        assert!(r.contains("frobnicate"), "{r}");
        let r = reason("{\"inject\": [{\"what\": \"hang_job\", \"job\": 1048576}]}");
        assert!(
            r.contains("inject[0]`") && r.contains("out of range"),
            "{r}"
        );
        let r = reason("{\"inject\": [{\"what\": \"hang_job\", \"job\": -1}]}");
        assert!(r.contains("inject[0]`"), "{r}");
        let r = reason("{\"inject\": [{\"what\": \"hang_job\", \"job\": 2},\n {\"what\": \"fail_job\", \"job\": 2, \"reason\": \"x\"}]}");
        assert!(
            r.contains("inject[0] and inject[1] both target job 2"),
            "{r}"
        );
        let r = reason("{\"inject\": [], \"setup\": {\"mipgen_size_px\": 48}}");
        assert!(r.contains("setup.mipgen_size_px"), "{r}");
        let r = reason("{\"inject\": [");
        assert!(r.starts_with("line 1,"), "{r}");
    }

    #[test]
    fn a_fixture_written_as_json_reads_back_the_same() {
        let f = Fixture::from_json(
            r#"{"description": "d", "inject": [
                {"what": "fault_job", "job": 1, "unit": "pbe", "addr": "0x30001000"},
                {"what": "job_out_of_memory", "job": 2},
                {"what": "refuse_submission", "submission": 0, "errno": "EBUSY"}],
                "expect": {"draw": {"error": "fault", "written": [0]}}}"#,
            "t",
        )
        .unwrap();
        let text = serde_json::to_string_pretty(&f).unwrap();
        assert!(text.contains("\"0x30001000\""), "{text}");
        assert!(text.contains("\"job_out_of_memory\""), "{text}");
        assert!(!text.contains("null"), "{text}");
        assert_eq!(Fixture::from_json(&text, "t").unwrap(), f);
    }

    #[test]
    fn expect_and_setup_blocks_parse() {
        let f = Fixture::from_json(
            r#"{"inject": [], "setup": {"mipgen_size_px": 2048},
                "expect": {"mipgen": {"error": "refused", "submissions": 3, "fences_signalled": 2,
                "written": [1, 2], "unchanged": [3], "fallback": false, "leaked": 0}}}"#,
            "t",
        )
        .unwrap();
        assert_eq!(f.setup.mipgen_size_px, 2048);
        let e = f.expect.get("mipgen").unwrap();
        assert_eq!(e.error, Some(crate::replay::ErrorKind::Refused));
        assert_eq!(e.written.as_deref(), Some(&[1, 2][..]));
        assert_eq!(f.expect.scenarios(), vec!["mipgen"]);
        assert!(f.expect.get("draw").is_none());
    }
}
