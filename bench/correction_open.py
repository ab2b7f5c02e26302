"""An experiment kept out of core: acting on a turn with no correction word ("I live in Hangzhou now,
since March" against a shown "I live in Shanghai"). Measured and not adopted (bench/README.md,
Corrections): on the fifth tune round it found more (fresh3 19/44 against 6/44) but took 29 % of
fresh3's look-alikes and ordinary turns, so in real chat it would supersede more than it corrects.
Amber's hot path (core/correcting.py) looks only at turns with a marker or a handle; this module is
what `bench/corrections.py --train --open` fits and measures.
"""

from __future__ import annotations

import re
from typing import Sequence

from core.correction import (_AWAY, _CHANGE_ZH, _CONFIRM, _CONTRA, _NUMBER, _PEOPLE_EN, _PEOPLE_ZH, _QUOTED, _REPORTED,
                             _SELF_ZH, _STILL, _STRONG, _V, Correction, Shown, _about_self, _names, _statement, _topics,
                             _words, find_correction, near_correction)
from core.recall.render import HANDLE_RE
from core.correction_model import CorrectionClassifier, combine


def might_state(text: str) -> bool:
    """Cheap first look for a turn with no marker (`open_correction`): short, and not a question."""
    return bool(text) and len(text) <= 300 and not HANDLE_RE.search(text) and "?" not in text and "？" not in text




# the turn opens on someone else: "My sister lives in Hangzhou now", "我朋友现在在杭州了"
_OTHER_SUBJECT = re.compile(rf"""^\W*(?:(?:my|our|his|her)\s+)?({_PEOPLE_EN}|(?!(?:it|that|there|what|here|he|she|who|let)['’]s)[a-z]+['’]s)\b
                               (?!\s+(?:and|&)\s+(?:i|me)\b)
                             | ^\W*(?:我的?)?({_PEOPLE_ZH}|同学|表[哥弟姐妹]|老公|老婆|邻居家)""", _V)


# a plan, a wish, a question without its mark: no value held is replaced
_PLAN = re.compile(r"""\b(?:i['’]d|thinking\s+(?:of|about)|planning|planned|plan\s+to|will|going\s+to|until|want|wants|should|maybe|might)\b
                   | ['’]ll\b | 怎么|怎样|多少|几年|几个|哪个|哪些|吗|呢|打算|准备|想|要不要|下周|下个月|明天""", _V)
# an English turn that drops its "I": "Turned 35 over the summer", "Living in Chengdu these days"
# a change said in passing that a repeated name or number needs to be a new value ("Sold the Civic")
_CHANGE_EN = re.compile(r"\b(?:sold|rehomed|divorced|replaced|dropped|gave\s+away|on\s+hold|ended|over)\b", re.IGNORECASE)
_DROPPED_I = re.compile(r"^\W*(?:\w+ed|went|got|sold|took|left|quit|began|became|living|working|home['’]?s?|been|now|nowadays|these\s+days)\b", re.IGNORECASE)


def open_correction(text: str, shown: Sequence[Shown]) -> Correction | None:
    """A turn with no correction word that states a new value for what a shown item is about ("I
    live in Hangzhou now, since March" against "I live in Shanghai"; "我现在在杭州了"): it shares the
    item's topic, a word or a name and says something the item does not. Never acted on alone:
    a candidate for the classifier (core/correction_model.py) to accept when it is sure. Questions,
    requests, hypotheticals, passing moments, quotes, reported speech, confirmations and news about
    someone else stay out, as in `find_correction`; a turn that repeats the item's value without a
    change word restates it."""
    s = " ".join(text.split())
    if not s or not shown or len(s) > 300 or HANDLE_RE.search(s):
        return None
    s = " ".join(_QUOTED.sub(" ", s).split())
    if not s or _REPORTED.search(s) or _AWAY.search(s) or _PLAN.search(s) or _CONFIRM.match(s) or _STILL.search(s):
        return None
    cjk = any("\u3400" <= ch <= "\u9fff" for ch in s)
    if not cjk and not (_about_self(s) or _DROPPED_I.match(s)):
        return None
    other = _OTHER_SUBJECT.search(s)
    if other is not None:  # news about someone else corrects only an item about them
        who = (other.group(1) or other.group(2) or "").casefold().removesuffix("'s").removesuffix("’s")
        shown = [x for x in shown if who and who in x.text.casefold()]
    statement = _statement(s)
    words, names, topics = _words(statement), _names(statement), _topics(statement)
    numbers = set(_NUMBER.findall(statement))
    changed = bool(_CONTRA.search(statement) or _STRONG.search(statement) or _CHANGE_EN.search(statement) or _CHANGE_ZH.search(statement))
    best, best_score = None, 0.0
    for item in shown:
        iw, inames, inumbers = _words(item.text), _names(" " + item.text) | _words(item.text), set(_NUMBER.findall(item.text))
        shared, same_name, same_topic = words & iw, names & inames, topics & _topics(item.text)
        if not (shared or same_name or same_topic):
            continue
        if cjk and not _SELF_ZH.search(statement) and any(w + "的" in statement for w in shared | same_name):
            continue  # a thing's attributes ("北京的秋天…", "华为手机的系统…"), not the person's
        new = (words - iw) | (names - inames) | (numbers - inumbers)
        repeats = bool(same_name or (numbers & inumbers))
        if not new or (repeats and not changed):
            return None  # the turn says again what an item holds: it agrees with what is shown
        score = 2.0 * len(same_name) + len(shared) + 0.5 * len(same_topic)
        if score > best_score:
            best, best_score = item, score
    return Correction(best, "supersede", statement) if best is not None else None


def combine_open(text: str, shown: Sequence[Shown], score: float | None, model: CorrectionClassifier | None,
                 open_at: float | None) -> Correction | None:
    """`combine`, then, for a turn neither the grammar nor a near miss takes, `open_correction`
    when the classifier scores the turn at or above `open_at` (None: never)."""
    found = combine(text, shown, score, model)
    if found is not None or open_at is None or score is None or score < open_at:
        return found
    if find_correction(text, shown) is not None or near_correction(text, shown) is not None:
        return None  # the grammar's or the rescue's to decide, and they did
    return open_correction(text, shown)
