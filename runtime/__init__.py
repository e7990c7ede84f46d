"""parsergen's runtime: what every generated parser module imports.

Kept small and free of format names: events, token-id scanning, per-state literal
matching (the lexicon), the prompt walk, JSON argument tracking and the streaming driver.
"""

from __future__ import annotations

from .events import (
    CHUNK_EVENTS,
    DROP,
    STATE_NAMES,
    EventType,
    SemanticEvent,
    merge_chunks,
)
from .assembly import ChatParser as ChatParserBase
from .messages import DeltaMessage, DeltaToolCall, ParsedMessage, ToolCall, accumulate
from .render import Renderer
from .lexicon import Lexicon
from .prompt import Reasoning
from .streaming import StreamingParserBase

# Bumped whenever generated code and runtime must change together.
RUNTIME_VERSION = 2  # 2: Lexicon without skip_in_token_id_mode


def require_runtime(version: int) -> None:
    """Called by generated modules at import: fail early on a runtime mismatch."""
    if version != RUNTIME_VERSION:
        raise ImportError(
            f"this module was generated for parsergen runtime {version}, but the "
            f"installed runtime is {RUNTIME_VERSION}: run 'parsergen build' again"
        )


__all__ = [
    "CHUNK_EVENTS",
    "DROP",
    "RUNTIME_VERSION",
    "STATE_NAMES",
    "ChatParserBase",
    "DeltaMessage",
    "DeltaToolCall",
    "EventType",
    "Lexicon",
    "ParsedMessage",
    "Reasoning",
    "Renderer",
    "SemanticEvent",
    "StreamingParserBase",
    "ToolCall",
    "accumulate",
    "merge_chunks",
    "require_runtime",
]
