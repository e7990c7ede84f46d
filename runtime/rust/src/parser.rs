//! The parser type of a generated format: `ReasoningParser` over the engine.

/// Declares `$name`, the reasoning parser of the generated format `$format` (a static
/// `spec::Format`): a stream's engine behind the mirrored vLLM trait.
#[macro_export]
macro_rules! reasoning_parser {
    ($(#[$meta:meta])* $name:ident, $format:path) => {
        $(#[$meta])*
        pub struct $name {
            engine: $crate::engine::Engine,
        }

        impl $name {
            /// A parser for one stream (`thinking`: None for the format's default).
            pub fn new(tokenizer: Option<$crate::vllm::DynTokenizer>, thinking: Option<bool>) -> Self {
                Self { engine: $crate::engine::Engine::new(&$format, tokenizer, thinking) }
            }
        }

        impl $crate::vllm::ReasoningParser for $name {
            fn create(
                tokenizer: $crate::vllm::DynTokenizer,
            ) -> $crate::vllm::Result<Box<dyn $crate::vllm::ReasoningParser>>
            where
                Self: Sized + 'static,
            {
                Ok(Box::new(Self::new(Some(tokenizer), None)))
            }

            fn initialize(&mut self, prompt_token_ids: &[u32]) -> $crate::vllm::Result<()> {
                self.engine.initialize(prompt_token_ids);
                Ok(())
            }

            fn preserve_special_tokens(&self) -> bool {
                self.engine.preserve_special_tokens()
            }

            fn push(&mut self, delta: &str) -> $crate::vllm::Result<$crate::vllm::ReasoningDelta> {
                Ok(self.engine.push(delta))
            }

            fn finish(&mut self) -> $crate::vllm::Result<$crate::vllm::ReasoningDelta> {
                Ok(self.engine.finish())
            }
        }
    };
}
