//! The built-in reference systems.
