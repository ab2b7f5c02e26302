"""The lexical tokenizer on mixed scripts: one script per run, and every caller sees the same tokens."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from core.forgetting import says, words_of
from core.recall.fusion import Candidate, dedup
from core.recall.lexical import BM25Index, tokenize
from core.recall.relevance import covered_by, is_cjk

CASES = [
    # a Latin word never swallows the Chinese after or before it
    ("Lisa和家人一起装饰圣诞树", ["lisa", "和家", "家人", "人一", "一起", "起装", "装饰", "饰圣", "圣诞", "诞树"]),
    ("我用iPhone拍照", ["我用", "iphone", "拍照"]),
    ("买了MacBook Pro很开心", ["买了", "macbook", "pro", "很开", "开心"]),
    ("Python3.11版本", ["python3", "11", "版本"]),
    # full-width forms are their ASCII selves (NFKC); full-width punctuation separates
    ("ｉＰｈｏｎｅ１５很好", ["iphone15", "很好"]),
    ("ＡＢＣ和ｄｅｆ", ["abc", "和", "def"]),
    ("你好，世界！", ["你好", "世界"]),
    # Japanese: Han, hiragana and katakana each their own run; half-width katakana widened; voicing marks kept
    ("東京タワーに行きました", ["東京", "タワ", "ワー", "に", "行", "きま", "まし", "した"]),
    ("ｶﾀｶﾅ", ["カタ", "タカ", "カナ"]),
    ("がぎ", ["がぎ"]),
    ("ミュージック・ビデオ", ["ミュ", "ュー", "ージ", "ジッ", "ック", "ビデ", "デオ"]),
    ("Sonyのカメラ", ["sony", "の", "カメ", "メラ"]),
    # Korean: hangul syllables stay whole (no decomposition into jamo), bigrammed per word
    ("저는 서울에 살아요", ["저는", "서울", "울에", "살아", "아요"]),
    ("Samsung폰", ["samsung", "폰"]),
    # emoji: one token each (a skin-tone modifier is not a token)
    ("我爱🍕", ["我爱", "🍕"]),
    ("great job 👍🏽", ["great", "job", "👍"]),
    ("pizza🍕night", ["pizza", "🍕", "night"]),
    # Latin as before: case, accents, stop words, light stemming
    ("Café naïve résumé", ["cafe", "naive", "resume"]),
    ("I am playing badminton on Tuesdays", ["play", "badminton", "tuesday"]),
    ("中", ["中"]),
    ("", []),
    ("・！？", []),
]


@pytest.mark.parametrize(("text", "tokens"), CASES, ids=[c[0] or "empty" for c in CASES])
def test_tokenize_keeps_each_script_in_its_own_runs(text, tokens):
    assert tokenize(text) == tokens


def test_indexed_text_and_query_meet_on_mixed_script_words():
    idx = BM25Index()
    idx.add("m1", "Lisa和家人一起装饰圣诞树，感到非常开心")
    idx.add("m2", "我用iPhone拍照")
    idx.add("m3", "周末去公园跑步")
    assert idx.search("Lisa在做什么", 3)[0][0] == "m1"  # the name alone finds her memory
    assert idx.search("我的ｉｐｈｏｎｅ", 3)[0][0] == "m2"  # full-width query, ASCII memory
    assert idx.coverage("iPhone拍照", ["m2"])["m2"] == pytest.approx(1.0)


def _c(i: str, text: str, source: str = "memory") -> Candidate:
    return Candidate(id=i, text=text, source=source, created_at=datetime(2026, 1, 1, tzinfo=timezone.utc), kind="fact")


def test_callers_see_the_split_dedup_coverage_and_forget():
    # dedup: the same sentence in full-width and ASCII is one item
    assert [c.id for c in dedup([_c("a", "我用iPhone拍照"), _c("b", "我用ｉＰｈｏｎｅ拍照")])] == ["a"]
    # a turn holding a fact's words yields to it, across widths
    assert covered_by(_c("t", "我用ｉＰｈｏｎｅ拍照，很好看", "message"), _c("f", "我用iPhone拍照"))
    # forget matching: the brand name is a word of its own
    assert "iphone" in words_of("忘掉我用iPhone拍照")
    assert says(words_of("我用iPhone拍照"), "你说你用iPhone拍照")
    assert is_cjk("我用iPhone拍照") and not is_cjk("I took it with my iPhone 拍照")
