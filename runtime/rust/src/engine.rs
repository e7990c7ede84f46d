//! The reasoning phase of a format's parser: deltas in, reasoning and content out.
//!
//! It replays what the Python module does up to the end of reasoning, with the same
//! decisions: the driver's lexing, at-start and reclosing markers (`runtime/driver.py`),
//! the prompt walk (`runtime/prompt.py`), reasoning's whitespace, framing and header
//! rules (`runtime/assembly.py`).  Once reasoning is over, the content is the model's
//! text from where it starts on, as it came (tool markup included): what parsergen's
//! Python reasoning parser hands vLLM (`ChatParser.content_offset`,
//! `parsergen/integrations/vllm.py`).  Offsets are bytes.

use fancy_regex::Regex;

use crate::assembly::ReasoningText;
use crate::matcher::{build_matchers, live_names, Matcher, Scan};
use crate::prompt::{walk_back, Found, PromptIds};
use crate::spec::{Event, Format, Text, Variant, CONTENT, DROP, MESSAGE_HEADER, REASONING, TOOL_STATES};
use crate::text::{is_space, lstrip_newlines};
use crate::vllm::{DynTokenizer, ReasoningDelta};

/// Most whitespace a call marker in reasoning waits past (`lexing.GATE_SPACE`).
const GATE_SPACE: usize = 64;

/// Whether what follows `buf[..end]`, past whitespace, begins with one of `heads`
/// (`lexing.follows`; None: it may yet; the end, or a head it cut, counts as one).
fn follows(buf: &str, end: usize, last: bool, heads: &[&str]) -> Option<bool> {
    let mut at = buf.len();
    for (spaces, (k, c)) in buf[end..].char_indices().enumerate() {
        if !is_space(c) {
            at = end + k;
            break;
        }
        if spaces + 1 > GATE_SPACE {
            return Some(true); // (no words came: the marker counts, as it did)
        }
    }
    let rest = &buf[at..];
    if heads.iter().any(|h| rest.starts_with(h)) {
        return Some(true);
    }
    if rest.is_empty() || heads.iter().any(|h| h.starts_with(rest)) {
        return if last { Some(true) } else { None };
    }
    Some(false)
}

/// The last piece of model text consumed in a delta: its state, marker and extent.
#[derive(Debug, Clone, Copy)]
struct Raw {
    state: u8,
    marker: Option<&'static str>,
    start: usize,
    end: usize,
}

/// One stream of one format.
pub struct Engine {
    fmt: &'static Format,
    thinking: bool,
    variant: &'static Variant,
    matchers: Vec<Matcher>,
    prompt: PromptIds,
    rules: Vec<When>,
    cut_header: Option<Regex>,
    preserve: bool,
    // -- the driver --
    state: u8,
    start_state: u8,
    reasoning_closed: bool,
    pending: String,
    fresh: bool,
    starters: Vec<(&'static str, &'static str)>,
    opening: Vec<&'static str>,
    reclosing: Vec<&'static str>,
    reclosers: Vec<(&'static str, &'static str)>,
    after_close: bool,
    header: String,
    // -- the assembly of reasoning --
    reasoning: ReasoningText,
    // -- where the content starts --
    started: bool,
    over: bool,
    consumed: usize,
    reasoned: usize,
    /// The model's text from `kept_from` on: the content once reasoning is over.
    kept: String,
    kept_from: usize,
    last_raw: Option<Raw>,
    unsettled: Option<Raw>,
    /// Tool markup read while reasoning could still come (content if it never ends).
    markup: String,
    out: ReasoningDelta,
}

/// When a header rule applies: always, when its pattern matches the header, or never
/// (a pattern the regex crate cannot read: the compiler refuses those, so this is a
/// second line of defence that never panics across the binding).
enum When {
    Always,
    Matches(Regex),
    Never,
}

impl When {
    fn new(pattern: Option<&str>) -> Self {
        match pattern {
            None => When::Always,
            Some(p) => Regex::new(p).map_or(When::Never, When::Matches),
        }
    }

    fn hits(&self, header: &str) -> bool {
        match self {
            When::Always => true,
            When::Matches(re) => re.is_match(header).unwrap_or(false),
            When::Never => false,
        }
    }
}

