//! The operator's parameters.

use crate::error::{Error, Result};

/// The parameters an operator is opened with: the job's own (the spec's
/// `params:` and `--set` values) and the host's `floe.*` entries
/// (sdk/ABI.md, "Parameter block").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Params {
    entries: Vec<(String, String)>,
}

impl Params {
    pub(crate) const fn new() -> Params {
        Params {
            entries: Vec::new(),
        }
    }

    /// Makes parameters from name and value pairs; a later pair wins over an
    /// earlier one of the same name.
    pub fn from_entries(entries: Vec<(String, String)>) -> Params {
        Params { entries }
    }

    /// Returns the parameter's value, or `None` when it is absent.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Returns the parameter as an integer, or `default` when it is absent.
    /// A value that is not a decimal integer is an error naming it.
    pub fn int(&self, name: &str, default: i64) -> Result<i64> {
        match self.get(name) {
            None => Ok(default),
            Some(s) => s
                .parse()
                .map_err(|_| Error::msg(format!("parameter {}: {:?} is not an integer", name, s))),
        }
    }

    /// Returns every parameter, in the order the host gave them (sorted by
    /// name).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The function the job spec names for this operator (`floe.function`).
    pub fn function(&self) -> &str {
        self.get("floe.function").unwrap_or("")
    }

    /// The operator's uid (`floe.operator`).
    pub fn operator(&self) -> &str {
        self.get("floe.operator").unwrap_or("")
    }

    /// The job's name (`floe.job`).
    pub fn job(&self) -> &str {
        self.get("floe.job").unwrap_or("")
    }

    /// This instance's subtask index, from 0 (`floe.subtask`).
    pub fn subtask(&self) -> u32 {
        self.number("floe.subtask", 0)
    }

    /// The operator's parallelism (`floe.parallelism`).
    pub fn parallelism(&self) -> u32 {
        self.number("floe.parallelism", 1)
    }

    /// The job's number of key groups (`floe.max_parallelism`).
    pub fn max_parallelism(&self) -> u32 {
        self.number("floe.max_parallelism", 1)
    }

    fn number(&self, name: &str, default: u32) -> u32 {
        self.get(name)
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Params {
        Params::from_entries(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn integers() {
        let p = params(&[("gap", "15"), ("neg", "-3"), ("bad", "1.5")]);
        assert_eq!(p.int("gap", 10).unwrap(), 15);
        assert_eq!(p.int("neg", 10).unwrap(), -3);
        assert_eq!(p.int("absent", 10).unwrap(), 10);
        assert_eq!(
            p.int("bad", 10).unwrap_err().message(),
            "parameter bad: \"1.5\" is not an integer"
        );
    }

    #[test]
    fn host_entries() {
        let p = params(&[
            ("floe.function", "count"),
            ("floe.subtask", "3"),
            ("floe.parallelism", "4"),
        ]);
        assert_eq!(
            (p.function(), p.subtask(), p.parallelism(), p.job()),
            ("count", 3, 4, "")
        );
    }
}
