//! Why a harness run could not be made: each kind of failure apart, with the text a
//! reader acts on.

use super::SettingsError;
use crate::report::ReportError;

/// A harness run that could not be made (a failing request is not one: it fails its
/// test). [`super::Harness::run`] prints it and exits with status 2.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HarnessError {
    /// A setting (an environment variable or a builder value) is malformed.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The data cannot be loaded, or holds no forget request.
    #[error("{0}")]
    Data(String),
    /// The system cannot be made: an unknown spec or instrument, an adapter that cannot
    /// be reached, or one that fails the preflight.
    #[error("{0}")]
    System(String),
    /// The report directory, the journal or a report cannot be written.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// A file of the run cannot be written or read (the parts of a nextest run).
    #[error("{0}")]
    Io(String),
    /// The expectations file cannot be read or written.
    #[error("{0}")]
    Expectations(String),
    /// The regression gate's baseline cannot be read or blessed.
    #[error("{0}")]
    Gate(String),
    /// The async runtime could not start.
    #[error("{0}")]
    Runtime(String),
}
