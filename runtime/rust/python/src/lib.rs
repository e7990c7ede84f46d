//! `parsergen_rust`: the generated Rust reasoning parsers for Python, so the tests can
//! compare them with the Python modules and the benchmarks can time them.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use parsergen_reasoning::formats;
use parsergen_reasoning::registry;
use parsergen_reasoning::vllm::{DynTokenizer, ReasoningDelta, ReasoningParser, Tokenizer};

/// A transformers tokenizer seen through the mirrored `Tokenizer` trait: its vocabulary,
/// its special tokens (`all_special_tokens`, as the Python runtime reads them) and its
/// own `encode`/`decode` for markers spelled by several tokens.
struct PyTokenizer {
    vocab: Py<PyDict>,
    specials: HashSet<u32>,
    added: Vec<(String, u32)>,
    object: PyObject,
}

impl Tokenizer for PyTokenizer {
    fn token_to_id(&self, token: &str) -> Option<u32> {
        Python::with_gil(|py| self.vocab.as_ref(py).get_item(token).and_then(|v| v.extract().ok()))
    }

    fn is_special_id(&self, token_id: u32) -> bool {
        self.specials.contains(&token_id)
    }

    fn added_vocab(&self) -> Vec<(String, u32)> {
        self.added.clone()
    }

    fn encode(&self, text: &str) -> Vec<u32> {
        Python::with_gil(|py| {
            let kwargs = PyDict::new(py);
            kwargs.set_item("add_special_tokens", false).ok()?;
            self.object.call_method(py, "encode", (text,), Some(kwargs)).ok()?.extract(py).ok()
        })
        .unwrap_or_default()
    }

    fn decode_one(&self, token_id: u32) -> Option<String> {
        Python::with_gil(|py| {
            self.object.call_method1(py, "decode", (vec![token_id],)).ok()?.extract(py).ok()
        })
    }
}

/// A tokenizer for the Rust parsers, made once from a transformers tokenizer.
#[pyclass(name = "Tokenizer")]
struct PyTokenizerHandle {
    inner: DynTokenizer,
}

#[pymethods]
impl PyTokenizerHandle {
    #[new]
    fn new(py: Python<'_>, tokenizer: PyObject) -> PyResult<Self> {
        let vocab: Py<PyDict> = tokenizer.call_method0(py, "get_vocab")?.extract(py)?;
        let ids: Vec<u32> = tokenizer.getattr(py, "all_special_ids")?.extract(py)?;
        let texts: Vec<String> = tokenizer.getattr(py, "all_special_tokens")?.extract(py)?;
        let mut added: Vec<(String, u32)> = texts.into_iter().zip(ids.iter().copied()).collect();
        if let Ok(more) = tokenizer.call_method0(py, "get_added_vocab") {
            let more: Vec<(String, u32)> = more.as_ref(py).downcast::<PyDict>()?.items().extract()?;
            added.extend(more);
        }
        let inner = PyTokenizer { vocab, specials: ids.into_iter().collect(), added, object: tokenizer };
        Ok(Self { inner: Arc::new(inner) })
    }
}

type Split = (Option<String>, Option<String>);

fn split(delta: ReasoningDelta) -> Split {
    (delta.reasoning, delta.content)
}

fn made(name: &str, tokenizer: Option<&PyTokenizerHandle>, thinking: Option<bool>) -> PyResult<Box<dyn ReasoningParser>> {
    formats::parser(name, tokenizer.map(|t| t.inner.clone()), thinking)
        .ok_or_else(|| PyValueError::new_err(format!("no Rust reasoning parser named {name:?}")))
}

/// One stream of one format's generated Rust reasoning parser.
#[pyclass(name = "ReasoningParser")]
struct PyReasoningParser {
    inner: Box<dyn ReasoningParser>,
}

