//! Where a completion starts: the prompt walk over token ids (`runtime/prompt.py`), and
//! what the parser learns from the tokenizer (`runtime/tokens.py` `tokenizer_info`).

use std::collections::{HashMap, HashSet};

use crate::spec::{Format, Variant};
use crate::vllm::Tokenizer;

/// The reasoning marker a prompt leaves the model after (`PromptReader.start_marker`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// A start marker: the completion begins inside reasoning.
    Start,
    /// An end marker: in content.
    End,
    /// The prompt was read and has neither.
    Neither,
    /// No prompt to read (no ids, or markers the tokenizer has no ids for).
    Unread,
}

/// A format's markers as one tokenizer spells them.
#[derive(Debug, Default)]
pub struct PromptIds {
    /// Id sequences of the start and of the end markers, by their last id.
    starts: HashMap<u32, Vec<Vec<u32>>>,
    ends: HashMap<u32, Vec<Vec<u32>>>,
    /// Ids a walk stops at besides special ones: turn boundaries and one-token markers.
    stops: HashSet<u32>,
    specials: HashSet<u32>,
    /// The tokenizer's special tokens the format does not name: dropped from the text.
    pub drop_texts: Vec<String>,
    /// A marker is a special token: decoding must keep special tokens.
    pub preserve: bool,
}

/// The id a token-id terminal spelled `text` matches: only an added or special token
/// (vocabulary.py's `whole_tokens`), or any vocabulary piece where the tokenizer names
/// no added tokens.  (An ordinary piece such as `>` merges with what follows it, so
/// matched by its id alone it would be missed.)
fn whole_token(tok: &dyn Tokenizer, added: &[(String, u32)], text: &str) -> Option<u32> {
    if added.is_empty() {
        return tok.token_to_id(text);
    }
    let id = tok.token_to_id(text)?;
    added.iter().any(|(t, i)| t == text && *i == id).then_some(id)
}

impl PromptIds {
    /// What `tokenizer` (if any) says of `variant`'s markers.
    pub fn new(fmt: &Format, variant: &Variant, tokenizer: Option<&dyn Tokenizer>) -> Self {
        let Some(tok) = tokenizer else {
            return PromptIds::default();
        };
        let added = tok.added_vocab();
        let mut specials: Vec<(String, u32)> =
            added.iter().filter(|(_, id)| tok.is_special_id(*id)).cloned().collect();
        specials.sort_by_key(|(_, id)| *id);
        specials.dedup();
        // Special tokens the format names (or that sit inside a spelling) stay markers.
        let mut configured: HashSet<&str> = variant.literals.iter().map(|(l, _)| *l).collect();
        configured.extend(variant.token_terminals.iter().map(|(_, t)| *t));
        configured.extend(fmt.preserve_tokens.iter().copied());
        let drop_texts = specials
            .iter()
            .filter(|(t, _)| {
                !configured.contains(t.as_str()) && !variant.literals.iter().any(|(l, _)| l.contains(t.as_str()))
            })
            .map(|(t, _)| t.clone())
            .collect();
        // The terminals the vocabulary spells: every spelling's id sequence (a terminal
        // may have several, as kimi_k3's THINK_CLOSE; vocabulary.py's token_sequences).
        let mut name_ids: Vec<(&str, Vec<u32>)> = Vec::new();
        for (text, name) in variant.literals.iter().chain(variant.at_start.iter()) {
            let ids = match tok.token_to_id(text) {
                Some(id) => vec![id],
                None => {
                    let ids = tok.encode(text);
                    let spelled: Option<String> = ids.iter().map(|&i| tok.decode_one(i)).collect();
                    if ids.len() < 2 || spelled.as_deref() != Some(*text) {
                        continue;
                    }
                    ids
                }
            };
            if !name_ids.iter().any(|(n, seq)| n == name && *seq == ids) {
                name_ids.push((name, ids));
            }
        }
        let mut preserve = false;
        // A terminal matched by its token is that token (or those), whatever its text
        // spellings say.
        let mut by_token: Vec<(&str, Vec<u32>)> = Vec::new();
        for (name, text) in variant.token_terminals {
            if let Some(id) = whole_token(tok, &added, text) {
                preserve |= tok.is_special_id(id);
                by_token.push((name, vec![id]));
            }
        }
        name_ids.retain(|(n, _)| !by_token.iter().any(|(m, _)| m == n));
        name_ids.extend(by_token);
        let seqs = |names: &[&str]| {
            let mut out: HashMap<u32, Vec<Vec<u32>>> = HashMap::new();
            for (name, ids) in &name_ids {
                if names.contains(name) {
                    out.entry(*ids.last().unwrap()).or_default().push(ids.clone());
                }
            }
            out
        };
        let mut stops: HashSet<u32> =
            fmt.turn_boundary_tokens.iter().filter_map(|t| tok.token_to_id(t)).collect();
        stops.extend(name_ids.iter().filter(|(_, ids)| ids.len() == 1).map(|(_, ids)| ids[0]));
        PromptIds {
            starts: seqs(fmt.reasoning.start),
            ends: seqs(fmt.reasoning.end),
            stops,
            specials: specials.iter().map(|(_, id)| *id).collect(),
            drop_texts,
            preserve,
        }
    }
}