impl Engine {
    /// A parser of `fmt` for one stream (`thinking`: None for the format's default).
    pub fn new(fmt: &'static Format, tokenizer: Option<DynTokenizer>, thinking: Option<bool>) -> Self {
        let thinking = thinking.unwrap_or(fmt.thinking_default);
        let variant = fmt.variant(thinking);
        let prompt = PromptIds::new(fmt, variant, tokenizer.as_deref());
        let matchers = build_matchers(variant, &prompt.drop_texts);
        let mut rules = Vec::new();
        for state in fmt.states.iter() {
            for tr in state.transitions {
                for rule in tr.rules {
                    rules.push(When::new(rule.when));
                }
            }
        }
        // (The compiler refuses what the regex crate cannot read; a pattern it let
        // through anyway frames nothing instead of panicking across the binding.)
        let cut_header = fmt.cut_header.and_then(|c| Regex::new(&format!("^(?:{c})\\z")).ok());
        let content_live = live_names(variant, CONTENT);
        let reclosing: Vec<&'static str> =
            fmt.reasoning.end.iter().copied().filter(|n| !content_live.contains(n)).collect();
        let reclosers =
            variant.literals.iter().copied().filter(|(_, n)| reclosing.contains(n)).collect();
        let preserve = prompt.preserve;
        let mut engine = Engine {
            fmt,
            thinking,
            variant,
            matchers,
            prompt,
            rules,
            cut_header,
            preserve,
            state: variant.initial,
            start_state: variant.initial,
            reasoning_closed: false,
            pending: String::new(),
            fresh: !variant.at_start.is_empty(),
            starters: variant.at_start.to_vec(),
            opening: Vec::new(),
            reclosing,
            reclosers,
            after_close: false,
            header: String::new(),
            reasoning: ReasoningText::new(
                fmt.reasoning_header,
                fmt.reasoning.newline_framing,
                fmt.strip_trailing_reasoning_whitespace,
            ),
            started: false,
            over: false,
            consumed: 0,
            reasoned: 0,
            kept: String::new(),
            kept_from: 0,
            last_raw: None,
            unsettled: None,
            markup: String::new(),
            out: ReasoningDelta::default(),
        };
        if engine.closed_by_default() {
            engine.closed();
        }
        engine
    }

    /// Whether decoding must keep special tokens: a marker the tokenizer has as one.
    pub fn preserve_special_tokens(&self) -> bool {
        self.preserve
    }

    /// Start where the prompt leaves the model (`StreamingParserBase.initialize`).
    pub fn initialize(&mut self, prompt_token_ids: &[u32]) {
        let found = walk_back(&self.prompt, prompt_token_ids);
        self.begin(found);
    }

    fn begin(&mut self, found: Found) {
        self.after_close = false;
        self.starters = self.variant.at_start.to_vec();
        let mut state = self.variant.initial;
        let mut opening = Vec::new();
        // Only headers open reasoning (Harmony, Muse): the prompt's end marker ended an
        // earlier message, and this completion opens a header of its own.
        let found = if found == Found::End
            && state == MESSAGE_HEADER
            && self.fmt.reasoning.start.is_empty()
        {
            Found::Neither
        } else {
            found
        };
        match found {
            Found::Start => state = REASONING,
            Found::End => state = CONTENT,
            Found::Neither
                if !self.fmt.reasoning.start_optional && (state == REASONING || state == CONTENT) =>
            {
                state = CONTENT;
                // Start markers CONTENT ignores open reasoning as the completion's first text.
                let content_live = live_names(self.variant, CONTENT);
                opening = self
                    .fmt
                    .reasoning
                    .start
                    .iter()
                    .copied()
                    .filter(|n| !content_live.contains(n))
                    .collect::<Vec<_>>();
                let openers: Vec<_> = self
                    .variant
                    .literals
                    .iter()
                    .copied()
                    .filter(|(_, n)| opening.contains(n))
                    .collect();
                self.fresh = self.fresh || !openers.is_empty();
                merge(&mut self.starters, &openers);
            }
            _ => {}
        }
        self.opening = opening;
        self.state = state;
        self.start_state = state;
        self.reasoning_closed = found == Found::End;
        if found == Found::End || (found == Found::Unread && self.closed_by_default()) {
            self.closed();
        }
    }

    fn closed_by_default(&self) -> bool {
        !self.thinking
            && self.fmt.variants[1].initial == CONTENT
            && self.fmt.variants[0].initial == REASONING
    }

