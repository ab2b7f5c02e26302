"""Explicit memory commands in a user's message, in English and Chinese: "remember that …",
"记住…", "forget my address", "Can you forget my passport number?", "把我的地址忘掉", "别再记着…了",
"Delete my car plate from your memory.", "don't remember that …".

One grammar for every face (they all call `parse_command`); `MemoryService.apply_commands` carries
the command out at once, without an LLM. Pure, and linear in the message's length: patterns are
anchored at the start or run on a short tail, with no nested repetition.

A command opens the message, after an optional greeting ("Hey,", "Hi Amber,", "对了，") and
politeness ("please", "could you", "I'd like you to", "请", "麻烦你", "能不能"). The subject handed
on is the thing itself, without politeness, particles ("吧", "好吗", "了"), memory words ("from your
memory", "what I told you about", "从记忆里", "关于…的记忆") or "anymore" / "for good".

Decisions (the corpus in tests/core/forget_phrasings.py holds them; bench/commands.py measures):
- A question is a command only when it asks for the act ("Can you forget …?", "能忘掉…吗",
  "…, will you?", "…好吗") and names something about the speaker; "Did you forget my birthday?",
  "Do you remember the trip?" and "Can you forget things?" are questions. "Will you forget …?"
  asks about the future; "Will you please forget …?" asks for the act.
- Forget erases for good, so it acts only on something about the speaker ("my …", "I …", "Tom's
  …", "我…") said in its first sentence: "forget it, let's move on", "Forget the train, let's
  drive", "忘记过去才能向前看" and "把他忘了吧" are not requests, and "forget my address, I moved to
  Shanghai" must not take Shanghai with it. "Delete / remove / erase / 删掉" forget only with a
  memory word: "delete the file from the repo" is about something else.
- A reminder is not a memory: "remember to buy milk", "don't forget to call mum", "记得带伞" give
  no command; "don't forget that I'm allergic to shellfish" is a remember.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import MEMORY_MAX_CHARS
from .recall.lexical import tokenize


@dataclass(frozen=True)
class Command:
    action: str  # "remember" | "forget"
    text: str


_V = re.IGNORECASE | re.VERBOSE  # in these patterns a space means nothing; \s is a space

# ---- before the verb: greetings, then politeness ---------------------------------------------

_OPENER = re.compile(
    r"""(?: (?:hey|hi|hello|dear) (?:\s+[^\W\d_]+)? \s*[,，!！]+\s*             # "Hi Amber,"
          | (?:hey|hi|hello|ok|okay|oh|so|well|actually|also|and|btw|by\s+the\s+way|sorry|um+|uh+|amber
              |one\s+more\s+thing) \b (?:\s*[,，!！.。:：;；、]+\s*|\s+)
          | (?:嗨|喂|好的|对了|對了|那个|那個|嗯|哦|另外|还有|還有|顺便说一下|順便說一下) [\s,，!！.。:：、]* )""",
    _V,
)
_POLITE = re.compile(
    r"""(?: (?P<modal>                                        # asks for the act: a question may be a request
              please|pls|plz|kindly|(?:would|do)\s+you\s+mind|(?:can|could|would)\s+(?:you|u)(?:\s+please)?
            | will\s+(?:you|u)\s+please|i['’]?d\s+like\s+you\s+to|i\s+would\s+like\s+you\s+to
            | i['’]?d\s+(?:prefer|rather)\s+(?:that\s+)?you(?:\s+to)?|i\s+(?:want|need)\s+you\s+to
            | you\s+(?:can|may|could|should|must)|feel\s+free\s+to|go\s+ahead\s+and
            | 请你|请|請你|請|麻烦你|麻烦|麻煩你|麻煩|拜托你|拜托|拜託你|拜託|求求你|求你
            | 你能不能|你可不可以|你可以|你能|能不能|可不可以|可以|能否|可否|能 )
            (?:\b|(?<=[^\x00-\x7f]))
          | just|帮我|幫我|替我|给我|給我|你要|你得|就|直接|永远|永遠|彻底|徹底|完全|以后|以後 ) [\s,，]*""",
    _V,
)

# ---- the verb ----------------------------------------------------------------------------------

_EN = re.compile(
    r"""(?: (?P<unkeep>                                       # don't remember / stop storing: a forget
              (?:don['’]?t|do\s+not|not|no\s+need\s+to|there['’]?s\s+no\s+need\s+to|stop|quit|no\s+longer
                |you\s+(?:don['’]?t|do\s+not|no\s+longer)\s+(?:need|have)\s+to
                |i\s+(?:don['’]?t|do\s+not)\s+want\s+you\s+to|i['’]?d\s+rather\s+you\s+didn['’]?t)
              \s+ (?:remember(?:ing)?|stor(?:e|ing)|record(?:ing)?
                    |keep(?:ing)?(?:\s+(?:track|a\s+record|records?|notes?)\s+of)?) )
          | (?P<keepfact> (?:don['’]?t|do\s+not|never)\s+forget (?=\s*[:：]|\s+that\b) )   # a remember
          | (?P<forget> forget|(?<=mind\s)forgetting )
          | (?P<delete> delete|remove|erase|wipe|clear|drop|purge|scratch|strike|expunge|get\s+rid\s+of|take )
          | (?P<keepmind> keep\s+in\s+mind )
          | (?P<remember> remember|memori[sz]e|note(?:\s+to\s+self)?|(?:make|take)\s+a\s+note
              | (?:save|store|put)\s+(?:this|that)\s+(?:to|in|into)\s+(?:your\s+)?memory|(?:save|store)\s+this(?=\s*[:：]) )
        ) (?=[\s:：,，]|$)""",
    _V,
)
_FORGET_ZH = "忘掉|忘记|忘了|忘記"
_DELETE_ZH = "删掉|删除|删了|抹掉|抹去|清除掉|清除|去掉|移除|刪掉|刪除|刪了"
_UNKEEP_ZH = "你?(?:别|別|不要|不用|不需要|不必|无需|無需)再?(?:继续|繼續)?(?:记着|记住|记得|记录|记|保存|存|記著|記住|記得|記錄|記)"
_FROM_MEMORY_ZH = "(?:从|從)(?:你的)?(?:记忆|記憶)(?:里面|里|中|裡)?"
_ZH = re.compile(
    rf"""(?P<unkeep> {_UNKEEP_ZH} )
       | (?P<ba> 把 )
       | (?P<frommem> {_FROM_MEMORY_ZH}(?:{_DELETE_ZH}) )
       | (?P<forget> {_FORGET_ZH} )
       | (?P<delete> {_DELETE_ZH} )
       | (?P<remember> 记住|记下来|记下|记一下|记着|记好|记得|記住|記下來|記下|記一下|記著|記得 )""",
    _V,
)
# "把我的地址(从记忆里)(都)忘掉吧": the thing comes before the verb
_BA = re.compile(
    rf"(?P<x>.+?) (?P<mem>{_FROM_MEMORY_ZH})? (?:都|全都|全部|全)? 给? (?:{_FORGET_ZH}|(?P<delete>{_DELETE_ZH})) (?P<rest>.*)",
    _V | re.DOTALL,
)
# "我的地址，忘掉吧", "我的电话号码请忘记", "我的体重，请别记着"
_TOPIC = re.compile(
    rf"(?P<x>我[^，,。！？!?\s]*?) (?:[，,]\s*(?:请|請|就)?|请|請) \s* (?:{_FORGET_ZH}|{_DELETE_ZH}|{_UNKEEP_ZH}) (?:它|掉)? (?P<rest>.*)",
    _V | re.DOTALL,
)

# ---- after the verb: where the subject ends, and what is not part of it -----------------------

_SENTENCE_END = re.compile(r"(?<![.!?。！？]) (?: [.!?。！？]+(?=\s|$) | [。！？]+ )", _V)
_ABBREVIATION = re.compile(r"(?:^|\s) (?:dr|mr|mrs|ms|st|prof|jr|sr|vs|etc|no|e\.g|i\.e) $", _V)
# "forget my address, I've moved" ends at the comma; "forget about my feelings, just answer" turns away
_CLAUSE_EN = re.compile(
    r"""(?:[,;，；]|\s[-–—]) \s*
        (?: (?P<away> let['’]?s|let\s+us|just|focus|instead|never\s+mind|moving\s+on|what|how|tell\s+me|answer|we['’]ll|we\s+will )
          | i|i['’](?:ve|m|ll|d)|we|we['’](?:re|ve)|it|it['’]s|that['’]s|this|thanks|thank|please|ok|okay|cheers
          | because|since|as|so|never|no|sorry|but|and\s+then ) \b""",
    _V,
)
_CLAUSE_ZH = re.compile(r"(?<=[^\x00-\x7f])[，；]")  # "把他忘了吧，他不值得"
_MEMORY_EN = re.compile(r"\b (?:from|out\s+of) \s+ (?:your\s+|the\s+)? (?:long[-\s]?term\s+)? (?:memory|memories|records?) \b", _V)
_MEMORY_ZH = re.compile(_FROM_MEMORY_ZH)
_LEAD_EN = re.compile(
    r"""(?: (?P<mem> (?:everything|anything|all|what)\s+(?:that\s+)?you\s+(?:know|remember|have\s+stored|stored|have|recorded)\s+about
                   | (?:your|the|any)\s+(?:memory|memories|records?)\s+(?:of|about)
                   | (?:what|anything|everything|all)\s+(?:that\s+)?i(?:['’]ve)?\s+(?:ever\s+)?(?:said|told\s+you|mentioned|shared)
                     (?:\s+earlier|\s+before)?\s+about )
          | the\s+fact\s+that|that|about|(?:everything|anything|all)\s+about
          | i\s+(?:ever\s+)?(?:said|told\s+you|mentioned|asked)(?:\s+that|\s+about)? ) (?=[\s:：]|$)""",
    _V,
)
_LEAD_ZH = re.compile(
    r"""(?P<mem> 你(?:记住|记得|記住|記得)的 )
      | 我(?:之前|以前|刚才|剛才)?(?:说过|說過|告诉过你|告訴過你|提过|提過)的?(?=.)
      | (?P<about> 关于|有关|關於|有關 ) | 都|全部|所有|再""",
    _V,
)
_ABOUT_TAIL_ZH = re.compile(r"的(?:记忆|記憶|事情|事|信息|内容|話|话)$")
# trailing punctuation, particles and politeness; matched on the last few characters only
_TAIL = re.compile(
    r"""(?: (?P<q> [?？]|吗|嗎|么|麼|呢 )
          | (?P<tag> (?:^|(?<=[\s,，]))(?:will|would|can|could|won['’]t)\s+(?:you|u) | 好吗|好嗎|好不好|行吗|行不行|可以吗|成吗 )
          | (?P<drop> [\s.。!！~～…,，;；、:：]+ | 吧|啊|呀|哦|噢|嘛|啦|哈|喔|谢谢|謝謝|谢啦|多谢
                    | (?:^|(?<=[\s,，]))(?:please|pls|plz|thanks|thank\s+you|thx|cheers|ok|okay|alright) )
          | (?P<forget> 了 | (?:^|(?<=[\s,，]))(?:now|right\s+now|anymore|any\s+more|for\s+good|forever|permanently|completely
                    |entirely|altogether|for\s+me|from\s+now\s+on|going\s+forward|if\s+(?:you\s+can|possible)|if\s+you\s+don['’]t\s+mind) )
        ) $""",
    _V,
)

# ---- what the subject must be ------------------------------------------------------------------

_SELF_EN = re.compile(
    r"\b(?:i|i['’](?:m|ve|d|ll)|my|mine|myself|we|we['’](?:re|ve|ll|d)|our|ours)\b | \b[^\W\d_]+['’]s\b | \b[^\W\d_]+s['’](?!\w)", _V
)
_CONTRACTIONS = frozenset(f"{w}{a}s" for w in ("let", "it", "that", "what", "there", "here", "he", "she", "who", "where", "how", "one") for a in "'’")
# a deictic or the whole conversation: nothing a grammar can find ("forget what I just said" needs the chat)
_NOTHING_EN = re.compile(
    r"""it|that|this|them|those|these|me|you|him|her|everything|anything|something|all|all\s+(?:of\s+)?(?:it|that|this)|it\s+all
      | things|stuff|what
      | (?:what|everything|anything|all)\s+(?:i|we)\s+(?:just\s+)?(?:said|told\s+you|asked|mentioned|wrote|typed|talked\s+about)
        (?:\s+(?:earlier|before|just\s+now|today))?
      | (?:this|that|our|the)\s+(?:whole\s+)?(?:conversation|chat|discussion|session|thread)
      | everything\s+we\s+(?:talked\s+about|discussed|said)(?:\s+today)?""",
    _V,
)
_NOTHING_ZH = frozenset(
    "它 它们 这个 那个 這個 那個 这些 那些 这件事 那件事 這件事 一切 所有 所有的 全部 所有东西 所有事 我 我们 我們 "
    "我说的 我说的话 我刚才说的 我刚才说的话 刚才的 我们的对话 这次对话 这段对话".split()
)
# "remember when we …", "remember the time …": reminiscing; "remember to …": a reminder
_NOT_A_FACT_EN = re.compile(
    r"\s+ (?:when|what|where|who|whom|how|why|whether|if|us|our|me|to|the\s+(?:time|day|night|way|moment)"
    r"|that\s+(?:time|day|night|song|place|moment|trip)) \b",
    _V,
)


# the longest turn read whole for a command: what a "remember" may keep (a memory's most) and its
# opening words. Of a longer turn (a paste) only the head is read, for a forget said in its first
# sentence, which is all a forget reads ("Forget my address. <an essay to proofread>"); reading it
# whole (NFKC can make one character eighteen) held the proxy's event loop for seconds
COMMAND_MAX_CHARS = MEMORY_MAX_CHARS + 200
FORGET_MAX_CHARS = 2000  # what a forget may name (core/forgetting.py): a longer "subject" ran into the paste


def parse_command(text: str) -> Command | None:
    """The command a user message opens with, if any: "do you remember the trip?" is a question,
    "I forgot my keys" a statement, "forget it, let's move on" a dismissal."""
    s = text.strip()
    if len(s) > COMMAND_MAX_CHARS:
        found = parse_command(s[:COMMAND_MAX_CHARS])
        return found if found is not None and found.action == "forget" and len(found.text) <= FORGET_MAX_CHARS else None
    pos, modal = _lead(s)
    found = _clause(s, pos)
    if found is None:
        return None
    action, body, needs_memory_word, needs_self = found
    subject, question, tag, memory_word = _subject(body, action)
    about_self = _about_speaker(subject)
    if question and not (modal or tag):
        return None  # "Remember the trip?"; "Did you forget …?" never got this far
    if (needs_memory_word and not memory_word) or ((needs_self or question) and not about_self):
        return None
    if _NOTHING_EN.fullmatch(subject) or subject in _NOTHING_ZH:
        return None
    if len(tokenize(subject)) < (1 if action == "forget" or about_self else 2):  # "remember pizza" is not a fact
        return None
    return Command(action, subject)


def _lead(s: str) -> tuple[int, bool]:
    """Where the verb may start, after greetings and politeness; and whether the politeness asks
    for the act ("can you", "请", "能不能"), which lets a question be a request."""
    pos, modal = 0, False
    for _ in range(8):
        m = _OPENER.match(s, pos) or _POLITE.match(s, pos)
        if not m or m.end() == pos:
            break
        modal = modal or bool(m.groupdict().get("modal"))
        pos = m.end()
    return pos, modal


def _clause(s: str, pos: int) -> tuple[str, str, bool, bool] | None:
    """The verb at `pos`: (action, the words after it, needs a memory word, must be about the speaker).
    Every forget must be about the speaker; a remember only when it says "keep in mind"."""
    m = _EN.match(s, pos)
    if m:
        body, kind = s[m.end():], m.lastgroup
        if kind == "remember":
            if _NOT_A_FACT_EN.match(body) and m.group().casefold().startswith(("remember", "memori")):
                return None
            return "remember", body, False, False
        if kind in ("keepfact", "keepmind"):
            return "remember", body, False, kind == "keepmind"
        return "forget", body, kind == "delete", True
    m = _ZH.match(s, pos)
    if m:
        body, kind = s[m.end():], m.lastgroup
        if kind == "remember":
            if m.group() in ("记得", "記得") and (not body.startswith("我") or body.startswith(("我们", "我們"))):
                return None  # "记得带伞" reminds; "记得我们…" reminisces
            return "remember", body, False, False
        if kind == "ba":
            b = _BA.match(body)
            if not b:
                return None
            marked = b.group("mem") or "记忆" in b.group("x") or "記憶" in b.group("x")
            body = b.group("x") + ("从记忆" if marked else "") + b.group("rest")  # keeps the memory word for _subject
            return "forget", body, bool(b.group("delete")), True
        return "forget", body, kind == "delete", True
    m = _TOPIC.match(s, pos)
    if m:
        return "forget", m.group("x") + m.group("rest"), False, True
    return None


def _subject(body: str, action: str) -> tuple[str, bool, bool, bool]:
    """The thing named; whether it was asked as a question; whether a tag asked for the act ("…,
    will you?", "好吗"); whether a memory word named it ("from your memory", "从记忆里")."""
    question, first = False, len(body)
    for m in _SENTENCE_END.finditer(body):  # the first sentence says whether it is a question
        if not _ABBREVIATION.search(body, max(0, m.start() - 6), m.start()):
            question, first = any(c in "?？" for c in m.group()), m.start()
            break
    if action == "forget":  # only the first sentence, and only up to a clause about something else
        body = body[:first]
        m = _CLAUSE_EN.search(body) or _CLAUSE_ZH.search(body)
        if m and m.re is _CLAUSE_EN and m.group("away"):
            return "", question, False, False  # "forget about my feelings, just answer the question"
        if m:
            body = body[: m.start()]
    text, memory_word = _MEMORY_EN.subn(" ", body)
    text, n = _MEMORY_ZH.subn("", text)
    memory_word += n
    text, q, tag = _tail(text, action)
    if action == "remember":
        text = re.sub(r"^that\s+", "", text, flags=re.IGNORECASE)
    for _ in range(4 if action == "forget" else 0):  # "that", "about", "what I told you about", "关于"
        m = _LEAD_EN.match(text) or _LEAD_ZH.match(text)
        if not m or not m.end():
            break
        memory_word += bool(m.groupdict().get("mem"))
        if m.groupdict().get("about"):
            text, n = _ABOUT_TAIL_ZH.subn("", text[m.end():].rstrip())
            memory_word += n
        else:
            text = text[m.end():]
        text = text.lstrip(" \t:：,，-")
    text, q2, tag2 = _tail(text, action)
    if text.endswith(("的记忆", "的記憶")):
        text, memory_word = text[:-3], memory_word + 1
    return text, question or q or q2, tag or tag2, memory_word > 0


def _tail(text: str, action: str) -> tuple[str, bool, bool]:
    """Strip trailing punctuation, particles and politeness; say whether they made a question and
    whether a tag asked for the act. "了" and "anymore" go only from a forget."""
    text = text.strip(" \t\r\n:：,，-")
    question = tag = False
    for _ in range(16):
        m = _TAIL.search(text, max(0, len(text) - 24))
        if not m or (m.lastgroup == "forget" and action != "forget"):
            break
        question = question or m.lastgroup in ("q", "tag")
        tag = tag or m.lastgroup == "tag"
        text = text[: m.start()].rstrip()
    return text, question, tag


def _about_speaker(subject: str) -> bool:
    head = re.split(r"[,;:，；：。]", subject, maxsplit=1)[0]
    if head.startswith(("我", "咱")):
        return True
    return any(m.group().casefold() not in _CONTRACTIONS for m in _SELF_EN.finditer(head))
