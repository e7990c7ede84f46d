//! The interface of vLLM's Rust reasoning parsers, mirrored (written here, not copied).
//!
//! vLLM's `vllm-parser` crate (`rust/src/parser/src/reasoning/mod.rs` at commit
//! 92265724ea1a46cda8f9f46c29f3dd212f35c998) defines `ReasoningParser`, `ReasoningDelta` and
//! `ReasoningError`; its `vllm-tokenizer` crate the `Tokenizer` trait behind
//! `DynTokenizer`.  Those crates need crates.io and a git dependency, so the generated
//! parsers build against these signatures instead; upstream, `crate::vllm` is
//! `crate::reasoning` plus `vllm_tokenizer` (README: "The Rust backend").

use std::fmt;
use std::sync::Arc;

/// What a reasoning parser asks of a tokenizer: marker ids and which ids are special.
pub trait Tokenizer: Send + Sync {
    /// The id of one token string, `None` if the vocabulary has no such token.
    fn token_to_id(&self, token: &str) -> Option<u32>;

    /// Whether an id is a special token (a prompt walk stops at one).
    fn is_special_id(&self, _token_id: u32) -> bool {
        false
    }

    /// The added vocabulary as `(token, id)` pairs (empty where the backend cannot say).
    fn added_vocab(&self) -> Vec<(String, u32)> {
        Vec::new()
    }

    /// The ids a text encodes to, special tokens recognised (a marker spelled by several
    /// tokens); an empty list where the backend cannot say.
    fn encode(&self, _text: &str) -> Vec<u32> {
        Vec::new()
    }

    /// The text of one id, `None` where the backend cannot say.
    fn decode_one(&self, _token_id: u32) -> Option<String> {
        None
    }
}

/// A shared tokenizer, as vLLM passes it to `ReasoningParser::create`.
pub type DynTokenizer = Arc<dyn Tokenizer>;

/// One parsed delta split into reasoning and visible content.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ReasoningDelta {
    pub reasoning: Option<String>,
    pub content: Option<String>,
}

impl ReasoningDelta {
    /// Whether the delta carries neither reasoning nor content.
    pub fn is_empty(&self) -> bool {
        self.reasoning.is_none() && self.content.is_none()
    }

    /// Append reasoning text (nothing for an empty one).
    pub fn push_reasoning(&mut self, text: &str) {
        push_to(&mut self.reasoning, text);
    }

    /// Append content text (nothing for an empty one).
    pub fn push_content(&mut self, text: &str) {
        push_to(&mut self.content, text);
    }
}

fn push_to(field: &mut Option<String>, text: &str) {
    if text.is_empty() {
        return;
    }
    match field {
        Some(existing) => existing.push_str(text),
        None => *field = Some(text.to_string()),
    }
}

/// Errors of creating or running a reasoning parser.
#[derive(Debug)]
pub enum ReasoningError {
    /// A marker the parser needs is not a token of the tokenizer.
    MissingToken { token: String },
}

impl fmt::Display for ReasoningError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingToken { token } => {
                write!(f, "tokenizer is missing reasoning delimiter token `{token}`")
            }
        }
    }
}

impl std::error::Error for ReasoningError {}

/// The result of a reasoning parser's operations.
pub type Result<T> = std::result::Result<T, ReasoningError>;

/// Splits one stream's decoded text deltas into reasoning and content.
pub trait ReasoningParser: Send {
    /// A boxed parser for one request stream.
    fn create(tokenizer: DynTokenizer) -> Result<Box<dyn ReasoningParser>>
    where
        Self: Sized + 'static;

    /// Start where the prompt leaves the model (before the first delta).
    fn initialize(&mut self, _prompt_token_ids: &[u32]) -> Result<()> {
        Ok(())
    }

    /// Whether decoding must keep special tokens (markers that are special tokens).
    fn preserve_special_tokens(&self) -> bool {
        false
    }

    /// Parse one decoded text delta.
    fn push(&mut self, delta: &str) -> Result<ReasoningDelta>;

    /// End of stream: flush what is held.
    fn finish(&mut self) -> Result<ReasoningDelta> {
        Ok(ReasoningDelta::default())
    }
}
