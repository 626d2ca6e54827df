//! The protocol runner (the paper's Appendix A).
