//! Reasoning text as the assembly gives it (`runtime/assembly.py` `ChatParser`): a
//! channel header line dropped, `newline_framing`'s newline before the end marker
//! dropped, trailing whitespace held (and dropped at the end) where the format strips it.

use crate::text::rstrip;

/// The reasoning rules of one stream.
#[derive(Debug)]
pub struct ReasoningText {
    header: Option<&'static str>,
    /// Reasoning held while it may still be the header line (None: past it, or none).
    held: Option<String>,
    newline_framing: bool,
    /// A newline held at the end of reasoning: framing if the end marker follows.
    framing_nl: bool,
    strip: bool,
    /// Trailing whitespace held (`strip`).
    ws: String,
}

impl ReasoningText {
    /// The rules: a header line (`reasoning_header`), `newline_framing`, and whether
    /// trailing whitespace is stripped (`strip_trailing_reasoning_whitespace`).
    pub fn new(header: Option<&'static str>, newline_framing: bool, strip: bool) -> Self {
        ReasoningText {
            header,
            held: header.map(|_| String::new()),
            newline_framing,
            framing_nl: false,
            strip,
            ws: String::new(),
        }
    }

    /// Whether text that may be the header line is held.
    pub fn holds_header(&self) -> bool {
        self.held.as_deref().map_or(false, |h| !h.is_empty())
    }

    /// Reasoning `text`: what may go out now (`ChatParser._reasoning_piece`).
    pub fn piece(&mut self, text: &str) -> String {
        let mut text = text.to_string();
        if self.held.is_some() {
            text = self.drop_header(&text);
            if text.is_empty() {
                return text;
            }
        }
        if self.newline_framing {
            if self.framing_nl {
                text.insert(0, '\n');
            }
            self.framing_nl = text.ends_with('\n');
            if self.framing_nl {
                text.pop();
            }
            if text.is_empty() {
                return text;
            }
        }
        if !self.strip {
            return text;
        }
        let joined = std::mem::take(&mut self.ws) + &text;
        let body = rstrip(&joined).to_string();
        self.ws = joined[body.len()..].to_string();
        body
    }

    /// Hold reasoning while it may still be the header line; drop that line.
    fn drop_header(&mut self, text: &str) -> String {
        let held = self.held.take().unwrap_or_default() + text;
        let line = format!("{}\n", self.header.unwrap_or(""));
        if line.starts_with(&held) {
            self.held = Some(held);
            return String::new();
        }
        match held.strip_prefix(line.as_str()) {
            Some(rest) => rest.to_string(),
            None => held,
        }
    }

    /// Reasoning is over (`closed`: by a marker, not by the end of the stream): what
    /// still goes out (`ChatParser._end_reasoning`).
    pub fn end(&mut self, closed: bool) -> String {
        let mut out = String::new();
        if let Some(held) = self.held.take() {
            let header = self.header.unwrap_or("");
            if !held.is_empty() && held != header && held != format!("{header}\n") {
                out += &self.piece(&held);
            }
        }
        if self.framing_nl && !closed {
            // Only a newline before an end marker is framing; this one is text.
            self.newline_framing = false;
            self.framing_nl = false;
            out += &self.piece("\n");
            self.newline_framing = true;
        }
        self.ws.clear();
        self.framing_nl = false;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::ReasoningText;

    #[test]
    fn a_header_line_is_dropped_and_whitespace_held() {
        let mut r = ReasoningText::new(Some("thought"), false, true);
        assert_eq!(r.piece("thou"), "");
        assert_eq!(r.piece("ght\nhm  "), "hm");
        assert_eq!(r.piece(" ok"), "   ok");
        assert_eq!(r.end(true), "");
    }

    #[test]
    fn the_newline_before_the_end_is_framing_only_before_a_marker() {
        let mut r = ReasoningText::new(None, true, false);
        assert_eq!(r.piece("a\n"), "a");
        assert_eq!(r.end(false), "\n"); // (the stream ended: the newline was text)
        let mut r = ReasoningText::new(None, true, false);
        assert_eq!(r.piece("a\n"), "a");
        assert_eq!(r.end(true), "");
    }
}
