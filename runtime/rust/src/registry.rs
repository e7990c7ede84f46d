//! Which format parses a model: the generated patterns, decided as `parsergen/routing.py`
//! decides (the most specific matches win; ambiguous names route nowhere).

use fancy_regex::Regex;

use crate::spec::ModelPattern;

const NUMBER: &str = r"(?<![\d.])(\d+(?:\.\d+)*)(?!\.?\d)";

type Version = Vec<u64>;

/// `"3.5"` as `[3, 5]`, trailing zeros dropped.
fn version(text: &str) -> Version {
    let mut parts: Version = text.split('.').map(|p| p.parse().unwrap_or(0)).collect();
    while parts.len() > 1 && parts.last() == Some(&0) {
        parts.pop();
    }
    parts
}

fn cmp(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    let n = a.len().max(b.len());
    let at = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0);
    (0..n).map(|i| at(a, i).cmp(&at(b, i))).find(|o| o.is_ne()).unwrap_or(std::cmp::Ordering::Equal)
}

/// One compiled pattern: its literal parts, version ranges and regex.
struct Compiled {
    regex: Regex,
    ranges: Vec<(Option<Version>, Option<Version>)>,
    literal_length: usize,
}

impl Compiled {
    fn new(text: &str) -> Compiled {
        let mut literals = vec![String::new()];
        let mut ranges = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            let close = rest[open..].find('}').map_or(rest.len(), |c| open + c);
            literals.last_mut().unwrap().push_str(&rest[..open]);
            let (mut low, mut high) = (None, None);
            for bound in rest[open + 1..close].split(',').map(str::trim).filter(|b| !b.is_empty()) {
                if let Some(v) = bound.strip_prefix(">=") {
                    low = Some(version(v.trim()));
                } else if let Some(v) = bound.strip_prefix('<') {
                    high = Some(version(v.trim()));
                }
            }
            ranges.push((low, high));
            literals.push(String::new());
            rest = &rest[(close + 1).min(rest.len())..];
        }
        literals.last_mut().unwrap().push_str(rest);
        let escaped: Vec<String> = literals.iter().map(|l| fancy_regex::escape(l).into_owned()).collect();
        Compiled {
            regex: Regex::new(&escaped.join(NUMBER)).expect("an escaped pattern"),
            ranges,
            literal_length: literals.iter().map(|l| l.chars().count()).sum(),
        }
    }

    /// Every place the pattern matches `key` (overlapping ones too), in characters.
    fn spans(&self, key: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut pos = 0;
        while pos <= key.len() {
            let Ok(Some(m)) = self.regex.captures_from_pos(key, pos) else { break };
            let whole = m.get(0).unwrap();
            let fits = self.ranges.iter().enumerate().all(|(i, (low, high))| {
                let v = version(m.get(i + 1).unwrap().as_str());
                low.as_ref().map_or(true, |l| cmp(&v, l).is_ge())
                    && high.as_ref().map_or(true, |h| cmp(&v, h).is_lt())
            });
            if fits {
                out.push((key[..whole.start()].chars().count(), key[..whole.end()].chars().count()));
            }
            pos = whole.start() + key[whole.start()..].chars().next().map_or(1, char::len_utf8);
        }
        out
    }
}

/// What patterns are matched against: a repo id, or a local path's last part, lowercased.
pub fn model_key(name: &str) -> String {
    let name = name.trim().trim_end_matches(['/', '\\']);
    let local = name.starts_with(['/', '.', '~']) || name.contains('\\') || name.matches('/').count() > 1;
    let key = if local { name.rsplit(['/', '\\']).next().unwrap_or(name) } else { name };
    key.to_lowercase()
}

/// The first of `patterns` that matches `model` (vLLM's registry decides so: its
/// patterns are kept most specific first).
pub fn first_match<'a>(patterns: &'a [ModelPattern], model: &str) -> Option<&'a ModelPattern> {
    let key = model_key(model);
    patterns.iter().find(|p| !Compiled::new(&p.pattern.to_lowercase()).spans(&key).is_empty())
}

/// The format of `model` and the thinking default its patterns give, or None (no pattern
/// matches, or the most specific ones name two formats or two thinking defaults).
pub fn route(patterns: &[ModelPattern], model: &str) -> Option<(&'static str, Option<bool>)> {
    let key = model_key(model);
    let compiled: Vec<(&ModelPattern, Compiled, Vec<(usize, usize)>)> = patterns
        .iter()
        .map(|p| {
            let c = Compiled::new(&p.pattern.to_lowercase());
            let spans = c.spans(&key);
            (p, c, spans)
        })
        .filter(|(_, _, spans)| !spans.is_empty())
        .collect();
    let covers = |q: &Compiled, qs: (usize, usize), p: &Compiled, ps: (usize, usize)| {
        qs.0 <= ps.0 && ps.1 <= qs.1 && (qs != ps || q.literal_length > p.literal_length)
    };
    let top: Vec<&ModelPattern> = compiled
        .iter()
        .filter(|(p, pc, pspans)| {
            !compiled.iter().any(|(q, qc, qspans)| {
                !q.pattern.eq_ignore_ascii_case(p.pattern)
                    && qspans.iter().any(|&qs| pspans.iter().any(|&ps| covers(qc, qs, pc, ps)))
            })
        })
        .map(|(p, _, _)| *p)
        .collect();
    let format = top.first()?.format;
    if top.iter().any(|p| p.format != format) {
        return None;
    }
    let mut thinking = None;
    for p in &top {
        if let Some(value) = p.thinking {
            if thinking.map_or(false, |t| t != value) {
                return None;
            }
            thinking = Some(value);
        }
    }
    Some((format, thinking))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATTERNS: &[ModelPattern] = &[
        ModelPattern { pattern: "step-3.5", format: "b", thinking: None },
        ModelPattern { pattern: "step-3", format: "a", thinking: None },
        ModelPattern { pattern: "qwen{>=3.5}", format: "c", thinking: Some(true) },
        ModelPattern { pattern: "-instruct", format: "c", thinking: Some(false) },
    ];

    #[test]
    fn the_most_specific_pattern_decides() {
        assert_eq!(route(PATTERNS, "org/Step-3.5-Flash"), Some(("b", None)));
        assert_eq!(route(PATTERNS, "step-3"), Some(("a", None)));
        assert_eq!(route(PATTERNS, "Qwen3.6-27B"), Some(("c", Some(true))));
        assert_eq!(route(PATTERNS, "qwen3-8b"), None); // (3 is below 3.5)
        assert_eq!(route(PATTERNS, "qwen3.5-instruct"), None); // (two thinking defaults)
        assert_eq!(model_key("/models/Qwen3.6-27B/"), "qwen3.6-27b");
    }
}
