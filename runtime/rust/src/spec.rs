//! What a generated module declares about its format: static tables, no code.
//!
//! `compiler/rust.py` prints these from the compiler's IR (`FormatIR`), the same IR the
//! Python module is printed from; the engine (`engine.rs`) reads them.

/// State ids, as `runtime/events.py` numbers them.
pub const CONTENT: u8 = 0;
pub const REASONING: u8 = 1;
pub const MESSAGE_HEADER: u8 = 2;
/// The tool states: text read in one, or leading into one, is tool markup.
pub const TOOL_STATES: [u8; 4] = [3, 4, 5, 6];
/// The name of an auto-dropped special token's matches (`runtime/events.py` DROP).
pub const DROP: &str = "__DROP__";

/// What a state does with its plain text, as far as reasoning is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    /// Reasoning text (REASONING_CHUNK).
    Reasoning,
    /// Content (TEXT_CHUNK): reasoning is over.
    Content,
    /// No event: whitespace and the format's punctuation are framing, other text content.
    Framing,
    /// An event that is not reasoning or content (a tool name), or text the spec drops.
    Silent,
    /// MESSAGE_HEADER: kept until a transition reads it.
    Header,
    /// A tool body's text (its calls end reasoning).
    Body,
}

/// An event a transition emits that matters to reasoning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// REASONING_END with the marker's text.
    ReasoningEnd,
    /// TEXT_CHUNK of the marker's text.
    Text,
    /// TEXT_CHUNK of the message header (none when it is empty).
    HeaderText,
    /// TOOL_CALL_START.
    CallStart,
}

/// A header rule: when `when` (a regex searched in the header) matches, go to `target`.
#[derive(Debug)]
pub struct Rule {
    pub when: Option<&'static str>,
    pub target: u8,
    pub events: &'static [Event],
}

/// What terminal `terminal` does in a state (`rules`: decided by the header).
#[derive(Debug)]
pub struct Transition {
    pub terminal: &'static str,
    pub target: u8,
    pub events: &'static [Event],
    /// The transition reads the header (MESSAGE_HEADER's text is cleared).
    pub takes_header: bool,
    pub rules: &'static [Rule],
}

/// One state: its text and its transitions.
#[derive(Debug)]
pub struct State {
    pub text: Text,
    pub transitions: &'static [Transition],
}

/// A terminal that counts only before a follower (`followed_by`).
#[derive(Debug)]
pub struct Followed {
    pub name: &'static str,
    pub names: &'static [&'static str],
    pub texts: &'static [&'static str],
}

/// The machine with thinking on or off: its terminals and initial state.
#[derive(Debug)]
pub struct Variant {
    pub initial: u8,
    /// Spelling -> terminal, sorted by spelling (start-only markers apart).
    pub literals: &'static [(&'static str, &'static str)],
    /// Markers only as the very first text of a completion: spelling -> terminal.
    pub at_start: &'static [(&'static str, &'static str)],
    /// Terminals matched by token id: terminal -> its canonical spelling.
    pub token_terminals: &'static [(&'static str, &'static str)],
    /// Per state id, the terminals with a transition there.
    pub live: &'static [(u8, &'static [&'static str])],
    pub followed_by: &'static [Followed],
    /// Terminal -> (text right before it, right after it) that is part of it.
    pub framing: &'static [(&'static str, &'static str, &'static str)],
}

/// The reasoning markers (terminal names) and what depends on thinking.
#[derive(Debug)]
pub struct Reasoning {
    pub start: &'static [&'static str],
    pub end: &'static [&'static str],
    pub implicit_end: &'static [&'static str],
    /// Wait for reasoning to end: thinking on, off.
    pub wait: [bool; 2],
    pub newline_framing: bool,
    pub start_optional: bool,
    pub calls_are_text: bool,
    /// Call markers that, typed as text, count in REASONING only where one of these
    /// texts follows them past whitespace (`lexing.GatedReasoning`): terminal -> texts.
    pub gates: &'static [(&'static str, &'static [&'static str])],
}

/// A format, as the engine reads it.
#[derive(Debug)]
pub struct Format {
    pub name: &'static str,
    pub thinking_default: bool,
    /// Thinking on, thinking off.
    pub variants: [&'static Variant; 2],
    /// Per state id (all seven).
    pub states: [State; 7],
    pub reasoning: Reasoning,
    pub strip_trailing_reasoning_whitespace: bool,
    pub strip_leading_content_newlines: bool,
    pub reasoning_header: Option<&'static str>,
    pub turn_boundary_tokens: &'static [&'static str],
    pub preserve_tokens: &'static [&'static str],
    pub framing_punctuation: &'static str,
    /// A header the completion ends in that this regex matches whole is framing.
    pub cut_header: Option<&'static str>,
}

impl Format {
    /// The variant for a thinking setting.
    pub fn variant(&self, thinking: bool) -> &'static Variant {
        self.variants[usize::from(!thinking)]
    }
}

/// A model-name pattern of the registry: case-insensitive text where `{>=a,<b}` stands for a
/// version number in that range (`parsergen/routing.py`).
#[derive(Debug)]
pub struct ModelPattern {
    pub pattern: &'static str,
    pub format: &'static str,
    /// The thinking default of the models it names (None: the format's own).
    pub thinking: Option<bool>,
}
