//! Python's notion of whitespace, where the Python module strips or tests it.

/// Whether `c` is whitespace as Python's `str.isspace` says (Unicode's White_Space, and the
/// four information separators U+001C..U+001F).
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `text.rstrip()`.
pub fn rstrip(text: &str) -> &str {
    text.trim_end_matches(is_space)
}

/// `text.lstrip("\n")`.
pub fn lstrip_newlines(text: &str) -> &str {
    text.trim_start_matches('\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_pythons() {
        assert_eq!(rstrip("a \u{1f}\u{3000}\n"), "a");
        assert_eq!(rstrip("a\u{200b}"), "a\u{200b}"); // (zero width space is no space)
        assert_eq!(lstrip_newlines("\n\n a\n"), " a\n");
    }
}
