//! The paper's metrics (Eq. 2–5) computed from result records, with breakdowns and
//! the cluster bootstrap.
