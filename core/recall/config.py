"""RecallConfig and its named presets."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..errors import InvalidInput
from .fusion import BoostConfig


class RecallConfig(BaseModel):
    # Fold procedure per constant (issue 32): each says which one chose it, or that none did.
    k_dense: int = 40  # per dense arm. A pool depth set by hand, not fitted (fusion reads only ranks 1-40)
    k_lexical: int = 40  # per lexical arm. Set by hand, not fitted
    top_k: int = 10  # items returned by search / weighed by recall. Not fitted: the k of the R@10 every bench reports
    # Arm weights (an arm weighted 0 is not queried). mem_lexical 1.0 (was 0.5, set while the
    # tokenizer merged a memory's leading name with the Chinese after it): chosen on MADial split
    # halves (bench/recall_folds.py, seed 32), grid {0.5, 1.0}; each language's tuning half chose
    # 1.0 (held-out R@10 zh 0.779 vs 0.771 at 0.5, en 0.818 vs 0.784). msg_dense 0.8: leaving one
    # LoCoMo conversation out (bench/locomo_folds.py, grid 0.6/0.8/1.0 x rrf_k), 4 folds of 5 chose
    # it; held-out R@10 0.787. msg_lexical and mem_dense 1.0: the reference weights, not fitted.
    # mem_sentence 0.25 (the sentence arm, sentence_arm.py; with `lexical_evidence` 0 below): one
    # configuration for both MADial languages, repeated two-fold cross-validation (bench/recall_folds.py,
    # 20 halvings; grid 0/0.25/0.5/1.0 x mem_lexical x lexical_evidence): 17 of 40 tuning halves
    # picked it, and so does the whole dev split; held out zh 0.750 / en 0.812 against 0.742 / 0.785 without the arm.
    weights: dict[str, float] = Field(
        default_factory=lambda: {"mem_dense": 1.0, "mem_lexical": 1.0, "msg_dense": 0.8, "msg_lexical": 1.0, "mem_sentence": 0.25}
    )
    # RRF's k: 60 suits deep lists from many systems; with four arms cut at 40, a small k lets a
    # strong first hit of one arm compete with middling hits of two. Leaving one LoCoMo conversation
    # out (bench/locomo_folds.py, grid 5/10/20/60): every fold chose 10.
    rrf_k: int = 10
    # For a CJK query, a lexical arm is trusted in proportion to how much of the query its best hit
    # covers, in full from this share up (fusion.lexical_trust; 0 turns it off). Chosen with
    # mem_sentence above, by the same joint cross-validation: 0 (off). Before the sentence arm, zh
    # split halves (seed 32) chose 0.05; the same joint rule without the arm picks 0 on 16 halves of
    # 40 and 0.05 on 14, so 0 stands where the arm is off too. Spaced-script queries are never gated.
    lexical_evidence: float = 0.0
    # share of a turn's fused score credited to its adjacent turns (0: off). Off: 0.1 and 0.15 lost
    # R@10 on the LoCoMo dev split as a whole (bench/README.md); no fold procedure, nothing to carry
    neighbours: float = 0.0
    # Captured turns put in order after fusion by ranker.py's linear score (weights fitted leaving
    # one LoCoMo conversation out, bench/turn_ranker_fit.py). False: fusion's order.
    turn_ranker: bool = True
    # The ranker also weighs each turn's similarity by the sentence model (sentence_arm.py), beside
    # the embedder `sentence_beside` names; False: that feature reads as its mean (the fit's own
    # fallback, for the seconds before the model loads: bench/README.md, "The turn ranker").
    sentence_turns: bool = True
    include_messages: bool = True  # the episodic arm: raw turns not yet extracted
    message_window_days: float | None = None  # None: every stored message
    # the dense query is the query's last lines (turns), at most this many. Chosen on MADial dev as a
    # whole (2, 3, 4 lines and the whole dialogue; bench/README.md "Tried"), not by folds
    context_turns: int = 3
    query_max_chars: int = 600  # ... and at most this long: a bound on embedding cost, set by hand, not fitted
    min_score: float = 0.0  # fused-score floor (after boosts); off, nothing fitted
    # Abstention (relevance.py), per item: an item is injected (pinned facts aside) only when it is
    # this similar in meaning (by kind; the floor is for a person holding one record of that kind and
    # rises by floor_per_decade for every tenfold more, +floor_cjk_offset for a CJK query) or covers
    # this share of the query's IDF weight. Search, asked on purpose, does not abstain. Chosen by
    # bench/abstention.py: leave one of six prompt families out x real questions in halves (LoCoMo
    # odd/even conversations, MADial seed-32 halves, small-store cases odd/even), each kind of store
    # (1 memory, 10, MADial ~80, LoCoMo ~550 turns) kept >= 95 % served on the tuning side; these are
    # what the same rule picks on all of it (folds' picks and held-out figures: bench/README.md). Rerun
    # with the two floors of relevance.admitted (2026-12-03): the same picks but the CJK offset, 0.05 -> 0.07.
    floor_memory: float = 0.77
    floor_message: float = 0.81
    floor_lexical: float = 0.30
    floor_cjk_offset: float = 0.07
    floor_per_decade: float = 0.025
    # ... and a memory must be at least this much closer to the prompt than to the nearest prompt
    # about nobody (background.py; negative: it may be that much further; None: off). Chosen by bench/abstention.py on real questions only,
    # in halves: the strictest margin that serves every real question the floors above serve on the
    # tuning half (-0.04 on one half, -0.035 on the other, -0.04 on all); no prompt family is read.
    floor_margin: float | None = -0.04
    # A memory or turn this much closer to the prompt than to its background is evidence on its own,
    # whatever the floors above say (None: off). Chosen by bench/abstention.py, leaving each prompt
    # family out: the loosest that adds at most 0.25 points of unrelated prompts injected on the other
    # five families (0.025-0.035 by fold, 0.03 on all); no real question is read to choose it.
    floor_distinct: float | None = 0.03
    # Small talk and words to the assistant about itself (small_talk.py: a rule with no constant)
    # open only the distinct route above. False: such prompts are weighed like any other.
    floor_small_talk: bool = True
    # A question about the person's own things ("What's my daughter's name again?", small_talk.about_me)
    # has its similarity floors this much lower, with no rise for how much they hold (None: off).
    # Chosen by bench/abstention.py on a person's chats with an assistant (bench/prompts/assistant_chats.json)
    # in halves: the smallest value past which the tuning half's served share stops rising, grid 0-0.10
    # (0.03 on one half, 0.05 on the other and on all); no prompt family is read to choose it.
    floor_about_me: float | None = 0.05
    # Similarities are on each embedder's own scale: the floors hold for this one only. With any
    # other embedder recall does not abstain, until floors measured for it are set with its id here.
    floor_embedder: str = "local:multilingual-e5-small-q4"
    # The sentence arm's weight (`weights["mem_sentence"]`) was chosen beside this dense embedder: with
    # another, the arm is off until this names it.
    sentence_beside: str = "local:multilingual-e5-small-q4"
    dedup_threshold: float = 0.85  # near-duplicate cut among the top items: set by hand, not fitted
    budget_tokens: int = 600  # the default block size: a product choice, not fitted
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
