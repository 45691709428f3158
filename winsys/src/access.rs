//! How a job or a CPU map uses a buffer: the word reservations, buffers and jobs share, so it
//! sits below all three.

/// How a job (or a CPU map) uses a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Reads only.
    Read,
    /// Writes only.
    Write,
    /// Reads and writes.
    ReadWrite,
}

impl Access {
    /// True for Write and ReadWrite.
    pub fn writes(self) -> bool {
        !matches!(self, Access::Read)
    }

    /// True for Read and ReadWrite.
    pub fn reads(self) -> bool {
        !matches!(self, Access::Write)
    }

    /// The access that covers both.
    pub fn union(self, other: Access) -> Access {
        match (
            self.reads() || other.reads(),
            self.writes() || other.writes(),
        ) {
            (true, true) => Access::ReadWrite,
            (false, true) => Access::Write,
            _ => Access::Read,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_union() {
        assert_eq!(Access::Read.union(Access::Read), Access::Read);
        assert_eq!(Access::Read.union(Access::Write), Access::ReadWrite);
        assert_eq!(Access::Write.union(Access::Write), Access::Write);
        assert!(Access::ReadWrite.writes() && Access::ReadWrite.reads());
    }
}
