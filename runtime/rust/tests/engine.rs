//! The shared engine driven through generated formats: held markers, the prompt walk,
//! where content starts, newline framing, dropped special tokens (the Python tests
//! compare every format with its Python module; these pin the engine's own cases).
use std::sync::Arc;

use parsergen_reasoning::engine::Engine;
use parsergen_reasoning::formats::{mistral_reasoning, qwen3, step3p5_reasoning, think_reasoning};
use parsergen_reasoning::spec::Format;
use parsergen_reasoning::vllm::{ReasoningDelta, Tokenizer};

/// `<think>` = 1, `</think>` = 2, `<|im_start|>` = 3 (a special turn boundary).
struct Ids;

impl Tokenizer for Ids {
    fn token_to_id(&self, token: &str) -> Option<u32> {
        match token {
            "<think>" => Some(1),
            "</think>" => Some(2),
            "<|im_start|>" => Some(3),
            _ => None,
        }
    }
    fn is_special_id(&self, id: u32) -> bool {
        id == 3
    }
    fn added_vocab(&self) -> Vec<(String, u32)> {
        vec![("<|im_start|>".to_string(), 3)]
    }
}

fn split(fmt: &'static Format, prompt: &[u32], deltas: &[&str]) -> (String, String) {
    let mut engine = Engine::new(fmt, Some(Arc::new(Ids)), None);
    engine.initialize(prompt);
    let mut all = ReasoningDelta::default();
    let mut got: Vec<ReasoningDelta> = deltas.iter().map(|d| engine.push(d)).collect();
    got.push(engine.finish());
    for delta in got {
        all.push_reasoning(delta.reasoning.as_deref().unwrap_or(""));
        all.push_content(delta.content.as_deref().unwrap_or(""));
    }
    (all.reasoning.unwrap_or_default(), all.content.unwrap_or_default())
}

#[test]
fn a_marker_split_over_deltas_is_held_then_read() {
    let got = split(&think_reasoning::FORMAT, &[], &["reason</th", "ink>answer"]);
    assert_eq!(got, ("reason".into(), "answer".into()));
    let mut engine = Engine::new(&think_reasoning::FORMAT, None, None);
    assert_eq!(engine.push("a</thi").reasoning.as_deref(), Some("a"));
}

#[test]
fn the_prompt_decides_where_the_completion_starts() {
    // After <think>: reasoning; after </think>: content, where </think> again is a marker.
    assert_eq!(split(&qwen3::FORMAT, &[1], &["r</think>c"]), ("r".into(), "c".into()));
    assert_eq!(split(&qwen3::FORMAT, &[2], &["</think>c"]), ("".into(), "</think>c".into()));
    // Neither, up to a special token: content, where a first <think> opens reasoning.
    assert_eq!(split(&qwen3::FORMAT, &[1, 3, 7], &["<think>r</think>c"]), ("r".into(), "c".into()));
    assert_eq!(split(&qwen3::FORMAT, &[1, 3, 7], &["c<think>"]), ("".into(), "c<think>".into()));
}

#[test]
fn content_is_the_text_from_where_reasoning_ended_as_it_came() {
    // A call's start ends reasoning and is content itself (qwen3's <tool_call>).
    let got = split(&qwen3::FORMAT, &[1], &["r <tool_call>\n<function=f>"]);
    assert_eq!(got, ("r ".into(), "<tool_call>\n<function=f>".into()));
    // ... once what follows it shows, over deltas too.
    let got = split(&qwen3::FORMAT, &[1], &["r <tool_call>", "\n", "<func", "tion=f>"]);
    assert_eq!(got, ("r ".into(), "<tool_call>\n<function=f>".into()));
}

#[test]
fn a_call_marker_quoted_in_reasoning_is_reasoning() {
    // Words, not the markup the render writes after it, follow: reasoning text.
    let got = split(&qwen3::FORMAT, &[1], &["I wrap calls in <tool_call> tags.</think>Answer."]);
    assert_eq!(got, ("I wrap calls in <tool_call> tags.".into(), "Answer.".into()));
    let got = split(&qwen3::FORMAT, &[1], &["in <tool_call>", " ", "tags.</think>A"]);
    assert_eq!(got, ("in <tool_call> tags.".into(), "A".into()));
}

#[test]
fn newline_framing_drops_the_newline_before_the_end_marker() {
    let got = split(&step3p5_reasoning::FORMAT, &[], &["a\n", "\n", "</think>", "\nb"]);
    assert_eq!(got, ("a\n".into(), "\nb".into()));
    // Reasoning cut by the end of the stream keeps its last newline.
    assert_eq!(split(&step3p5_reasoning::FORMAT, &[], &["a\n"]), ("a\n".into(), "".into()));
}

#[test]
fn a_format_that_opens_reasoning_itself_starts_in_content() {
    let got = split(&mistral_reasoning::FORMAT, &[], &["[THINK]r[/THINK]", "c"]);
    assert_eq!(got, ("r".into(), "c".into()));
    assert_eq!(split(&mistral_reasoning::FORMAT, &[], &["c[THINK]r"]), ("".into(), "c[THINK]r".into()));
}

#[test]
fn unnamed_special_tokens_are_dropped_from_reasoning() {
    let got = split(&think_reasoning::FORMAT, &[], &["a<|im_start|>b</think>c"]);
    assert_eq!(got, ("ab".into(), "c".into()));
}
#[test]
fn every_bundled_pattern_is_one_the_regex_crate_reads() {
    // The engine treats an unreadable header rule as never matching instead of panicking;
    // no bundled format may rely on that.
    for fmt in parsergen_reasoning::formats::FORMATS {
        let rules = fmt.states.iter().flat_map(|s| s.transitions.iter()).flat_map(|t| t.rules.iter());
        for pattern in rules.filter_map(|r| r.when).chain(fmt.cut_header) {
            assert!(fancy_regex::Regex::new(pattern).is_ok(), "{}: {pattern}", fmt.name);
        }
    }
}