    /// Reasoning has just closed: an end marker before content text is a marker.
    fn closed(&mut self) {
        if !self.reclosing.is_empty() && self.state == CONTENT {
            if !self.fresh {
                self.starters.clear();
                self.opening.clear();
            }
            let reclosers = self.reclosers.clone();
            merge(&mut self.starters, &reclosers);
            self.fresh = true;
            self.after_close = true;
        }
    }

    /// The first delta (or the end): a completion that starts past its reasoning (in
    /// content, closed by the prompt, or where the format does not wait for reasoning)
    /// is all content, as it comes.
    fn start(&mut self) {
        if self.started {
            return;
        }
        self.started = true;
        let waits = self.fmt.reasoning.wait[usize::from(!self.thinking)];
        if self.start_state == CONTENT && (self.reasoning_closed || !waits) {
            self.end_phase(0);
        }
    }

    /// Parse one decoded delta.
    pub fn push(&mut self, delta: &str) -> ReasoningDelta {
        self.start();
        if self.over {
            let mut out = ReasoningDelta::default();
            out.push_content(delta);
            return out;
        }
        self.last_raw = None;
        self.kept.push_str(delta);
        if !delta.is_empty() {
            let buf = std::mem::take(&mut self.pending) + delta;
            self.pending = self.lex(buf, false);
        }
        self.settle();
        std::mem::take(&mut self.out)
    }

    /// End of stream: flush what is held.
    pub fn finish(&mut self) -> ReasoningDelta {
        self.start();
        if self.over {
            return ReasoningDelta::default();
        }
        self.last_raw = None;
        let tail = std::mem::take(&mut self.pending);
        if !tail.is_empty() {
            self.end(tail);
        }
        if !self.over {
            match self.state {
                REASONING => self.event_reasoning_end(""),
                MESSAGE_HEADER if !self.header.is_empty() => {
                    let framing = self.cut_header.as_ref().map_or(false, |c| {
                        c.is_match(&self.header).unwrap_or(false)
                    });
                    if !framing {
                        self.ends_reasoning();
                    }
                }
                _ => {}
            }
        }
        self.settle();
        if !self.over {
            // Reasoning never ended and no content came: tool markup read meanwhile is
            // content (the Python module's tool_choice "none"), or there is none.
            if self.reasoning.holds_header() {
                self.end_reasoning(true);
            }
            let mut markup = std::mem::take(&mut self.markup);
            if self.fmt.strip_leading_content_newlines {
                markup = lstrip_newlines(&markup).to_string();
            }
            self.out.push_content(&markup);
            self.over = true;
        }
        std::mem::take(&mut self.out)
    }

    // -- lexing (StreamingParserBase._lex) -------------------------------------

    /// Lex `buf` from the current state on; return the tail held back.
    fn lex(&mut self, buf: String, last: bool) -> String {
        let mut pos = 0;
        if self.fresh && !buf.is_empty() {
            match self.starting(&buf, 0, last) {
                Ok(p) => pos = p,
                Err(hold) => return buf[hold..].to_string(),
            }
        }
        let n = buf.len();
        while pos < n && !self.over {
            let scan = self.matchers[self.state as usize].scan(&buf, pos, last);
            let (start, end, name) = match scan {
                Scan::Found { start, end, name } => (start, Some(end), name),
                Scan::Hold { hold } => (hold, None, None),
            };
            if start > pos || (name.is_none() && end.is_some()) {
                let stop = if start > pos { start } else { end.unwrap_or(start) };
                self.text(&buf[pos..stop]);
                if self.over {
                    break;
                }
                if Some(stop) == end {
                    pos = stop;
                    continue;
                }
            }
            let Some(end) = end else {
                return buf[start..].to_string();
            };
            if let Some(heads) = self.gate(name) {
                // A call marker typed in reasoning: what follows says if it is one.
                match follows(&buf, end, last, heads) {
                    None => return buf[start..].to_string(),
                    Some(false) => {
                        self.text(&buf[start..end]);
                        pos = end;
                        continue;
                    }
                    Some(true) => {}
                }
            }
            let before = self.state;
            self.raw_piece(end - start, name, before);
            self.marker(name, &buf[start..end]);
            pos = end;
            if before == REASONING && self.state == CONTENT && !self.reclosing.is_empty() && !self.over {
                self.closed();
                match self.starting(&buf, pos, last) {
                    Ok(p) => pos = p,
                    Err(hold) => return buf[hold..].to_string(),
                }
            }
        }
        String::new()
    }

