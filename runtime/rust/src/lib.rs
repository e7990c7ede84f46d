//! parsergen's generated Rust reasoning parsers and the runtime they share.
//!
//! `generated/rust/` (written by `parsergen build --target rust`, one module per format
//! with reasoning) declares each format as static tables (`spec`) and a parser type
//! implementing the mirrored vLLM `ReasoningParser` trait (`vllm`) over the shared
//! `engine`; `registry` routes model names to formats.

pub mod assembly;
pub mod engine;
pub mod matcher;
pub mod parser;
pub mod prompt;
pub mod registry;
pub mod spec;
pub mod text;
pub mod vllm;

/// The generated parsers (`generated/rust/`), one module per format, and their registry.
#[path = "../../../generated/rust/mod.rs"]
pub mod formats;