#[pymethods]
impl PyReasoningParser {
    #[new]
    #[args(tokenizer = "None", thinking = "None")]
    fn new(name: &str, tokenizer: Option<&PyTokenizerHandle>, thinking: Option<bool>) -> PyResult<Self> {
        Ok(Self { inner: made(name, tokenizer, thinking)? })
    }

    /// Start where the prompt's token ids leave the model.
    fn initialize(&mut self, prompt_token_ids: Vec<u32>) -> PyResult<()> {
        self.inner.initialize(&prompt_token_ids).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    fn preserve_special_tokens(&self) -> bool {
        self.inner.preserve_special_tokens()
    }

    /// One delta: (reasoning, content), each None when empty.
    fn push(&mut self, delta: &str) -> PyResult<Split> {
        self.inner.push(delta).map(split).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The end of the stream: (reasoning, content).
    fn finish(&mut self) -> PyResult<Split> {
        self.inner.finish().map(split).map_err(|e| PyValueError::new_err(e.to_string()))
    }
}

/// A whole stream in Rust: a new parser of `name`, initialized with the prompt's ids,
/// fed `deltas` one push each, then finished; returns (reasoning, content, the
/// nanoseconds from the first push to the end of finish, in Rust).
#[pyfunction(tokenizer = "None", thinking = "None", prompt_token_ids = "Vec::new()")]
fn run(
    name: &str,
    deltas: &PyList,
    tokenizer: Option<&PyTokenizerHandle>,
    thinking: Option<bool>,
    prompt_token_ids: Vec<u32>,
) -> PyResult<(String, String, u128)> {
    let texts: Vec<String> = deltas.extract()?;
    let mut parser = made(name, tokenizer, thinking)?;
    parser.initialize(&prompt_token_ids).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let (mut reasoning, mut content) = (String::new(), String::new());
    let started = Instant::now();
    for text in &texts {
        let delta = parser.push(text).map_err(|e| PyValueError::new_err(e.to_string()))?;
        reasoning.push_str(delta.reasoning.as_deref().unwrap_or(""));
        content.push_str(delta.content.as_deref().unwrap_or(""));
    }
    let last = parser.finish().map_err(|e| PyValueError::new_err(e.to_string()))?;
    let elapsed = started.elapsed().as_nanos();
    reasoning.push_str(last.reasoning.as_deref().unwrap_or(""));
    content.push_str(last.content.as_deref().unwrap_or(""));
    Ok((reasoning, content, elapsed))
}

/// The names (formats and aliases) that have a Rust reasoning parser.
#[pyfunction]
fn formats_with_reasoning() -> Vec<&'static str> {
    formats::FORMATS.iter().map(|f| f.name).collect()
}

/// The format the generated registry routes `model` to, and its thinking default.
#[pyfunction]
fn route(model: &str) -> Option<(&'static str, Option<bool>)> {
    registry::route(formats::MODEL_PATTERNS, model)
}

/// The format of the registry's first pattern that matches `model` (vLLM's rule).
#[pyfunction]
fn first_match(model: &str) -> Option<&'static str> {
    registry::first_match(formats::MODEL_PATTERNS, model).map(|p| p.format)
}

/// The registry's patterns in order: (pattern, format, thinking).
#[pyfunction]
fn model_patterns() -> Vec<(&'static str, &'static str, Option<bool>)> {
    formats::MODEL_PATTERNS.iter().map(|p| (p.pattern, p.format, p.thinking)).collect()
}

#[pymodule]
fn parsergen_rust(_py: Python<'_>, m: &PyModule) -> PyResult<()> {
    m.add_class::<PyTokenizerHandle>()?;
    m.add_class::<PyReasoningParser>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(formats_with_reasoning, m)?)?;
    m.add_function(wrap_pyfunction!(route, m)?)?;
    m.add_function(wrap_pyfunction!(first_match, m)?)?;
    m.add_function(wrap_pyfunction!(model_patterns, m)?)?;
    Ok(())
}
