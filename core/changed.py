"""A change told in passing: right after an item was shown, the person says in their own words that
what it holds has changed, with no correction word and in no frame core/update.py reads:

    shown "Drives a blue Honda Civic"        turn "Where'd you dig that up? The Civic got written off
                                                    in March, I'm driving a grey Mazda 3 now."
    shown "Loves coffee, drinks three cups"  turn "Matcha every morning now, coffee makes me jittery."
    shown "我在字节跳动工作"                   turn "字节？那都是前年的事了，我现在在美团做产品。"

People push back in more ways than any list of markers holds (a blind set found the correction
grammar catching one in five). What does not vary is the shape: a sentence about the person that
says something changed (a closed class of words: "now", "these days", "any more", "no longer",
"instead", "since …", "gave up", "switched", "现在", "已经", "不再", "改成", "换了"), on the topic of a
shown memory (a word or a name shared with it, or the same topic: drink, vehicle, pet, school…),
with something the memory does not already say. That sentence and what follows it replace the item.

Never taken for one, as in the frames: a question, a plan, wish or hypothetical, a trip or a passing
moment ("right now", "this week", "出差"), an addition ("too", "also", "也"), something kept ("still",
"还在"), someone else's news (a third person the item does not name), quotes, reported speech, code
and text meant for elsewhere. Pure: no model call, no memory read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from .correction import _REPORTED, _TOPICS, Correction, Shown, _names, _topics, _words
from .recall.lexical import STOPWORDS, tokenize
from .update import _NOT_CHAT, _OTHERS, _QUOTED, _SENTENCE

_I = re.IGNORECASE
_SEASONS = (r"january|february|march|april|may|june|july|august|september|october|november|december|spring|summer|autumn|fall"
            r"|winter|christmas|new\s+year|uni|university|college|school|lockdown|covid|the\s+\w+|last\s+\w+|\d{4}|then")
# the closed class of words that say something changed
_CHANGE_EN = re.compile(
    rf"""(?<!right\s)(?<!just\s)(?<!for\s)(?<!by\s)(?<!until\s)(?<!till\s)(?<!^)(?<!^\W)\bnow\b(?!\s+and\s+then)
      | \b(?:these\s+days|nowadays|any\s*more|no\s+longer|instead|not\s+since|ever\s+since|since\s+(?:{_SEASONS})
      | switched|swapped|traded|gave\s+(?:\w+\s+)?up|given\s+(?:\w+\s+)?up|dropped|ditched|quit|stopped|outgrew
      | changed|moved|sold|got\s+rid\s+of|none\s+of\s+that|replaced|passed\s+away|died|promoted|retired|graduated
      | divorced|got\s+married|broke\s+up|split\s+up|shelved|cancell?ed|is\s+history|(?:behind|over)\s+(?:us|me)|down\s+to|back\s+to
      | no\s+more(?!\s*,?\s*no\s+less)|never\s+going\s+back|turned\s+\d{{1,3}}|parted\s+ways
      | mine(?:['’]s|\s+is|\s+are)|my\s+own|since\s+(?:i|we)\s+(?:was|were)|put\s+\w+\s+down)\b  # the person's own set apart from another's: mine's a grey Subaru""",
    _I | re.VERBOSE)
_CHANGE_ZH = re.compile(r"现在|現在|如今|早就|早已|已经|已經|不再|改成|改了|改去|改喝|改吃|换成|換成|换了|換了|转到|轉到|转去|不用[^，。,]{0,8}了"
                        r"|都[^，。,]{1,6}了|不[^，。,]{1,4}了|过去式|早过时|早不|升到|升了|升上|变[^，。,]{0,2}了|搬[近远走到去出]了?|以前的"
                        r"|就(?:\d{1,3}|[二三四五六七八九]?十[一二三四五六七八九]?)了|我自己|自己的|私人|退了|退掉|注销|离职|辞职|分手|毕业|退休|去世|卖了|戒了")
# a value put aside: "not Shanghai, Suzhou", "I'm not allergic to peanuts, it's shellfish", "不是会计"
_NOT_THAT = re.compile(r"\bnot\s+(?!just\b|only\b|even\b|sure\b|really\b|that\b|much\b|bad\b)((?:[\w'’-]+\s+){0,2}[\w'’-]+)"
                       r"|不是(?![^，。,]*的(?:问题|错|原因|事|锅))([\u3400-\u9fff]{1,6})", _I)  # not "不是华为的问题"
# not news: plans, wishes, hypotheticals, questions, a passing moment, an addition, something kept
_NOT_NEWS = re.compile(
    r"""\b(?:will|won['’]t|['’]ll|going\s+to|gonna|might|maybe|would|could|should|if|whether|hope|hoping|wish|want|wanna
      | plan|plans|planning|thinking|considering|consider|tomorrow|tonight|today|this\s+(?:week|weekend|morning|evening)
      | right\s+now|at\s+the\s+moment|for\s+now|for\s+(?:the|a|my)\s+(?:conference|trip|holiday|vacation|week|weekend|few\s+days|night)
      | visiting|trip|holiday|vacation|too(?=\s*(?:[,.!;)]|lol|haha|$)|\s*[\U0001F300-\U0001FAFF])|also|as\s+well|still|pretend|imagine|suppose|supposing|let['’]s\s+say|as\s+if|role-?play
      | story|character|dream|once|yeah\s+right|like\s+i['’]d|i['’]d|back\s+in|rental|loaner|borrow\w*|while|until|during
      | repair\w*|in\s+the\s+shop|later|jk|just\s+kidding|apparently|basically|literally|in\s+another\s+life|picture\s+this|thanks\s+to\s+you
      | longest|yet|catching\s+up|^\W*say|^\W*had\s+i|flight|landed|arrived|airport|got\s+to|more\s+and\s+more
      | in\s+(?:19|20)\d\d|as\s+a\s+(?:puppy|kitten|kid|child|baby|teenager)|when\s+(?:i|he|she|we)\s+was|translate|translation|proofread|grammar|rephrase|paraphrase|rewrite|spelling|sentence|example)\b
      | 想|打算|准备|要去|会去|可能|如果|要是|假如|下周|下个月|明天|明年|该|出差|旅游|旅行|这周|今天|今晚|也(?!太|挺|很|蛮|好)|还是|还在|仍然|依然|照样|故事|小说|梦|小时候|暂时|临时|这个月|这段时间|过完年|年后|换作|烦|😂|🤣|学到|能看|越来越|现在在[^，。,]{0,8}(?:遛|吃|喝|玩|逛|看|睡|开会|等|排队|路上|楼下)|[喝吃抽]了[一二两三四五六七八九十几\d]+[杯碗顿根个口]
      | 假设|假装|翻译|语法|造句|例句|改写|润色|(?<!好)吗|嗎|什么|怎么|是不是
      | \b(?:remind\w*|please|help\s+me)\b|\d+\s*%|(?:^|,\s*)(?:use|make|try|put|add|write|give|show|send|set|change|switch|let['’]?s)\b  # a request
      | ^\W*(?:any|anyone|recommendations?|suggestions?|ideas?|tips?)\b  # a question without its mark
      | \b(?:nearly|almost|halfway|on\s+me|stuck|waiting|sitting|having\s+my|for\s+good|in\s+peace|now\s+i\s+can|know\s+how|comfortable
      | for\s+(?:a|the)\s+(?:month|week|while|whole\s+\w+)|for\s+(?:\d+|a\s+few|several|many|two|three|four|five|six|ten)\s+(?:years?|months?|weeks?)
      | (?:have|has)n['’]t\s+changed|never\s+changed|didn['’]t\s+change|switched\s+(?:it\s+|(?:my|the)\s+\w+\s+)?(?:off|on)|\w+\s+mode
      | dropped\s+\w+\s+off|after\s+(?:the\s+)?(?:holidays?|break|weekend|\w+\s+weeks?|\w+\s+days?)|battery|tyres?|tires?|brakes?|charger)\b
      | 多少|啥|([\u4e00-\u9fff])不\1|帮我|幫我|文案|朋友圈|已经(?:到|吃|喝|睡|起|出门|下班|上车|下车|回家|回来|在路上)|放假|请假|休假|不用上班
      | 习惯|習慣|知道|现在的[^，。,]{0,6}(?:挺|很|还|蛮|真|太)|把[^，。,]{0,10}退|这两周|這兩週|这几天|這幾天|这两天|這兩天|(?<!都)毕业[一二三四五六七八九十\d]+年
      | 自己(?:做|煮|泡|冲|修)|让我|讓我|腻了|膩了|马上到|馬上到|快到了|都[^，。,]{1,6}了还|破功|不是每|不是所有""",
    _I | re.VERBOSE)
_QUESTION = re.compile(r"[?？]\s*$|^\W*(?:who|what|when|where|why|how|which|is|are|do|does|did|can|could|should|would|will|shall)\b", _I)
_CLAUSES = re.compile(r"[^,，]+[,，]*")
_LONG = 100  # characters: a sentence longer than most chat sentences (set by hand, not fitted)
_MOST = 6  # changes read from one turn: a correction says one or two things (set by hand; bounds the work on a hostile turn)


@dataclass(frozen=True)
class Told:
    """A sentence of the turn that says something changed, with the rest of the turn after it."""

    said: str  # the sentence
    rest: tuple[str, ...]  # it and the statements after it: what replaces the item (those on its topic)
    before: str = ""  # the turn before it
    put_aside: frozenset[str] = frozenset()  # with no word of change: the words a "not" or "不是" puts aside


def told(text: str) -> list[Told]:
    """The sentences of a turn that say something changed, read alone (no item). Cheap; most turns
    give none."""
    if not text or len(text) > 600 or _NOT_CHAT.search(text) or _REPORTED.search(text):
        return []
    parts = [" ".join(p.split()) for p in _SENTENCE.findall(_QUOTED.sub(" ", text))]
    # a long rambling sentence is read clause by clause: its request or wish does not veto its news
    parts = [c for p in parts for c in (_CLAUSES.findall(p) if len(p) > _LONG else [p])]
    parts = [p for p in parts if p.strip(" .,!?;，。！？；")]
    says = [not _QUESTION.search(p) and not _NOT_NEWS.search(p) for p in parts]  # statements, each part read once
    out = []
    for i, s in enumerate(parts):
        if not says[i]:
            continue
        aside = frozenset()
        if not _strong_cue(s):
            aside = frozenset(w for m in _NOT_THAT.finditer(s) for w in _loose(m.group(1) or m.group(2)))
            if not aside or _AGAIN.search(s):
                continue  # "Not Shanghai again, every memory is about Shanghai": a complaint
        rest = tuple(p for p, ok in zip(parts[i:], says[i:]) if ok)
        out.append(Told(s, rest, " ".join(parts[:i]), aside))
        if len(out) == _MOST:
            break
    return out


def _cues(s: str) -> list[re.Match]:
    """The words of change in `s`, English then Chinese."""
    return [*_CHANGE_EN.finditer(s), *_CHANGE_ZH.finditer(s)]


def _strong_cue(s: str) -> bool:
    """A word of change that is not only a verb in its plain sense: "I moved the sofa", "I stopped at the
    shop", "I dropped my phone", "我把沙发搬到阳台" move things, not the person's life."""
    return any(not (_LITERAL.match(s, m.end()) and _PLAIN_VERB.fullmatch(m.group(0))) and not (m.group(0).startswith("搬") and "把" in s[: m.start()])
               for m in _cues(s))


_PLAIN_VERB = re.compile(r"stopped|moved|dropped|changed|sold", _I)
_LITERAL = re.compile(r"\s+(?:the|a|an|my|it|at|by|into|onto|our|his|her|their|them|up|off|in)\b", _I)  # "moved the car", "dropped my phone"


def change_of(tolds: Sequence[Told], shown: Sequence[Shown]) -> Correction | None:
    """The shown memory a sentence of `tolds` changes, as a supersede with the person's words, or None.
    The memory must be the sentence's one best match: a name or word shared with it, or its topic."""
    for t in tolds:
        best, score, tie = None, 0.0, False
        for item in shown:
            if item.source != "memory":
                continue  # a captured turn is the conversation's, not a fact to replace
            aside = t.put_aside & _loose(item.text) - _PREDICATES  # the value put aside is the item's: that is the evidence
            s = _score(t.said, item.text, t.before, aside) if aside or not t.put_aside else 0.0
            if s > score:
                best, score, tie = item, s, False
            elif s == score and s > 0:
                tie = True
        if best is not None and not tie:
            return Correction(best, "supersede", _statement(t, best.text))
    return None


def _statement(t: Told, item: str) -> str:
    """The change and the statements after it that stay on the item's topic ("Matcha now. Work has been
    mad, my boss quit." keeps "Matcha now.")."""
    on = _topics(item) | _topics(t.said)
    keep = [t.said] + [p for p in t.rest[1:] if _topics(p) & on or _words(p) & (_words(item) | _words(t.said))]
    return " ".join(keep).strip()


def _score(sentence: str, item: str, before: str = "", aside: frozenset[str] = frozenset()) -> float:
    """How surely `sentence` is about `item` and says something new of it; 0 when it is not. Read in
    the clause that says the change ("Acme announced layoffs, I'm nervous now": "I'm nervous now"
    says nothing of Acme)."""
    said = sentence if aside or _OWN.search(sentence) else _cue_clause(sentence)
    words_s, words_i = _words(said), _words(item)
    echo = before if len(before) <= 40 and _QUESTION.search(before) or len(before) <= 20 else ""  # "Acme? …", "barclays lol. …"
    # a relative's word or the topic "family" alone is no evidence: "my sister got promoted" says nothing of "My sister is called Lan"
    shared = (words_s | _words(echo)) & words_i - _RELATIVES | aside
    topic = _topics(said + " " + echo) & _topics(item) - {"family", "name"}
    named = {n for n in _item_names(item) if re.search(rf"\b{re.escape(n)}\b", said, _I)}
    news = (_words(sentence) - words_i - _CHANGE_WORDS - _FILLERS) or set(re.findall(r"\d+", sentence)) - set(re.findall(r"\d+", item))
    if not (shared or topic or named) or not news:
        return 0.0  # another topic, or nothing the item does not already say (a restatement)
    if "allergy" in _topics(item) and not (aside or _OUTGREW.search(sentence)):
        return 0.0  # a new allergy is one more, not the old one gone ("I'm allergic to cats now" beside peanuts)
    whose = _whose(said, item, named, before, contrast=bool(aside))
    if not whose or _to_itself(said, item) or _held_since(said, item) or ((whose == "own" or _OWN.search(said)) and not (named or topic)):
        return 0.0  # set apart from another's, the item must be named or its topic said ("the blue jacket is hers" is not the car)
    # the change's own words may name the topic ("搬出来", "quit the band"): that breaks a tie between two items
    cue = _topics(" ".join(m.group(0) for m in _cues(said))) & _topics(item)
    return 2.0 * len(named) + len(shared) + 0.5 * len(topic) + 0.25 * len(cue)


def _cue_clause(sentence: str) -> str:
    """The clause of `sentence` (between commas) with its first word of change, or the sentence."""
    clauses = _CLAUSES.findall(sentence)
    if len(clauses) < 2:
        return sentence
    return next((c for c in clauses if _strong_cue(c)), sentence).strip(" ,，")


def _to_itself(said: str, item: str) -> bool:
    """Whether the change is to what the item already holds ("I moved to Shanghai in 2019" beside "I
    live in Shanghai", "换成了华为" beside "用的是华为手机"): the item's words right after the change."""
    low, held = said.casefold(), _held(item)
    for m in _cues(said):
        to = _TO.match(low, m.end())
        if to is not None and any((to.group(1) or to.group(2) or "").startswith(w) for w in held):
            return True
    return False


def _held_since(said: str, item: str) -> bool:
    """"I've lived in Shanghai since 2019" beside "I live in Shanghai": "since" with the value held is how
    long it has held, not a change (when no other word of change is said)."""
    cues = [m.group(0).casefold() for m in _cues(said)]
    if not any(w in said.casefold() for w in _held(item)):
        return False
    # "since 2019", or how long it has held: "已经在字节工作三年了", "married 10 years now"
    return bool(cues) and (all("since" in c for c in cues) or _DURATION.search(said) is not None)


def _held(item: str) -> set[str]:
    """What the item holds, as a sentence would name it: its names (casefolded) and its Chinese words."""
    return {w.casefold() for w in _item_names(item)} | _cjk_words(item)


def _cjk_words(item: str) -> set[str]:
    return {w for w in _words(item) if _CJK.search(w)}


_DURATION = re.compile(r"\b\d+\s+(?:years?|months?)\b|[一二两三四五六七八九十\d]+(?:年|个月)了", _I)
_TO = re.compile(r"\s*(?:back\s+)?(?:to|into|in|at)\s+(?:the\s+|a\s+)?(\w+)|\s*(?:了|到|去|成)?([\u3400-\u9fff]{2,6})")


def _whose(said: str, item: str, named: set[str], before: str, contrast: bool = False) -> bool | str:
    """Whether the sentence is the person's news (or news of someone the item names): not a third
    person's ("my dad sold his Civic", "我同事的华为手机坏了") nor a thing's ("the gym changed its
    hours", "丰田的新车型改了设计")."""
    theirs = _THEIRS_BY_NAME.match(said)
    if theirs is not None:  # "hannah's sister just got divorced": the sister's news, unless the item is about her
        return re.search(rf"\b{re.escape(theirs.group(1))}s?\b", item, _I) is not None
    other = _OTHERS.search(said)
    if other is not None and not _NEAR_START.match(said[: other.start()]):
        other = None  # "closed that account after they lost my cheque": not who the sentence is about
    me = _ME.search(_SOMEONE.sub(lambda m: " " * len(m.group(0)), said))  # "my dad", "我同事": the dad, the colleague
    # what the sentence names of the item, where it first says it ("咪咪去年送给我姐养了": 咪咪 before 姐)
    at = [m.start() for n in named for m in [re.search(rf"\b{re.escape(n)}\b", said, _I)] if m]
    at += [i for w in _cjk_words(item) for i in [said.find(w)] if i >= 0]
    own = _OWN.search(said)
    if other is not None and own is not None and own.start() > other.start():
        return "own"  # the value given to someone else, then the person's own: "That's my brother's Civic, mine's a Fiat"
    if other is not None and other.start() < min(([me.start()] if me else [len(said)]) + at):
        # someone else comes first: their news, unless the item is about them ("Son Theo is in Year 4"),
        # by relation ("my son") or by a pronoun for a name the turn gave before ("Theo in Year 4?? He's in Year 6")
        if _who(other) in _PRONOUNS:
            return any(re.search(rf"\b{re.escape(n)}\b", before, _I) for n in _item_names(item))
        return who_in(other, item)
    mine = _MY_THING.match(said)
    if mine and any(w.casefold().startswith(mine.group(1).casefold()[:4]) for w in _item_names(item) | _words(item)) and not _ENDED.search(said):
        return False  # "My Civic is making a noise now", "我的华为手机换了个壳": a thing of the item's, not a new value
    if me is None and (_POSSESSIVE.match(said) or _ITS.search(said)):
        return False  # "Acme's office moved", "Biscuit's vet retired": a thing of the item's, not the person
    kinds = _topics(item)
    if kinds and kinds <= {"family", "pet", "name"} and (named or any(w in said for w in _cjk_words(item))):
        # a pet or person the item names, and nothing else: only an ending is news of the item
        # ("Biscuit passed away", "咪咪送回老家了"; not "Biscuit is three now", "咪咪现在每天叫我起床", "Lan got married")
        return _ENDED.search(said) is not None
    if any(re.search(rf"\b{re.escape(n)}['’]s\b", said, _I) for n in _item_names(item)):
        return False  # "I switched the Civic's tyres": a part of the item's thing
    if me is not None or (contrast and _THING.match(said) is None) or _DROPPED_I.match(said):
        return True  # the person, said or left out ("Got promoted to lead engineer", "Sold the Civic"), or the item's value put aside
    if _CJK.search(said):  # no 我: not an opinion of a state ("杭州现在太热了", "现在外卖都好辣"), nor a thing the item names
        return (_OPINION_ZH.search(said) is None and not re.match(r"[这那](?:家|个|款|种|部)", said)
                and not any(said.startswith(w) and said[len(w):].startswith("的") for w in _cjk_words(item)))
    # no I, me, my: a fragment with no verb ("Matcha every morning now", "Mandarin now"), not a thing's news
    # ("Coffee prices have gone up now", "Acme switched to Rust"), whether or not it names the item
    return _THING.match(said) is None and _VERB.search(said) is None


_ENDED = re.compile(r"\b(?:passed\s+away|passed|died|put\s+\w+\s+down|went\s+to\s+live|lives\s+with|gave\s+\w+\s+away|rehomed|broke\s+up"
                    r"|split\s+up|divorced|not\s+with|no\s+longer|any\s*more)\b|去世|走了|没了|送人|送回|送给|送走|分手|离婚|分了", _I)
_OPINION_ZH = re.compile(r"(?:太|很|真|超|特别|非常|越来越|好)(?![了的吧啊呀])[\u4e00-\u9fff]|[死疯爆炸]了")
_VERB = re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|got|gets|goes|went|gone|did|does|do|made|makes|announced|changed|stopped"
                   r"|moved|opened|closed|raised|sold|launched|updated|released|became|seems?|looks?|feels?|costs?|went|switched|quit"
                   r"|swapped|dropped|started|left|joined)\b"
                   r"|\b(?:it|that|there|he|she|what|who|everything|nothing|this)['’]s\b", _I)
# a chat sentence that leaves its "I" out opens with the verb: "Got promoted…", "Sold the Civic…", "Switched to…"
_DROPPED_I = re.compile(r"\W*(?:just\s+|finally\s+|recently\s+|also\s+)?(?:got|sold|quit|gave|went|left|moved|switched|started|took|bought|dropped"
                        r"|stopped|finished|graduated|retired|swapped|traded|ditched|joined|became|turned|been|signed|outgrew|changed)\b", _I)


def _who(other: re.Match) -> str:
    return re.sub(r"^(?:my|our|his|her|their)\s+", "", other.group(0).casefold())


def who_in(other: re.Match, item: str) -> bool:
    """Whether the item is about the person `other` names ("my son" and "Son Leo is in Year 7")."""
    who = _who(other)
    return any(re.search(rf"\b{re.escape(w)}s?\b", item, _I) for w in {who, who[:-1] if who.endswith("s") and not who.endswith("ss") else who})


_NEAR_START = re.compile(r"^\W*(?:\S+\s+){0,3}\S*$|^.{0,4}$")  # within the first four words, or four characters of Chinese
_THEIRS_BY_NAME = re.compile(
    r"^\W*(?:\S+\s+){0,3}?[A-Za-z]+['’]s\s+(partner|girlfriend|boyfriend|wife|husband|sister|brother|daughter|son|kid|mum|mom|mother"
    r"|dad|father|parent|friend|colleague|boss|cousin|aunt|uncle|flatmate|roommate)s?\b", _I)
_ITS = re.compile(r"\bits\b", _I)  # "puregym changed its hours": a thing's
_POSSESSIVE = re.compile(
    r"\W*(?:the\s+)?\w+['’]s\s+(?!(?:in|at|on|now|a|an|the|been|got|not|no|still|off|over|with|from|back|gone|going|living|working"
    r"|just|already|finally|moved|home|away|all|my|for|out|up|down|since|never|always|getting|become|became)\b)[a-z]+", _I)


def _loose(text: str) -> set[str]:
    """A text's words less stop words, every Chinese pair kept ("会计" too, which the grammar's word set drops)."""
    return set(tokenize(text)) - STOPWORDS


def _item_names(item: str) -> set[str]:
    """The item's names (Biscuit, Acme, Civic), its first word included, less plain words ("My", "Has")."""
    return {n for n in _names(" " + item) if n not in STOPWORDS and n not in _RELATIVES}


_RELATIVES = frozenset(_words("sister brother partner wife husband mother father mum mom dad daughter son kids girlfriend boyfriend "
                              "哥哥 弟弟 姐姐 妹妹 女儿 儿子 老婆 老公 女朋友 男朋友 爸爸 妈妈"))
_OWN = re.compile(r"\bmine(?:['’]s|\s+is|\s+are)\b|\bmy\s+own\b|我自己|自己的|私人", _I)
_AGAIN = re.compile(r"\bagain\b|又", _I)
# words that say what kind of thing a value is, not the value: "not allergic to cats" puts no allergy aside
_PREDICATES = frozenset(w for words in _TOPICS.values() for w in _loose(" ".join(words)))
_OUTGREW = re.compile(r"\b(?:outgrew|grown\s+out|no\s+longer|not\s+any\s*more|any\s*more|gone|fine\s+now)\b|脱敏|不过敏|没事", _I)
_MY_THING = re.compile(r"\W*(?:my|我的)\s*([A-Za-z]+|[\u3400-\u9fff]{2})", _I)
_PRONOUNS = frozenset({"he", "she", "they", "他", "她"})
# after 我: someone of the person's, or a place of theirs that has its own news ("我发小搬到深圳了", "我们公司换了新CEO")
_KIN_ZH = (r"的?(?:哥|弟|姐|妹|爸|妈|朋友|闺蜜|同事|室友|表|堂|老婆|老公|女朋友|男朋友|发小|發小|舅|奶奶|爷爷|爺爺|外婆|外公|姥|叔|阿姨|婶|嬸"
           r"|领导|領導|上司|邻居|鄰居|老板|老闆|以前的同事)|们的?(?:公司|小区|小區|组|組|部门|部門|学校|學校|单位|單位|楼|樓)")
_SOMEONE = re.compile(rf"我(?={_KIN_ZH})|" + _OTHERS.pattern, _I)
_ME = re.compile(rf"\b(?:i|i['’](?:m|ve|d)|im|ive|my|me|mine|we|we['’](?:re|ve)|our|us)\b|我(?!{_KIN_ZH})|咱", _I)
_CJK = re.compile(r"[\u3400-\u9fff]")
_THING = re.compile(r"\W*(?:(?:no|nope|oh|well|yeah|yes|ha|haha|lol|erm|um|so|but|and|ok|okay)\W+)*"
                    r"(?:(?:the|a|an|this|that|these|those|it|its|it['’]s|there|his|her|their)\b"
                    r"|[^,]{1,20},\s*(?:the|this|that|these|those|his|her|their)\b)", _I)  # "Not quite, the meeting is…"
_FILLERS = frozenset(_words("yep yeah yes no nope lol haha ok okay less more exactly right sure"))
# the change words themselves are nothing new
_CHANGE_WORDS = frozenset(_words("now these days nowadays anymore any more no longer instead since switched swapped traded gave given up "
                                 "dropped ditched quit stopped outgrew went back changed moved sold got rid none 现在 如今 已经 不再"))
