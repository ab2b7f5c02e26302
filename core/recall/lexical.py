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

import math
import re
import unicodedata
from array import array
from collections import Counter
from functools import lru_cache
from typing import Iterable

import numpy as np

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
# Where accents are folded away: non-ASCII runs outside hangul and kana. ASCII needs no folding, and
# every ASCII character is a starter (combining class 0), so cutting the text at ASCII changes no
# decomposition: the result is the same as folding the whole run, at a fraction of the work.
_SPACED_RE = re.compile(rf"[^\x00-\x7f{CJK_RANGES}]+")

STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have he her hers him his how i
    if in into is it its me my of on or our she so than that the their them then there these they this to too
    us was we were what when where which who whom why will with would you your yours am just about after
    before did does doing during each few further here more most nor not only other own same should some such
    through under until up very s t don now ll ve re d m o y""".split()
)


def _strip_marks(m: re.Match) -> str:
    run = m.group()
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


class _Slots:
    """Where each document's postings live: swapped whole by a compaction, so a search that took
    one `_Slots` reads a consistent index throughout while writers go on (they only append)."""

    __slots__ = ("slot", "ids", "dl", "doc_terms", "post_slots", "post_tf")

    def __init__(self) -> None:
        self.slot: dict[str, int] = {}  # live document -> its slot
        self.ids: list[str | None] = []  # slot -> document (None: freed)
        self.dl = array("I")  # slot -> document length (0: freed)
        self.doc_terms: list[array | None] = []  # slot -> its term numbers
        self.post_slots: list[array] = []  # term number -> slots holding it (freed ones included)
        self.post_tf: list[array] = []  # term number -> count of the term in each of those slots


class BM25Index:
    """BM25 over documents added, replaced and removed one at a time, compact enough for a person
    with 200 000 indexed turns: each document is a slot, each term's postings two flat arrays
    (slots, term counts), scored with numpy. A replaced or removed document only frees its slot;
    the arrays are compacted once the free slots outnumber the live ones. Scores and ranking are
    the textbook formula's, computed in the same order as a plain loop would. Writers are one at a
    time (the recall index's lock); searches run beside them without a lock."""

    # BM25's textbook k1 and b, not fitted: k1 0.9/1.5 and b 0.5/0.9 moved LoCoMo dev R@10 by ±0.003 (bench/README.md)
    def __init__(self, k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self._g = _Slots()
        self._term: dict[str, int] = {}  # term -> term number (set last, once its arrays exist)
        self._names: list[str] = []  # term number -> term
        self._df: list[int] = []  # term number -> live documents holding it
        self._total = 0
        self._freed = 0

    def __len__(self) -> int:
        return len(self._g.slot)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._g.slot

    def add(self, doc_id: str, text: str) -> None:
        self.add_tokens(doc_id, tokenize(text))

    def add_tokens(self, doc_id: str, tokens: Iterable[str]) -> None:
        """`add` for a text already tokenized (`tokenize`), e.g. one put together from parts."""
        self.remove(doc_id)
        g = self._g
        tf = Counter(tokens)
        slot = len(g.ids)
        terms = array("I")
        for term, n in tf.items():
            t = self._term.get(term)
            if t is None:
                t = len(self._names)
                self._names.append(term)
                g.post_slots.append(array("I"))
                g.post_tf.append(array("I"))
                self._df.append(0)
                self._term[term] = t
            g.post_slots[t].append(slot)
            g.post_tf[t].append(n)
            self._df[t] += 1
            terms.append(t)
        length = sum(tf.values())
        g.ids.append(doc_id)
        g.dl.append(length)
        g.doc_terms.append(terms)
        g.slot[doc_id] = slot  # last: a search sees the document once all of it is there
        self._total += length

    def remove(self, doc_id: str) -> None:
        g = self._g
        slot = g.slot.pop(doc_id, None)
        if slot is None:
            return
        self._total -= g.dl[slot]
        for t in g.doc_terms[slot]:  # type: ignore[union-attr]
            self._df[t] -= 1
        g.ids[slot], g.dl[slot], g.doc_terms[slot] = None, 0, None
        self._freed += 1
        if self._freed > 1024 and self._freed > len(g.slot):
            self._compact()

    def _compact(self) -> None:
        """Drop freed slots from every posting and renumber the live ones in order, into a new
        `_Slots` swapped in with one assignment."""
        old, new = self._g, _Slots()
        live = np.array([i is not None for i in old.ids], dtype=bool)
        renumber = np.cumsum(live, dtype=np.int64) - 1
        for slots, tfs in zip(old.post_slots, old.post_tf):
            sl = np.frombuffer(slots.tobytes(), dtype=np.uint32)
            keep = live[sl]
            new.post_slots.append(array("I", renumber[sl[keep]].astype(np.uint32).tobytes()))
            new.post_tf.append(array("I", np.frombuffer(tfs.tobytes(), dtype=np.uint32)[keep].tobytes()))
        new.ids = [i for i in old.ids if i is not None]
        new.dl = array("I", (n for n, i in zip(old.dl, old.ids) if i is not None))
        new.doc_terms = [d for d in old.doc_terms if d is not None]
        new.slot = {d: i for i, d in enumerate(new.ids)}
        self._g = new
        self._freed = 0

    def terms(self, doc_id: str) -> dict[str, int]:
        """A document's terms and their counts, as indexed (empty when it is not)."""
        g = self._g
        slot = g.slot.get(doc_id)
        if slot is None:
            return {}
        return {self._names[t]: g.post_tf[t][g.post_slots[t].index(slot)] for t in g.doc_terms[slot]}  # type: ignore[union-attr]

    def add_many(self, docs: Iterable[tuple[str, str]]) -> None:
        for doc_id, text in docs:
            self.add(doc_id, text)

    def _idf(self, t: int | None, n: int) -> float | None:
        """A term's IDF by its number, among n live documents; None for a term no document holds."""
        if t is None or not self._df[t]:
            return None
        df = self._df[t]
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def idf_weights(self, query: str) -> dict[str, float]:
        """The query's distinct terms and their IDF here; a term no document holds weighs as much
        as the rarest one could. Empty for an empty index."""
        n = len(self._g.slot)
        if not n:
            return {}
        unseen = math.log(1 + (n + 0.5) / 0.5)
        return {t: w if (w := self._idf(self._term.get(t), n)) is not None else unseen for t in set(tokenize(query))}

    def coverage(self, query: str, doc_ids: Iterable[str]) -> dict[str, float]:
        """For each document, the share of the query's IDF weight that its words cover: 1.0 when it
        holds every query word, near 0 when it shares only common ones. Unlike a BM25 score this is
        comparable across queries and users, so it can say "nothing here is about this" (a word
        the index has never seen weighs as much as the rarest one).

        A document that meets a query of several words on one word only covers nothing: one shared
        word is chance ("Who discovered penicillin?" meets "discovering fun places" on "discover").
        A one-word query is covered by that word."""
        g = self._g
        idf = self.idf_weights(query)
        if not len(g.slot) or not idf:
            return {d: 0.0 for d in doc_ids}
        terms = idf.keys()
        total = sum(idf.values())
        need = min(2, len(terms))
        out = {}
        for d in doc_ids:
            slot = g.slot.get(d)
            held = (g.doc_terms[slot] if slot is not None and slot < len(g.doc_terms) else None) or ()
            met = [w for t, w in idf.items() if (no := self._term.get(t)) is not None and no in held]
            out[d] = sum(met) / total if len(met) >= need else 0.0
        return out

    def search(self, query: str, k: int, allowed: set[str] | None = None) -> list[tuple[str, float]]:
        g = self._g  # one consistent view: writers only append to it, or swap in a new one
        n = len(g.slot)
        if not n or k <= 0:
            return []
        avgdl = self._total / n
        ids = g.ids
        dl = np.frombuffer(g.dl.tobytes(), dtype=np.uint32).astype(np.float64)
        scores = np.zeros(len(dl))
        hit = np.zeros(len(dl), dtype=bool)
        for term in Counter(tokenize(query)):
            t = self._term.get(term)
            idf = self._idf(t, n)
            if idf is None or t >= len(g.post_slots) or t >= len(g.post_tf):
                continue
            slots = np.frombuffer(g.post_slots[t].tobytes(), dtype=np.uint32)
            tf = np.frombuffer(g.post_tf[t].tobytes(), dtype=np.uint32)
            m = min(len(slots), len(tf))
            slots, tf = slots[:m], tf[:m].astype(np.float64)
            keep = slots < len(dl)  # appended after this view's lengths were read: not seen
            keep[keep] = dl[slots[keep]] > 0  # a freed slot: its document was replaced or removed
            slots, tf = slots[keep], tf[keep]
            d = dl[slots]
            # the textbook formula, in the order a scalar loop evaluates it (the same floats)
            scores[slots] += idf * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * d / avgdl))
            hit[slots] = True
        if allowed is not None:
            mask = np.zeros(len(dl), dtype=bool)
            mask[np.array([s for i in allowed if (s := g.slot.get(i)) is not None and s < len(dl)], dtype=np.int64)] = True
            hit &= mask
        found = np.flatnonzero(hit)
        if len(found) > k:  # the k best, ties at the k-th score kept so the order below decides them
            kth = np.partition(-scores[found], k - 1)[k - 1]
            found = found[-scores[found] <= kth]
        ranked = sorted(((ids[s], float(scores[s])) for s in found if s < len(ids) and ids[s] is not None), key=lambda kv: (-kv[1], kv[0]))
        return ranked[:k]
