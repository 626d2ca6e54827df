//! The synthetic Bemula generator.