/// Whether one of `seqs` ends at `ids[i]`.
fn ends_at(ids: &[u32], i: usize, seqs: &HashMap<u32, Vec<Vec<u32>>>) -> bool {
    seqs.get(&ids[i]).map_or(false, |group| {
        group.iter().any(|seq| seq.len() == 1 || (i + 1 >= seq.len() && ids[i + 1 - seq.len()..=i] == seq[..]))
    })
}

/// Walking back from the prompt's end to the last reasoning marker, stopping at a turn
/// boundary or any other special token.
pub fn walk_back(prompt: &PromptIds, ids: &[u32]) -> Found {
    if ids.is_empty() || (prompt.starts.is_empty() && prompt.ends.is_empty()) {
        return Found::Unread;
    }
    for i in (0..ids.len()).rev() {
        if ends_at(ids, i, &prompt.starts) {
            return Found::Start;
        }
        if ends_at(ids, i, &prompt.ends) {
            return Found::End;
        }
        if prompt.stops.contains(&ids[i]) || prompt.specials.contains(&ids[i]) {
            break;
        }
    }
    Found::Neither
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt() -> PromptIds {
        let mut p = PromptIds::default();
        p.starts.insert(10, vec![vec![10]]);
        p.ends.insert(12, vec![vec![11, 12]]);
        p.stops.insert(99);
        p
    }

    #[test]
    fn the_last_marker_before_a_stop_decides() {
        let p = prompt();
        assert_eq!(walk_back(&p, &[10, 5, 6]), Found::Start);
        assert_eq!(walk_back(&p, &[10, 11, 12, 5]), Found::End);
        assert_eq!(walk_back(&p, &[10, 99, 5]), Found::Neither);
        assert_eq!(walk_back(&p, &[12, 5]), Found::Neither); // (half of a two-id marker)
        assert_eq!(walk_back(&p, &[]), Found::Unread);
    }

    /// `>` = 5 is an ordinary piece, `<|im_end|>` = 7 an added one.
    struct Pieces(bool);

    impl Tokenizer for Pieces {
        fn token_to_id(&self, token: &str) -> Option<u32> {
            match token {
                ">" => Some(5),
                "<|im_end|>" => Some(7),
                _ => None,
            }
        }
        fn added_vocab(&self) -> Vec<(String, u32)> {
            if self.0 { vec![("<|im_end|>".to_string(), 7)] } else { Vec::new() }
        }
    }

    #[test]
    fn a_token_id_terminal_is_an_added_token_where_the_tokenizer_names_them() {
        let named = Pieces(true);
        assert_eq!(whole_token(&named, &named.added_vocab(), "<|im_end|>"), Some(7));
        assert_eq!(whole_token(&named, &named.added_vocab(), ">"), None);
        let unnamed = Pieces(false);
        assert_eq!(whole_token(&unnamed, &unnamed.added_vocab(), ">"), Some(5));
    }
}
