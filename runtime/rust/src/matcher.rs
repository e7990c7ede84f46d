//! Per-state literal matchers: leftmost, then longest, with hold-back of a partial marker.
//!
//! The same decisions as `runtime/lexicon.py` (`Matcher`, `relevant_closure`): a state
//! looks for its live literals and every literal that could swallow the start of one; a
//! relevant literal that is not live is plain text of the state.  Offsets are bytes
//! (Python's are characters): a literal starts on a character boundary either way.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::spec::{Variant, DROP};

/// Whether a match of `outer` can consume the first character of a match of `inner`.
pub fn can_hide(outer: &str, inner: &str) -> bool {
    if outer.chars().count() > inner.chars().count() && outer.starts_with(inner) {
        return true; // same start, the longest match wins
    }
    for (d, _) in outer.char_indices().skip(1) {
        let tail = &outer[d..];
        if tail.starts_with(inner) || inner.starts_with(tail) {
            return true;
        }
    }
    false
}

/// The literals of `universe` a matcher must see to find the `live` ones exactly.
pub fn relevant_closure(live: &[String], universe: &[String]) -> BTreeSet<String> {
    let mut relevant: BTreeSet<String> = live.iter().cloned().collect();
    let mut pending: Vec<String> = relevant.iter().cloned().collect();
    let mut rest: BTreeSet<String> =
        universe.iter().filter(|u| !relevant.contains(*u)).cloned().collect();
    while let Some(inner) = pending.pop() {
        let hiding: Vec<String> = rest.iter().filter(|o| can_hide(o, &inner)).cloned().collect();
        for outer in hiding {
            rest.remove(&outer);
            relevant.insert(outer.clone());
            pending.push(outer);
        }
    }
    relevant
}

/// One match: where it starts and ends, and its terminal (None: text of the state).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scan {
    /// A literal at `start..end`; `name` None for one that is only text here.
    Found { start: usize, end: usize, name: Option<&'static str> },
    /// No sure match: text before `hold` is plain, the rest may still be a marker.
    Hold { hold: usize },
}

/// Finds the next relevant literal of one state.
#[derive(Debug, Clone)]
pub struct Matcher {
    /// Literals, longest first (then by text): at one position the first that fits wins.
    literals: Vec<String>,
    names: Vec<Option<&'static str>>,
    /// How much of a literal the marker is (a marker with its follower text after it).
    sizes: Vec<usize>,
    first_bytes: [bool; 256],
    prefixes: BTreeSet<String>,
    reach: usize,
}

impl Matcher {
    /// A matcher of `names` (literal -> terminal, None for text only) and `sizes`.
    pub fn new(
        names: &HashMap<String, Option<&'static str>>,
        sizes: &HashMap<String, usize>,
    ) -> Self {
        let mut literals: Vec<String> = names.keys().cloned().collect();
        literals.sort_by(|a, b| b.chars().count().cmp(&a.chars().count()).then(a.cmp(b)));
        let mut first_bytes = [false; 256];
        let mut prefixes = BTreeSet::new();
        for lit in &literals {
            first_bytes[lit.as_bytes()[0] as usize] = true;
            for (i, _) in lit.char_indices().skip(1) {
                prefixes.insert(lit[..i].to_string());
            }
        }
        let reach = literals.iter().map(|l| l.len()).max().unwrap_or(1) - 1;
        Matcher {
            names: literals.iter().map(|l| names[l]).collect(),
            sizes: literals.iter().map(|l| sizes.get(l).copied().unwrap_or(l.len())).collect(),
            literals,
            first_bytes,
            prefixes,
            reach,
        }
    }

    /// The first literal at or after `pos` (leftmost, then longest): (start, index).
    fn search(&self, buf: &str, pos: usize) -> Option<(usize, usize)> {
        let bytes = buf.as_bytes();
        for at in pos..bytes.len() {
            if !self.first_bytes[bytes[at] as usize] {
                continue;
            }
            let rest = &bytes[at..];
            if let Some(i) = self.literals.iter().position(|l| rest.starts_with(l.as_bytes())) {
                return Some((at, i));
            }
        }
        None
    }

