"""Prompts that are not about the person: small talk ("hi", "thanks!", "晚安") and words to the
assistant about itself ("What's your favourite film?", "Are you a robot?", "你喜欢什么颜色？").
Pure.

Recall's floors weigh how close a memory is to the prompt; small talk sits close to many memories
by chance ("How's your weekend?" and "I go hiking on weekends"), and chit-chat was the family of
unrelated prompts that got memory most often (bench/README.md, "Abstention"). A prompt read here
keeps only the strongest evidence: a record much closer to it than to prompts about nobody (the
floor's `distinct` route: "Do you like Radiohead?" still brings "My favourite band is Radiohead").

What counts, with no constant to fit:
- small talk: the whole prompt is greetings, thanks, farewells, acknowledgements and fillers, or
  emoji alone;
- asking to be entertained: a joke, pun, riddle or fun fact ("tell me a joke", "给我讲个笑话"), the
  person only as the listener ("tell me", "给我") and nothing named;
- work on text the prompt gives (translate, proofread, rewrite, what a quoted word means: "Translate
  'Where is the station?' into German", "帮我润色这句话：“…”") or a piece of writing on a theme it
  names ("Write a limerick about a forgetful robot", "写一首关于春天的诗"), with nothing of the person
  outside the quoted material;
- to the assistant about itself: it says "you" (你, 您) and nothing of the person (I, me, my, we,
  我, 咱), names nothing (a capitalised word past a sentence's start), and it does not ask for
  something ("can you", "would you", "please", "recommend", "do you remember", "帮", "推荐"): a
  request for help or about what was said is where memory personalises the answer.
The faces pass the person's last message, so a "thanks" that ends a talk about their trip is read
alone, as recall reads it.

The other way round, `about_me` reads a question about the person's own things: "What's my daughter's
name again?", "Which phone was I using before?", "did I tell you…", "我女儿叫什么？", "我上次说过…", or one
whose subject is the person: "Where do we live?", "How long have we had the dog?", "我爸被查出了什么病？",
"我们去年去哪儿玩了？" (not "how do I…", "what do I need…", "我想知道…", "我应该怎么…", "我们为什么…": asking how
to, for what is needed, or why). Such a prompt is about the person whatever else they hold
(relevance.Floor.for_query).
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z]+(?:['’][a-z]+)?", re.IGNORECASE)
_PHATIC_EN = frozenset(
    "hi hello hey heya hiya yo howdy sup hola greetings good morning afternoon evening night gm gn nite g'night "
    "thanks thank thx ty cheers appreciate it much so a lot again bye goodbye later see you ya cya take care "
    "ok okay k kk cool nice great awesome perfect lovely sweet neat got gotcha alright right sure yes yeah yep yup "
    "no nope nah lol lmao rofl haha hahaha hehe wow oh ah ooh hmm hm um uh oops sorry np welcome "
    "how are u r doing going is it what's whats up wassup how's hows there all everyone guys buddy friend mate "
    "just really very well too amber bot have day ttyl talk tomorrow soon for now nighty happy weekend friday monday tuesday "
    "wednesday thursday saturday sunday holidays new year".split())
_PHATIC_ZH = re.compile(
    # each step atomic and each word once (no "哈+" inside the repeat): a long "哈哈哈…笑死我了" that fails to match
    # must fail in linear time, not try every way of cutting it (it took seconds at 28 characters)
    r"^(?>你好|您好|大家好|嗨|哈喽|哈啰|早上好|早安|早|中午好|下午好|晚上好|晚安|谢谢你|谢谢|谢啦|多谢|感谢|辛苦了|哈|嘿|嗯|哦|噢|啊|呀|呢|吧|"
    r"了|啦|好的|好吧|好|行|可以|没问题|再见|拜拜|回头见|在吗|在不在|没事|你)+$")
_YOU = re.compile(r"\b(?:you|your|yours|yourself|u|ya)\b|你|您", re.IGNORECASE)
_ME = re.compile(r"\b(?:i|i['’](?:m|ve|d|ll)|im|me|my|mine|myself|we|we['’](?:re|ve|d|ll)|our|ours|us)\b|我|咱", re.IGNORECASE)
_ASKS = re.compile(
    r"\b(?:can|could|would|will|won['’]t|should)\s+(?:you|u)\b|\bplease\b|\b(?:recommend|suggest|help|remind)\b"
    r"|\b(?:know|remember|forget|forgot|recall)\b"
    r"|^\W*(?:give|tell|write|find|show|make|plan|list|explain|translate|draft|fix|check|summari[sz]e)\b"
    r"|能不能|可不可以|可以帮|帮|请|推荐|建议|提醒", re.IGNORECASE)
_NAMED = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")  # a name past a sentence's start ("Do you like Radiohead?"): something memory may hold
_NOT_TEXT = re.compile(r"[\W_]+", re.UNICODE)
# asking to be entertained: a joke, a riddle, a fun fact ("tell me a joke", "给我讲个笑话") is no ask about the person
_FUN = re.compile(r"\b(?:jokes?|puns?|riddles?|fun\s+facts?|random\s+facts?|tongue[\s-]twisters?|icebreakers?|knock[\s-]knock)\b"
                  r"|笑话|段子|脑筋急转弯|绕口令|冷知识|谜语", re.IGNORECASE)
# work on text the prompt itself gives ("Translate 'Where is the station?' into German", "帮我润色这句话：“…”")
# or a piece of writing on a theme it names ("Write a limerick about a forgetful robot", "写一首关于春天的诗"): the
# quoted text and the theme are the material, not the person
_TASK = re.compile(
    r"\b(?:translat\w*|proofread\w*|rephrase|paraphrase|rewrite|reword|grammar\w*|punctuat\w*|polish|synonyms?|antonyms?"
    r"|mean|meaning|means|pronounc\w*|spell\w*|(?:more|less)\s+(?:formal|casual|polite|concise)|shorten|idiom)\b"
    r"|翻译|润色|改写|改得|改成|病句|什么意思|的意思|近义词|反义词|怎么读|怎么说|语法|标点|成语", re.IGNORECASE)
_QUOTE = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|\"[^\"]*\"|‘[^’]*’|(?<!\w)'[^'\n]*'(?!\w)")
# a colon that hands over the text ("Translate into German: …", "润色这句话：…"), not a speaker's ("Lisa: …")
_HANDOVER = re.compile(r"(?:(?:translat\w*|proofread\w*|rephrase|paraphrase|rewrite|reword|polish|fix|correct)[^:：\n]{0,30}"
                       r"|这句话|这段话|这句|下面|以下|这个词|翻译|润色|改写)[:：]", re.IGNORECASE)  # not "what does this mean: my …"
_WRITE = re.compile(
    r"^\W*(?:(?:can|could|would)\s+(?:you|u)\s+)?(?:please\s+)?(?:write|compose|draft|come\s+up\s+with|give\s+me)\s+(?:me\s+)?"
    r"(?:a|an|one|two|three|some|\d+)\s+(?:[\w-]+\s+){0,2}?(?:poems?|haikus?|limericks?|stor(?:y|ies)|tweets?|slogans?|taglines?"
    r"|opening\s+lines?|sonnets?|riddles?|names?|titles?|captions?|descriptions?|jingles?)\b"
    r"|(?:写|来|起)(?:一|两|几)?(?:首|个|段|篇|句|副)[^，。,]{0,12}?(?:诗|绝句|律诗|对联|文案|开头|故事|书名|名字|标语|口号|段子)", re.IGNORECASE)
# the person's people, named without "my" ("给老婆的祝福", "a poem for mum"): the piece is about the person's life
_KIN = re.compile(r"\b(?:wife|husband|partner|girlfriend|boyfriend|mum|mom|dad|mother|father|sister|brother|son|daughter|kids?|boss"
                  r"|colleague|friend|grandma|grandpa|baby|babies|children|nan|nana)s?\b|老婆|老公|爸|妈|女儿|儿子|孩子|宝宝|哥|姐|弟|妹|男朋友|女朋友"
                  r"|老板|同事|朋友|爷爷|奶奶", re.IGNORECASE)
_INTO = re.compile(  # "into German": a language, not someone memory holds ("a poem to Sarah" names someone)
    r"\b(?:into|in|to|from)\s+(?:English|Spanish|French|German|Italian|Portuguese|Japanese|Korean|Chinese|Mandarin|Cantonese|Arabic"
    r"|Russian|Hindi|Dutch|Swedish|Norwegian|Danish|Finnish|Polish|Turkish|Greek|Hebrew|Vietnamese|Thai|Indonesian|Malay|Latin"
    r"|Ukrainian|Czech|Hungarian|Romanian|Persian|Welsh|Irish|Catalan)\b")
_TO_ME = re.compile(r"\b(?:tell|give|send|show|entertain|amuse|cheer|help)\s+me\b|给我|陪我|逗我|跟我|帮我", re.IGNORECASE)  # the person as listener


def small_talk(query: str) -> bool:
    """Whether the prompt is small talk or speaks to the assistant about itself (module docstring)."""
    text = " ".join((query or "").split())
    if not text or len(text) > 300:
        return False
    if _phatic(text):
        return True
    outside = _QUOTE.sub(" ", text)
    handed = _HANDOVER.search(outside)
    if _TASK.search(text) and (handed or outside != text) or _WRITE.search(text):
        outside = outside[: handed.end()] if handed else outside  # the person only as the listener, nothing named, outside the material
        return not _ME.search(_TO_ME.sub(" ", outside)) and not _NAMED.search(_INTO.sub(" ", outside)) and not _KIN.search(outside)
    if _NAMED.search(text):
        return False
    if _FUN.search(text):
        return not _ME.search(_TO_ME.sub(" ", text)) and not _KIN.search(text)
    return bool(_YOU.search(text)) and not _ME.search(text) and not _ASKS.search(text)


# a question about the person's own things or about what they said, not "how do I…" (asking how to)
_ABOUT_ME = re.compile(
    r"\b(?:what|which|who|whom|whose|when|where|how)\b[^.!?]*\b(?:my|our)\b[^.!?]*\?|\b(?:did|was|were|have|had)\s+(?:i|we)\b[^.!?]*\?"
    # "What city do I live in now?", "Where do we live?": a question whose subject is the person, but
    # not "how do I …" (asking how to)
    r"|\b(?:what|which|who|whom|whose|when|where|how\s+(?:long|many|much|old|often))\b[^.!?]*\b(?:do|does|am|are|is)\s+(?:i|we)\b(?!\s+(?:need|have\s+to|want|wanna)\b)[^.!?]*\?"
    r"|\bagain\s*\?|\bremind\s+me\b|\bdid\s+i\s+(?:tell|mention|say)\b|\bi\s+(?:told|mentioned)\s+you\b|\bdo\s+you\s+remember\b"
    r"|我的?[^，。？?]{0,12}(?:是什么|是哪|叫什么|在哪|是谁|多少|几)|我(?:上次|之前|以前)?(?:说过|提过|告诉过?你|跟你说)|还记得"
    # "我爸被查出了什么病？", "我们全家去哪儿玩了？", "我和小雨在一起多久了？": the person (我, 我们, 咱们) and
    # what is theirs asked about, not a wish, a request for how to or a why (我想知道…, 我应该怎么…, 我们为什么…)
    r"|(?:我|咱)们?(?![想要需应该能可会不问觉认])[^，。,.!！？?]{0,12}(?:(?<!为)什么|哪|谁|多少|几|多久|多长|多高|多大)[^，。,.!！？?]{0,12}[？?]",
    re.IGNORECASE)


def about_me(query: str) -> bool:
    """Whether the prompt asks about the person's own things or what they said (module docstring)."""
    text = " ".join((query or "").split())
    return 0 < len(text) <= 300 and _ABOUT_ME.search(text) is not None


def _phatic(text: str) -> bool:
    words = _WORD.findall(text)
    rest = _NOT_TEXT.sub("", _WORD.sub("", text))
    if words and len(words) <= 8 and not rest:
        return all(w.casefold().replace("’", "'") in _PHATIC_EN for w in words)
    if not words and not rest:
        return bool(text.strip())  # emoji and marks alone ("🙂", "?!")
    return not words and _PHATIC_ZH.match(rest) is not None
