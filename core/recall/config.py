"""RecallConfig and its named presets."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..errors import InvalidInput
from .fusion import BoostConfig


class RecallConfig(BaseModel):
    k_dense: int = 40  # per dense arm
    k_lexical: int = 40  # per lexical arm
    top_k: int = 10  # items returned by search / injected by recall
    # Arm weights (an arm weighted 0 is not queried). mem_lexical 1.0 (was 0.5, set while the
    # tokenizer merged a memory's leading name with the Chinese after it): chosen on MADial split
    # halves (bench/recall_folds.py, seed 32), grid {0.5, 1.0}; each language's tuning half chose
    # 1.0 (held-out R@10 zh 0.779 vs 0.771 at 0.5, en 0.818 vs 0.784). msg_dense 0.8 and
    # msg_lexical 1.0: LoCoMo dev (turns), whole split, before folds were the rule (bench/README.md).
    weights: dict[str, float] = Field(
        default_factory=lambda: {"mem_dense": 1.0, "mem_lexical": 1.0, "msg_dense": 0.8, "msg_lexical": 1.0}
    )
    # RRF's k: 60 suits deep lists from many systems; with four arms cut at 40, a small k lets a
    # strong first hit of one arm compete with middling hits of two (LoCoMo and MADial both gain).
    rrf_k: int = 10
    # For a CJK query, a lexical arm is trusted in proportion to how much of the query its best hit
    # covers, in full from this share up (pipeline.lexical_trust; 0 turns it off). Chosen on MADial
    # zh split halves (bench/recall_folds.py, seed 32; grid 0, 0.05, 0.1, 0.2, 0.3): the tuning half
    # chose 0.05; held-out R@10 0.779 against dense 0.747 (0.30, the old value, shut the arm out:
    # 0.747). Spaced-script queries are never gated.
    lexical_evidence: float = 0.05
    neighbours: float = 0.0  # share of a turn's fused score credited to its adjacent turns (0: off)
    include_messages: bool = True  # the episodic arm: raw turns not yet extracted
    message_window_days: float | None = None  # None: every stored message
    context_turns: int = 3  # the dense query is the query's last lines (turns), at most this many
    query_max_chars: int = 600  # ... and at most this long: what was said last, at a bounded embedding cost
    min_score: float = 0.0  # fused-score floor (after boosts)
    # Abstention (relevance.py): recall injects nothing (pinned facts aside) unless one of the top
    # candidates is this similar in meaning (by kind), or covers this share of the query's IDF
    # weight. Search, asked on purpose, does not abstain. Chosen by 5-fold cross-validation on the
    # dev data (LoCoMo conversations, MADial users) with unrelated prompts: bench/README.md.
    floor_memory: float = 0.81
    floor_message: float = 0.84
    floor_lexical: float = 0.30
    floor_cjk_offset: float = 0.05
    # Similarities are on each embedder's own scale: the floors hold for this one only. With any
    # other embedder recall does not abstain, until floors measured for it are set with its id here.
    floor_embedder: str = "local:multilingual-e5-small-q4"
    dedup_threshold: float = 0.85
    budget_tokens: int = 600
    boosts: BoostConfig = Field(default_factory=BoostConfig)
    rerank: bool = False
    rerank_pool: int = 30  # how many fused items the reranker sees; top_k of them are kept
    rerank_timeout_s: float = 1.0
    compress: bool = False
    compress_timeout_s: float = 3.0
    compress_max_chars: int = 200

    model_config = {"arbitrary_types_allowed": True}


PRESETS: dict[str, RecallConfig] = {
    "fast": RecallConfig(k_dense=20, k_lexical=20, top_k=6, include_messages=False, budget_tokens=400),
    "balanced": RecallConfig(),
    "thorough": RecallConfig(k_dense=80, k_lexical=80, top_k=20, budget_tokens=1200, rerank=True),
}


def preset(name: str, **overrides) -> RecallConfig:
    if name not in PRESETS:
        raise InvalidInput("preset", f"unknown recall preset {name!r}; choose one of {', '.join(PRESETS)}")
    unknown = set(overrides) - set(RecallConfig.model_fields)
    if unknown:  # a misspelt knob would otherwise be ignored without a word
        raise InvalidInput(sorted(unknown)[0], f"not a recall setting; the settings are {', '.join(RecallConfig.model_fields)}")
    return PRESETS[name].model_copy(update=overrides)