    /// First index >= `pos` whose suffix may still grow into a relevant literal.
    pub fn hold_point(&self, buf: &str, pos: usize) -> usize {
        let n = buf.len();
        let bytes = buf.as_bytes();
        let mut k = n.saturating_sub(self.reach).max(pos);
        while k < n {
            if self.first_bytes[bytes[k] as usize]
                && buf.is_char_boundary(k)
                && self.prefixes.contains(&buf[k..])
            {
                return k;
            }
            k += 1;
        }
        n
    }

    /// The next match from `pos`, or where to hold (never a hold when `last`).
    pub fn scan(&self, buf: &str, pos: usize, last: bool) -> Scan {
        let found = self.search(buf, pos);
        let n = buf.len();
        if !last {
            let start = found.map_or(n, |(s, _)| s);
            if start + self.reach >= n {
                let hold = self.hold_point(buf, pos);
                if found.is_none() || start >= hold {
                    return Scan::Hold { hold };
                }
            }
        }
        match found {
            None => Scan::Hold { hold: n },
            Some((start, i)) => Scan::Found {
                start,
                end: start + self.sizes[i],
                name: self.names[i],
            },
        }
    }

    /// (length, terminal) of the longest tail of `text` that is a proper prefix of a
    /// live literal (a marker the end of the completion cut), or None.
    pub fn cut(&self, text: &str) -> Option<(usize, &'static str)> {
        let n = text.len();
        for (k, _) in text.char_indices().filter(|(k, _)| *k + self.reach >= n) {
            let tail = &text[k..];
            for (i, lit) in self.literals.iter().enumerate() {
                if let Some(name) = self.names[i] {
                    if tail.len() < self.sizes[i] && lit.starts_with(tail) {
                        return Some((n - k, name));
                    }
                }
            }
        }
        None
    }

    /// Whether the matcher has no literal (its state's text is all plain).
    pub fn is_empty(&self) -> bool {
        self.literals.is_empty()
    }
}

/// The terminals with a transition in `state`.
pub fn live_names(variant: &Variant, state: u8) -> Vec<&'static str> {
    variant.live.iter().find(|(s, _)| *s == state).map_or(Vec::new(), |(_, n)| n.to_vec())
}

