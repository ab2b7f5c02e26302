"""BM25 over one user's records, with tokenization that works for Chinese and English alike.

Text is NFKC-folded (full-width forms become ASCII), then cut into runs of one script each: Han,
Japanese kana and Korean hangul runs become character bigrams (a single character stays a
unigram), each emoji is a token, and other text becomes case- and accent-folded words, lightly
stemmed, minus English stop words. "我用iPhone拍照" is 我用 + iphone + 拍照: a Latin word never
swallows the Chinese around it. The index lives in memory, rebuilt from stored text; no
tokenised form is stored anywhere, so a change here needs no store migration. The index is
incremental: `add` replaces a document, `remove` drops it, so a write never forces a rebuild.
Pure: no I/O.
"""

from __future__ import annotations

import heapq
import math
import re
import unicodedata
from collections import Counter, defaultdict
from functools import lru_cache
from typing import Iterable

# Scripts written without spaces, each a run of its own: Han ideographs (with the compatibility
# block and extension B+), hiragana, katakana (its prolonged-sound mark included) and Korean
# hangul (syllables and jamo). A run of one script never takes in a neighbour of another:
# "Lisa和家人" is lisa + 和家人, "東京タワーに" is 東京 + タワー + に.
HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
HIRAGANA = r"\u3040-\u309f"  # mostly particles and endings: kept apart from the katakana words they follow
KATAKANA = r"\u30a0-\u30fa\u30fc-\u30ff\u31f0-\u31ff"  # not ・ (U+30FB), a word separator
KANA = HIRAGANA + KATAKANA
HANGUL = r"\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff"
CJK_RANGES = HAN + KANA + HANGUL  # every character that is bigrammed rather than split on spaces
# Pictographs and symbols (emoji) are a token each: "我爱🍕" should meet "🍕".
EMOJI = r"\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001f3fa\U0001f400-\U0001faff"  # skin-tone modifiers aside
_TOKEN_RE = re.compile(rf"[{HAN}]+|[{HIRAGANA}]+|[{KATAKANA}]+|[{HANGUL}]+|[{EMOJI}]|[^\W_{CJK_RANGES}{EMOJI}]+")
_CJK_RE = re.compile(rf"^[{CJK_RANGES}]+$")
_SPACED_RE = re.compile(rf"[^{CJK_RANGES}]+")  # where accents are folded away (never inside hangul or kana)

STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have he her hers him his how i
    if in into is it its me my of on or our she so than that the their them then there these they this to too
    us was we were what when where which who whom why will with would you your yours am just about after
    before did does doing during each few further here more most nor not only other own same should some such
    through under until up very s t don now ll ve re d m o y""".split()
)


def _strip_marks(m: re.Match) -> str:
    run = m.group()
    if run.isascii():
        return run
    return "".join(ch for ch in unicodedata.normalize("NFKD", run) if not unicodedata.combining(ch))


def fold(text: str) -> str:
    """Width, case and accents folded: NFKC first (full-width ｉＰｈｏｎｅ１５ is iphone15, half-width
    kana are kana), then accents stripped outside CJK only (NFKD would take a hangul syllable
    apart into jamo, and strip a kana's voicing mark: が is not か)."""
    return _SPACED_RE.sub(_strip_marks, unicodedata.normalize("NFKC", text).casefold())


@lru_cache(maxsize=1 << 16)  # a person's words repeat: tokenizing an import or a recall index is mostly this loop
def stem(word: str) -> str:
    """A deliberately small suffix stripper: enough to join plural/verb forms, never clever."""
    for suf, rep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("edly", ""), ("ed", ""), ("es", ""), ("s", ""), ("ly", "")):
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            if suf == "s" and word.endswith("ss"):
                return word
            return word[: len(word) - len(suf)] + rep
    return word


def tokenize(text: str) -> list[str]:
    out: list[str] = []
    for run in _TOKEN_RE.findall(fold(text)):
        if _CJK_RE.match(run):
            out.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
        elif run not in STOPWORDS:
            out.append(stem(run))
    return out


class BM25Index:
    # BM25's textbook k1 and b, not fitted: k1 0.9/1.5 and b 0.5/0.9 moved LoCoMo dev R@10 by ±0.003 (bench/README.md)
    def __init__(self, k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self._postings: dict[str, dict[str, int]] = defaultdict(dict)
        self._len: dict[str, int] = {}
        self._terms: dict[str, tuple[str, ...]] = {}
        self._total = 0

    def __len__(self) -> int:
        return len(self._len)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._len

    def add(self, doc_id: str, text: str) -> None:
        if doc_id in self._len:
            self.remove(doc_id)
        tf = Counter(tokenize(text))
        for term, n in tf.items():
            self._postings[term][doc_id] = n
        length = sum(tf.values())
        self._len[doc_id] = length
        self._terms[doc_id] = tuple(tf)
        self._total += length

    def remove(self, doc_id: str) -> None:
        length = self._len.pop(doc_id, None)
        if length is None:
            return
        self._total -= length
        for term in self._terms.pop(doc_id):
            posting = self._postings[term]
            posting.pop(doc_id, None)
            if not posting:
                del self._postings[term]

    def add_many(self, docs: Iterable[tuple[str, str]]) -> None:
        for doc_id, text in docs:
            self.add(doc_id, text)

    def coverage(self, query: str, doc_ids: Iterable[str]) -> dict[str, float]:
        """For each document, the share of the query's IDF weight that its words cover: 1.0 when it
        holds every query word, near 0 when it shares only common ones. Unlike a BM25 score this is
        comparable across queries and users, so it can say "nothing here is about this" (a word
        the index has never seen weighs as much as the rarest one).

        A document that meets a query of several words on one word only covers nothing: one shared
        word is chance ("Who discovered penicillin?" meets "discovering fun places" on "discover").
        A one-word query is covered by that word."""
        n = len(self._len)
        terms = set(tokenize(query))
        if not n or not terms:
            return {d: 0.0 for d in doc_ids}
        unseen = math.log(1 + (n + 0.5) / 0.5)
        idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) if (p := self._postings.get(t)) else unseen for t in terms}
        total = sum(idf.values())
        need = min(2, len(terms))
        out = {}
        for d in doc_ids:
            met = [w for t, w in idf.items() if d in self._postings.get(t, ())]
            out[d] = sum(met) / total if len(met) >= need else 0.0
        return out

    def search(self, query: str, k: int, allowed: set[str] | None = None) -> list[tuple[str, float]]:
        n = len(self._len)
        if not n:
            return []
        avgdl = self._total / n
        scores: dict[str, float] = defaultdict(float)
        for term, qtf in Counter(tokenize(query)).items():
            posting = self._postings.get(term)
            if not posting:
                continue
            idf = math.log(1 + (n - len(posting) + 0.5) / (len(posting) + 0.5))
            for doc_id, tf in posting.items():
                if allowed is not None and doc_id not in allowed:
                    continue
                dl = self._len[doc_id]
                scores[doc_id] += idf * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * dl / avgdl))
        # the k best without sorting every scored document (tens of thousands at 100k records)
        return heapq.nsmallest(k, scores.items(), key=lambda kv: (-kv[1], kv[0]))
