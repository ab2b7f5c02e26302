"""BM25 over one user's records, with tokenization that works for Chinese and English alike.

CJK runs become character bigrams (a single character stays a unigram); other text becomes
case- and accent-folded words, lightly stemmed, minus English stop words. The index is
incremental: `add` replaces a document, `remove` drops it, so a write never forces a rebuild.
Pure: no I/O.
"""

from __future__ import annotations

import heapq
import math
import re
import unicodedata
from collections import Counter, defaultdict
from typing import Iterable

CJK_RANGES = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"  # kana, CJK ideographs, hangul
_TOKEN_RE = re.compile(rf"[{CJK_RANGES}]+|[^\W_]+", re.UNICODE)
_CJK_RE = re.compile(rf"^[{CJK_RANGES}]+$")

STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have he her hers him his how i
    if in into is it its me my of on or our she so than that the their them then there these they this to too
    us was we were what when where which who whom why will with would you your yours am just about after
    before did does doing during each few further here more most nor not only other own same should some such
    through under until up very s t don now ll ve re d m o y""".split()
)


def fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in text if not unicodedata.combining(ch))


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