/// Per-state matchers in text mode (`Lexicon.matchers(drops, resolved, strict=False)`).
pub fn build_matchers(variant: &Variant, drop_texts: &[String]) -> Vec<Matcher> {
    let mut by_name: HashMap<&str, Vec<&str>> = HashMap::new();
    for (lit, name) in variant.literals {
        by_name.entry(name).or_default().push(lit);
    }
    let followed: HashSet<&str> = variant.followed_by.iter().map(|f| f.name).collect();
    let framing = |name: &str| {
        variant.framing.iter().find(|(n, _, _)| *n == name).map(|(_, b, a)| (*b, *a))
    };
    let mut universe: Vec<String> = variant.literals.iter().map(|(l, _)| l.to_string()).collect();
    universe.extend(drop_texts.iter().cloned());
    let mut out = Vec::new();
    for state in 0..7u8 {
        let names = live_names(variant, state);
        let mut live: Vec<(String, &'static str)> = Vec::new();
        let mut sizes: HashMap<String, usize> = HashMap::new();
        let set = |live: &mut Vec<(String, &'static str)>, lit: String, name: &'static str, replace: bool| {
            match live.iter_mut().find(|(l, _)| *l == lit) {
                Some(entry) if replace => entry.1 = name,
                Some(_) => {}
                None => live.push((lit, name)),
            }
        };
        for &name in names.iter().filter(|n| !followed.contains(*n)) {
            for lit in by_name.get(name).into_iter().flatten() {
                set(&mut live, lit.to_string(), name, true);
            }
        }
        for f in variant.followed_by.iter().filter(|f| names.contains(&f.name)) {
            // The marker with each follower after it; alone it is text here.
            let mut followers: Vec<String> = variant
                .literals
                .iter()
                .filter(|(_, n)| f.names.contains(n))
                .map(|(l, _)| l.to_string())
                .collect();
            followers.extend(f.texts.iter().map(|t| t.to_string()));
            let before = framing(f.name).map_or("", |(b, _)| b);
            for lit in by_name.get(f.name).into_iter().flatten() {
                let mut framed = vec![format!("{before}{lit}")];
                if !before.is_empty() {
                    framed.push(lit.to_string());
                }
                for fr in framed {
                    for follower in &followers {
                        let key = format!("{fr}{follower}");
                        if !live.iter().any(|(l, _)| *l == key) {
                            sizes.insert(key.clone(), fr.len());
                            live.push((key, f.name));
                        }
                    }
                }
            }
        }
        for &name in names.iter().filter(|n| !followed.contains(*n)) {
            if let Some((before, after)) = framing(name) {
                for lit in by_name.get(name).into_iter().flatten() {
                    for b in [before, ""] {
                        for a in [after, ""] {
                            if !b.is_empty() || !a.is_empty() {
                                set(&mut live, format!("{b}{lit}{a}"), name, false);
                            }
                        }
                    }
                }
            }
        }
        for text in drop_texts {
            set(&mut live, text.clone(), DROP, true);
        }
        let keys: Vec<String> = live.iter().map(|(l, _)| l.clone()).collect();
        let relevant = relevant_closure(&keys, &universe);
        let names_map: HashMap<String, Option<&'static str>> = relevant
            .into_iter()
            .map(|lit| {
                let name = live.iter().find(|(l, _)| *l == lit).map(|(_, n)| *n);
                (lit, name)
            })
            .collect();
        out.push(Matcher::new(&names_map, &sizes));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(pairs: &[(&str, Option<&'static str>)]) -> Matcher {
        let names = pairs.iter().map(|(l, n)| (l.to_string(), *n)).collect();
        Matcher::new(&names, &HashMap::new())
    }

    #[test]
    fn longest_literal_wins_at_one_position() {
        let m = matcher(&[("<think>", Some("A")), ("<think>x", Some("B"))]);
        assert_eq!(
            m.scan("ab<think>xy", 0, true),
            Scan::Found { start: 2, end: 10, name: Some("B") }
        );
    }

    #[test]
    fn a_partial_marker_at_the_end_is_held() {
        let m = matcher(&[("</think>", Some("END"))]);
        assert_eq!(m.scan("reason</thi", 0, false), Scan::Hold { hold: 6 });
        assert_eq!(m.scan("reason</thi", 0, true), Scan::Hold { hold: 11 });
        // A complete marker that a longer one may still extend waits too.
        let m = matcher(&[("<a>", Some("A")), ("<a>b", Some("B"))]);
        assert_eq!(m.scan("x<a>", 0, false), Scan::Hold { hold: 1 });
    }

    #[test]
    fn offsets_are_bytes_around_multibyte_text() {
        let m = matcher(&[("<｜end｜>", Some("END"))]);
        let text = "é<｜end｜>";
        assert_eq!(m.scan(text, 0, true), Scan::Found { start: 2, end: text.len(), name: Some("END") });
        assert_eq!(m.cut("é<｜en"), Some(("<｜en".len(), "END")));
    }

    #[test]
    fn closure_keeps_literals_that_hide_a_live_one() {
        let universe = vec!["</think>".to_string(), "x</th".to_string(), "zzz".to_string()];
        let got = relevant_closure(&["</think>".to_string()], &universe);
        assert!(got.contains("x</th") && !got.contains("zzz"));
        assert!(can_hide("ab", "b") && !can_hide("ab", "c"));
    }
}