    /// The texts that must follow marker `name` in the current state for it to count
    /// (`lexing.GatedReasoning`): None where it counts as it is.
    fn gate(&self, name: Option<&'static str>) -> Option<&'static [&'static str]> {
        if self.state != REASONING {
            return None;
        }
        let name = name?;
        self.fmt.reasoning.gates.iter().find(|(n, _)| *n == name).map(|(_, heads)| *heads)
    }

    /// Lex the held tail of the completion; in a framing state, a proper prefix of a
    /// marker it knows at the very end is that marker cut off: framing.
    fn end(&mut self, tail: String) {
        let state = self.state;
        let cut = if self.fmt.states[state as usize].text == Text::Framing {
            self.matchers[state as usize].cut(&tail)
        } else {
            None
        };
        let keep = tail.len() - cut.map_or(0, |(c, _)| c);
        let rest = tail[keep..].to_string();
        self.lex(tail[..keep].to_string(), true);
        if let Some((_, name)) = cut {
            if self.over {
                return;
            }
            if self.state != state {
                self.lex(rest, true);
            } else {
                self.raw_piece(rest.len(), Some(name), state);
            }
        }
    }

    /// Where lexing goes on after the at-start markers from `pos` (Err: hold from there).
    fn starting(&mut self, buf: &str, mut pos: usize, last: bool) -> Result<usize, usize> {
        while self.fresh && pos < buf.len() && !self.over {
            match self.at_start(&buf[pos..], last) {
                None => return Err(pos),
                Some(n) => pos += n,
            }
        }
        Ok(pos)
    }

    /// At the start of the completion (or of content right after reasoning closed):
    /// consume a start-only marker, or hold for one; whitespace may come before an end
    /// marker that closes reasoning again.
    fn at_start(&mut self, buf: &str, last: bool) -> Option<usize> {
        for i in 0..self.starters.len() {
            let (lit, name) = self.starters[i];
            if buf.starts_with(lit) {
                self.fresh = false;
                let state = self.state;
                self.raw_piece(lit.len(), Some(name), state);
                if self.opening.contains(&name) {
                    self.state = REASONING;
                } else if !self.reclosing.contains(&name) {
                    self.marker(Some(name), lit);
                }
                return Some(lit.len());
            }
            if lit.starts_with(buf) && !last {
                return None;
            }
        }
        let space = if self.after_close {
            buf.char_indices().find(|(_, c)| !is_space(*c)).map_or(buf.len(), |(i, _)| i)
        } else {
            0
        };
        if space > 0 {
            let state = self.state;
            self.raw_piece(space, None, state);
            self.on_text(&buf[..space]);
            self.starters = self.reclosers.clone();
            return Some(space);
        }
        self.fresh = false;
        Some(0)
    }

    /// Plain text `piece` of the current state.
    fn text(&mut self, piece: &str) {
        let state = self.state;
        self.raw_piece(piece.len(), None, state);
        self.on_text(piece);
    }

    /// What the state's plain text does (the generated `on_text`).
    fn on_text(&mut self, text: &str) {
        match self.fmt.states[self.state as usize].text {
            Text::Reasoning => self.event_reasoning(text),
            Text::Content | Text::Body => self.ends_reasoning(),
            Text::Framing => {
                let punct = self.fmt.framing_punctuation;
                if !text.chars().all(|c| is_space(c) || punct.contains(c)) {
                    self.ends_reasoning();
                }
            }
            Text::Header => self.header.push_str(text),
            Text::Silent => {}
        }
    }

    /// Terminal `name` (None: a literal that is only text here) in the current state
    /// (the generated `on_marker`).
    fn marker(&mut self, name: Option<&'static str>, value: &str) {
        let state = &self.fmt.states[self.state as usize];
        let found = name.and_then(|n| state.transitions.iter().position(|t| t.terminal == n));
        let Some(i) = found else {
            if name != Some(DROP) {
                self.on_text(value); // no transition here: the marker's text is text
            }
            return;
        };
        let tr = &state.transitions[i];
        if tr.rules.is_empty() {
            let header = if tr.takes_header { std::mem::take(&mut self.header) } else { String::new() };
            self.state = tr.target;
            self.events(tr.events, value, &header);
            return;
        }
        let header = std::mem::take(&mut self.header);
        let first = self.rule_index(self.state, i);
        for (k, rule) in tr.rules.iter().enumerate() {
            let hit = self.rules[first + k].hits(&header);
            if hit {
                self.state = rule.target;
                self.events(rule.events, value, &header);
                return;
            }
        }
    }

    /// The index in `rules` of the first rule of transition `i` of `state`.
    fn rule_index(&self, state: u8, i: usize) -> usize {
        let mut k = 0;
        for (s, st) in self.fmt.states.iter().enumerate() {
            for (j, tr) in st.transitions.iter().enumerate() {
                if s == state as usize && j == i {
                    return k;
                }
                k += tr.rules.len();
            }
        }
        k
    }

    fn events(&mut self, events: &[Event], value: &str, header: &str) {
        for event in events {
            if self.over {
                return;
            }
            match event {
                Event::ReasoningEnd => self.event_reasoning_end(value),
                Event::Text => self.ends_reasoning(),
                Event::HeaderText => {
                    if !header.is_empty() {
                        self.ends_reasoning();
                    }
                }
                Event::CallStart => self.ends_reasoning(),
            }
        }
    }

    // -- the raw tap: where each piece of text was read --------------------------

    /// A piece of `len` bytes consumed in `state` (`marker`: a marker's text).
    fn raw_piece(&mut self, len: usize, marker: Option<&'static str>, state: u8) {
        self.settle();
        let raw = Raw { state, marker, start: self.consumed, end: self.consumed + len };
        self.consumed += len;
        if state == REASONING {
            self.reasoned = self.consumed;
            // Keep from the piece's start: a call marker that ends reasoning is content.
            let cut = raw.start - self.kept_from;
            self.kept.drain(..cut);
            self.kept_from = raw.start;
        }
        self.last_raw = Some(raw);
        self.unsettled = Some(raw);
    }

    /// The last piece, now that the state after it is known: tool markup (read in a tool
    /// state or leading into one) is kept apart (`ToolCalls.settle` under tool_choice none).
    fn settle(&mut self) {
        if let Some(raw) = self.unsettled.take() {
            if !self.over && (TOOL_STATES.contains(&raw.state) || TOOL_STATES.contains(&self.state)) {
                let from = raw.start - self.kept_from;
                let piece = &self.kept[from..from + (raw.end - raw.start)];
                self.markup.push_str(piece);
            }
        }
    }

    // -- events, as the assembly reads them (ChatParser._push) -----------------------

    /// Reasoning is over by content or a call: the content starts where reasoning's last
    /// piece ended, or at the marker that ended it implicitly (content itself).
    fn ends_reasoning(&mut self) {
        let at = self.content_start(false);
        self.end_phase(at);
    }

    /// Where the content starts once reasoning is over (`ChatParser._over`): after the
    /// last piece read in reasoning, unless that piece is a marker that ended it
    /// implicitly (any but an end marker's REASONING_END).
    fn content_start(&self, reasoning_end: bool) -> usize {
        match self.last_raw {
            Some(Raw { state: REASONING, marker: Some(marker), start, end })
                if !(reasoning_end && self.fmt.reasoning.end.contains(&marker)) =>
            {
                self.reasoned - (end - start)
            }
            _ => self.reasoned,
        }
    }

    fn end_phase(&mut self, at: usize) {
        self.over = true;
        let from = at.saturating_sub(self.kept_from).min(self.kept.len());
        let content = self.kept[from..].to_string();
        self.out.push_content(&content);
        self.kept.clear();
        self.pending.clear();
        self.markup.clear();
    }

    fn event_reasoning(&mut self, text: &str) {
        let piece = self.reasoning.piece(text);
        self.out.push_reasoning(&piece);
    }

    /// Reasoning is over (`closed`: by a marker, not by the end of the stream).
    fn end_reasoning(&mut self, closed: bool) {
        let rest = self.reasoning.end(closed);
        self.out.push_reasoning(&rest);
    }

    fn event_reasoning_end(&mut self, value: &str) {
        let at = self.content_start(true);
        self.end_reasoning(!value.is_empty());
        self.end_phase(at);
    }
}

/// `base` with `more` merged in as a Python dict update: a key keeps its place.
fn merge(base: &mut Vec<(&'static str, &'static str)>, more: &[(&'static str, &'static str)]) {
    for &(lit, name) in more {
        match base.iter_mut().find(|(l, _)| *l == lit) {
            Some(entry) => entry.1 = name,
            None => base.push((lit, name)),
        }
    }
}

