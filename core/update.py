"""A new value said for something Amber just showed: the person states, with no correction word, a
different value for what an injected item holds ("I live in Hangzhou now" right after "I live in
Shanghai" was injected; "我今年26岁" after "我今年28岁"). People mostly update a memory that way
rather than by saying "that's wrong" (core/correction.py handles those). Pure: no model call.

It acts only where it can tell both what the turn is about and what the new value is:
- a frame: the person ("I", "my", "we", "our", "我", "我家"...) with a slot Amber knows (where they
  live, where they work, their job, age, birthday, diet, what they drink, drive, play and learn, the
  names of their partner, family and pets, a child's school year, their phone and car) and a value
  right after it ("I work at Globex", "my sister goes by Lina", "我哥叫王刚", "我三十三了");
- a value that looks like one: an English name (capitalised: Hangzhou, Globex, Casey), a number for
  an age, a word from the slot's own list for diets, instruments, sports, phone and car brands; in
  Chinese, the words after the frame, less a list of places that are not homes or employers ("公司",
  "家", "路上");
- a shown item about the same slot (for a name, the same relation: a sister's name corrects a
  sister) that does not hold the value. The same value is a restatement: nothing changes, and no
  other item is touched.
Nothing that makes the turn something other than a standing fact about the person: a question, a
plan, wish or hypothetical ("might", "thinking of", "想", "打算", "如果"), a trip or a day ("for the
conference", "this week", "出差", "今天"), an addition ("too", "also", "也"), someone else's news (the
frames are first person; "my sister lives in..." is not "I live in..."), or words in quotes.

The tune cases are round five of tests/core/correction_phrasings.py (every third held out);
bench/corrections.py reports it on every set, with and without this, and the blind sets written
before it (correction_fresh4.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from .correction import _REPORTED, Correction, Shown, mentions

_I = re.IGNORECASE
_VAL = r"(?P<v>[^,.;!?()，。；！？、\n]{1,40})"  # what follows a frame, up to the clause's end
_ZV = r"(?P<v>[^,.;!?()，。；！？、\s]{1,10})"  # the same in Chinese (no spaces)


@dataclass(frozen=True)
class Slot:
    name: str
    frames: tuple[re.Pattern, ...] = field(repr=False)
    about: re.Pattern = field(repr=False)  # an item about this slot
    kind: str = "name"  # "name" | "role" | "number" | "date" | "vocab" | "brand" | "zh" | "year" | "words": how its value reads
    vocab: frozenset[str] = field(default=frozenset(), repr=False)


def _en(*frames: str) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(f, _I) for f in frames)


def _zh(*frames: str) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(f) for f in frames)


_NOW = r"(?:\s+(?:now(?!\s+and\s+then)|currently|actually|just|finally))?"
_BE = r"(?:['’]m|\s+am|['’]re|\s+are)"
_CAR_LOOK = r"(?:(?:red|blue|grey|gray|white|black|silver|green|yellow|orange|brown|new|old|little|small|big|used|secondhand|second-hand|electric|hybrid)\s+){0,2}"
_ROLES = frozenset(
    "engineer developer programmer manager teacher designer nurse doctor analyst consultant freelancer student lawyer "
    "accountant writer chef scientist researcher architect pharmacist dentist librarian barista electrician plumber "
    "journalist editor translator photographer therapist professor lecturer tutor director founder owner intern "
    "mechanic pilot paramedic officer clerk cashier".split())
_DRINKS = frozenset("coffee tea decaf matcha espresso latte cappuccino americano water juice soda cola beer wine kombucha milk "
                    "chai mocha".split())
_DIETS = frozenset("vegetarian vegan pescatarian keto paleo carnivore omnivore meat fish chicken beef pork seafood".split())
_INSTRUMENTS = frozenset("guitar bass drums piano keyboard keys violin viola cello saxophone sax trumpet flute ukulele harmonica "
                         "clarinet trombone harp".split())
_SPORTS = frozenset("tennis padel badminton football soccer basketball golf squash volleyball baseball cricket hockey rugby "
                    "pickleball climbing bouldering swimming running cycling yoga pilates boxing judo karate".split())
_PHONES_ZH = ("苹果", "iphone", "华为", "小米", "红米", "oppo", "vivo", "荣耀", "一加", "三星", "魅族", "realme", "pixel", "谷歌", "中兴", "努比亚")
_CARS_ZH = ("丰田", "本田", "大众", "宝马", "奔驰", "奥迪", "特斯拉", "比亚迪", "蔚来", "理想", "小鹏", "问界", "极氪", "吉利", "长安",
            "别克", "日产", "马自达", "福特", "现代", "起亚", "雷克萨斯", "沃尔沃", "领克", "五菱")
_LANGUAGES = frozenset(
    "english spanish french german italian portuguese japanese korean chinese mandarin cantonese arabic russian hindi dutch "
    "swedish norwegian danish finnish polish turkish greek hebrew vietnamese thai indonesian malay tagalog swahili persian "
    "farsi urdu bengali czech hungarian romanian ukrainian latin esperanto icelandic irish welsh catalan basque".split())
_CITIES_ZH = ("北京|上海|天津|重庆|深圳|广州|杭州|南京|武汉|成都|西安|苏州|厦门|青岛|大连|沈阳|长沙|郑州|合肥|济南|福州|昆明|哈尔滨|长春|南宁|贵阳|兰州"
               "|太原|石家庄|南昌|宁波|无锡|香港|澳门|台北|珠海|三亚|海口|拉萨|乌鲁木齐|东莞|佛山|温州|烟台|徐州|常州|绍兴|嘉兴|洛阳|桂林")
_ACTIVITIES_ZH = ("游泳", "爬山", "跑步", "打球", "羽毛球", "篮球", "足球", "网球", "乒乓球", "钓鱼", "骑车", "骑行", "徒步", "健身", "瑜伽",
                  "露营", "滑雪", "攀岩", "飞盘", "划船", "登山", "练琴", "画画", "跳舞", "拳击")
# relations whose name a turn can give; the item must name the same one
_REL_EN = {
    "partner": "partner|girlfriend|boyfriend|wife|husband|fianc[eé]e?|spouse|other\\s+half",
    "sister": "sister", "brother": "brother", "daughter": "daughter", "son": "son",
    "mother": "mum|mom|mother", "father": "dad|father",
    "dog": "dog|puppy", "cat": "cat|kitten", "pet": "pet|rabbit|bunny|parrot|hamster|tortoise|turtle",
}
_REL_ZH = {
    "哥哥": "哥哥|哥", "弟弟": "弟弟|弟", "姐姐": "姐姐|姐", "妹妹": "妹妹|妹", "女朋友": "女朋友|女友", "男朋友": "男朋友|男友",
    "老婆": "老婆|太太|妻子|爱人", "老公": "老公|先生|丈夫", "儿子": "儿子", "女儿": "女儿", "猫": "猫咪|猫", "狗": "狗狗|狗",
}
_REL_EN_RE = "|".join(f"(?P<{k}>(?:{v})s?\\b)" for k, v in _REL_EN.items())
_REL_ZH_RE = "|".join(v for v in _REL_ZH.values())

SLOTS: tuple[Slot, ...] = (
    Slot("home", _en(
        rf"\b(?:i|we){_NOW}\s+(?:(?:live|(?:am|['’]m|are|['’]re)\s+living|(?:have|['’]ve)\s+been\s+living)\s+in|(?:moved|relocated)\s+to)\s+{_VAL}",
        rf"\b(?:i|we){_BE}\s+(?:now\s+)?(?:based|settled)\s+in\s+{_VAL}",
        rf"^\W*(?:now\s+)?living\s+in\s+{_VAL}",
        rf"\bhome(?:['’]s|\s+is|\s+has\s+been)(?:\s+been)?\s+(?:now\s+)?{_VAL}",
        rf"\bmy\s+(?:flat|apartment|place|house|home)\s+is\s+(?:now\s+)?in\s+{_VAL}",
        r"\b(?:i|we)(?:['’]m|\s+am|['’]re|\s+are)\s+in\s+(?P<v>[^,.;!?]{2,30}?)\s+(?:these\s+days|nowadays)\b",
    ), re.compile(r"\b(?:live|lives|living|based|moved|home|flat|apartment)\b", _I), "name"),
    Slot("employer", _en(
        rf"\b(?:i|we){_NOW}\s+(?:work|(?:am|['’]m)\s+working|(?:have|['’]ve)\s+been\s+working)\s+(?:at|for)\s+{_VAL}",
        rf"\b(?:started|took|got|landed|accepted)\s+(?:a\s+)?(?:new\s+)?(?:job|role|position|offer)\s+(?:at|with|from)\s+{_VAL}",
        rf"\bmy\s+(?:employer|company|job)\s+is\s+(?:now\s+)?(?:at\s+)?{_VAL}",
        r"\bi(?:['’]m|\s+am)\s+(?:now\s+)?(?:at|with)\s+(?P<v>[^,.;!?]{2,30}?)\s+(?:these\s+days|nowadays)\b",
    ), re.compile(r"\b(?:works?|working|job|employ\w*|company|joined|engineer|developer|manager)\b", _I), "name"),
    Slot("role", _en(
        rf"\bi(?:['’]m|\s+am){_NOW}\s+(?:a|an)\s+{_VAL}",
        rf"\bi{_NOW}\s+(?:work\s+as|teach)\s+(?:an?\s+)?{_VAL}",
        rf"\bi(?:['’]m|\s+am|['’]ve\s+been|\s+have\s+been){_NOW}\s+(?P<v>freelancing|self-employed|retired|unemployed|between\s+jobs)",
    ), re.compile(r"\bworks?\s+as\b|\b(?:" + "|".join(sorted(_ROLES)) + r")s?\b|\bfreelanc", _I), "role"),
    Slot("age", _en(
        r"\bi(?:['’]m|\s+am)\s+(?:now\s+|already\s+|only\s+)?(?P<v>\d{1,3})(?:\s+years?\s+old)?"
        r"(?=\s*$|\s*[,;!—–]|\.(?!\d)|\s+(?:now|years?\s+old|yo|as\s+of|since|so|already|but)\b)",
        r"(?:^\W*|\bi\s+(?:just\s+|finally\s+)?)turned\s+(?P<v>\d{1,3})\b(?!\s*(?:%|minutes?|degrees?|km))",
        r"\bmy\s+(?P<v>\d{1,3})(?:st|nd|rd|th)\s+birthday\b",
        r"\bcelebrated\s+my\s+(?P<v>\d{1,3})(?:st|nd|rd|th)\b",
    ), re.compile(r"\b(?:years?\s+old|age|aged)\b|\bi(?:['’]m|\s+am)\s+\d|岁|歲", _I), "number"),
    Slot("birthday", _en(
        rf"\bmy\s+birthday\s+(?:is|falls)\s+(?:on\s+|in\s+)?{_VAL}",
        rf"\bi\s+was\s+born\s+(?:on|in)\s+{_VAL}",
    ), re.compile(r"\bbirthday|\bborn\b|生日", _I), "date"),
    Slot("diet", _en(
        rf"\bi(?:['’]m|\s+am){_NOW}\s+(?:a\s+)?(?:fully\s+|strictly\s+)?(?P<v>vegetarian|vegan|pescatarian|keto|paleo|carnivore)\b",
        r"\b(?:went|gone|turned|became|switched\s+to\s+being)\s+(?P<v>vegetarian|vegan|pescatarian|keto|paleo)\b",
        r"\b(?:i\s+)?(?:eat|eating|having)\s+(?P<v>meat|fish|chicken|beef|pork|seafood)\s+(?:again|now|these\s+days|nowadays)\b",
        r"\bback\s+(?:to|on)\s+(?:eating\s+)?(?P<v>meat|fish|chicken|beef|pork|seafood)\b",
    ), re.compile(r"\b(?:vegetarian|vegan|pescatarian|keto|paleo|meat|diet)\b", _I), "vocab", _DIETS),
    Slot("drink", _en(
        r"\bi\s+(?:only\s+|mostly\s+|just\s+)?drink\s+(?P<v>[a-z][\w\s-]{1,20}?)\s+(?:now(?!\s+and\s+then)|nowadays|these\s+days|instead)\b",
        r"\bi(?:['’]ve)?\s+switched\s+(?:from\s+[\w\s-]{1,20}?\s+)?to\s+(?P<v>[a-z][\w-]{1,20})",
    ), re.compile(r"\b(?:coffee|tea|drinks?|cups?|espresso|latte)\b", _I), "vocab", _DRINKS),
    Slot("car", _en(
        rf"\bi{_NOW}\s+drive\s+(?:a|an)\s+{_CAR_LOOK}{_VAL}",
        rf"\bmy\s+car\s+is\s+(?:now\s+)?(?:a|an)\s+{_CAR_LOOK}{_VAL}",
    ), re.compile(r"\b(?:drives?|car)\b", _I), "name"),
    Slot("school_year", _en(  # "leo's in year 9", "Theo is in Year 6 now": the child the item names
        r"\b(?P<who>[a-z]+)(?:['’]s|\s+is)\s+(?:now\s+)?in\s+(?P<v>(?:year|grade)\s+\d{1,2})\b",
    ), re.compile(r"\b(?:year|grade)\s+\d", _I), "year"),
    Slot("degree", _en(
        r"\bmy\s+(?:degree|major|masters?|master['’]s|phd|bachelor['’]?s?)(?:['’]s|\s+is|\s+was)\s+in\s+(?P<v>[a-z][a-z\s-]{2,40}?)(?=[,.;!?]|\s+(?:but|and|though|so)\b|$)",
    ), re.compile(r"\b(?:degree|major|masters?|master['’]s|phd|studied|bachelor)", _I), "words"),
    Slot("instrument", _en(
        rf"\bi{_NOW}\s+play\s+(?:the\s+)?(?P<v>[a-z]+)",
    ), re.compile(r"\b(?:" + "|".join(sorted(_INSTRUMENTS)) + r")\b", _I), "vocab", _INSTRUMENTS),
    Slot("sport", _en(
        rf"\bi{_NOW}\s+play\s+(?P<v>[a-z]+(?:\s+tennis)?)",
        r"\b(?P<v>[a-z]+)\s+is\s+on\s+\w+\s+(?:mornings?|afternoons?|evenings?|nights?)\s+(?:for\s+me\s+)?now\b",
        r"\b(?:took\s+up|taken\s+up|switched\s+to|into)\s+(?P<v>[a-z]+(?:\s+running)?)",
    ), re.compile(r"\b(?:" + "|".join(sorted(_SPORTS)) + r")\b", _I), "vocab", _SPORTS),
    Slot("language", _en(
        rf"\bi(?:['’]m|\s+am){_NOW}\s+(?:learning|studying)\s+(?P<v>[A-Za-z]+)",
    ), re.compile(r"\b(?:learning|studying|speaks?|lessons?)\b", _I), "vocab", _LANGUAGES),
    Slot("name", _en(
        rf"\b(?:my|our)\s+(?:{_REL_EN_RE})(?:['’]s\s+name\s+is|\s+is\s+(?:now\s+)?(?:called|named)|\s+goes\s+by|\s+is)\s+{_VAL}",
        rf"\bi(?:['’]m|\s+am){_NOW}\s+(?:dating|married\s+to|engaged\s+to|seeing\s+someone\s+(?:called|named))\s+(?:someone\s+(?:called|named)\s+)?(?P<partner>){_VAL}",  # the empty group names the relation for _rel
    ), re.compile(r"\b(?:called|named|name|is)\b", _I), "name"),
    # Chinese
    Slot("home_zh", _zh(
        rf"我(?:们)?(?:现在|目前|已经|早就)?(?:住在|住|定居在?|搬到了?|搬去了?|安家在)\s*{_ZV}",
        rf"我家(?:现在|已经|早就)?(?:在|安在)\s*{_ZV}",
        rf"(?:^|[，,。；;])(?:搬家了[，,]?)?(?:现在)?住在{_ZV}",
        rf"我(?:现在|目前)在(?P<v>[^,.;!?()，。；！？、\s]{{0,6}}?(?:市|区|县|省|镇|{_CITIES_ZH}))了",  # a place that says it is one, not "路口"
    ), re.compile(r"住|家在|搬"), "zh"),
    Slot("work_zh", _zh(
        rf"(?:^|[，,。；;]|我)(?:现在|目前|已经|这两年)?(?:在|去了?|入职了?|加入了?|跳槽到了?)(?P<v>[^,.;!?()，。；！？、\s]{{2,8}}?)"
        r"(?:上班|工作|打工|实习)",
        rf"(?:^|[，,。；;]|我)(?:今年|这个月|上个月|去年)?开始在(?P<v>[^,.;!?()，。；！？、\s]{{2,8}}?)(?:做|当|上班|工作)",
        rf"(?:^|[，,。；;]|我)(?:现在|已经|上个月|今年)?(?:入职|加入|跳槽到|跳槽去)了?{_ZV}",
        rf"(?:工作换了?|换工作了?|换了工作)[，,]?\s*(?:去了?|到了?){_ZV}",
        rf"给{_ZV}打工",
        r"(?:^|[，,。；;]|我)(?:现在|已经)?是(?P<v>自由职业者?|全职妈妈|全职爸爸|学生|老师|医生|护士|程序员|设计师|律师|会计)",
    ), re.compile(r"工作|上班|公司|入职|职业|打工"), "zh"),
    Slot("name_zh", _zh(
        rf"我(?:的)?(?:{_REL_ZH_RE})(?:现在)?(?:叫|名叫|的名字是)\s*(?P<v>[^,.;!?()，。；！？、\s]{{1,4}})",
        rf"(?:家里|我家)(?:那只|的|养的)?(?:{_REL_ZH_RE})(?:是[^，,。]{{1,4}}[，,])?叫(?P<v>[^,.;!?()，。；！？、\s]{{1,4}})",
    ), re.compile(r"叫|名字|是"), "zh"),
    Slot("age_zh", _zh(
        r"我(?:今年|现在|已经|都|马上|快|刚)?(?P<v>\d{1,3}|[一二两三四五六七八九十]{1,3})(?:周?岁|了)",
    ), re.compile(r"岁|歲|年龄"), "number"),
    Slot("grade_zh", _zh(
        r"(?P<who>女儿|儿子|孩子)(?:现在|今年|已经)?(?:上|读|升到了?|升了|升上了?)(?P<v>[一二三四五六]年级|初[一二三]|高[一二三]|大[一二三四])",
    ), re.compile(r"年级|初[一二三]|高[一二三]|小学|中学"), "zh"),
    Slot("phone_zh", _zh(
        r"(?:^|[，,。；;]|我)(?:现在)?(?:用的是|用|换成了?|换了)(?P<v>[^，。,\s]{2,8})",
        r"手机(?:是|换成了?|换了)(?:[^，。]{0,6}的)?(?P<v>[^，。,\s]{2,6})",
    ), re.compile(r"手机|手機"), "brand", frozenset(_PHONES_ZH)),
    Slot("car_zh", _zh(
        r"我(?:现在)?开(?:的是|一辆|了一辆|着)?(?P<v>[^，。,\s]{2,8})",
        r"(?:车|辆)[^，。]{0,8}[，,]?[^，。]{0,6}(?:换成了?|换了)(?:一辆)?(?P<v>[^，。,\s]{2,6})",
    ), re.compile(r"开|车子|座驾|的车|辆"), "brand", frozenset(_CARS_ZH)),  # an item about driving, not "理想汽车" the employer
    Slot("weekend_zh", _zh(
        r"(?:^|我)周末(?:一般|现在|改|都|常)(?:去|喜欢去|改去)?(?P<v>[^，。,\s]{1,5})",
    ), re.compile(r"周末"), "brand", frozenset(_ACTIVITIES_ZH)),
)

_QUESTION = re.compile(r"[?？]|^\W*(?:who|what|when|where|why|how|which|is|are|do|does|did|can|could|should|would|will|shall)\b"
                       r"|吗|什么|怎么|哪|几|多少|是不是", _I)
_NOT_NOW = re.compile(
    r"\b(?:will|won['’]t|['’]ll|going\s+to|gonna|might|maybe|would|['’]d|could|should|if|whether|hope|hoping|wish|want|wanna"
    r"|plan|plans|planning|thinking|considering|consider|next|tomorrow|tonight|today|this\s+(?:week|weekend)|for\s+(?:the|a|my)\s+"
    r"(?:conference|trip|holiday|vacation|week|weekend|few\s+days|summer|night)|visiting|trip|holiday|vacation|used\s+to|when\s+i\s+was"
    r"|too|also|as\s+well|pretend|imagine|suppose|supposing|let['’]s\s+say|as\s+if|role-?play|story|character|dream"
    r"|translate|translation|proofread|grammar|rephrase|paraphrase|rewrite|spelling|sentence|example|e\.g"
    r"|in\s+(?:19|20)\d\d|last\s+year|years\s+ago"
    # not the literal fact: a figure of speech, a costume or a game, a side job, a countdown
    r"|at\s+heart|emotionally|in\s+spirit|mentally|in\s+dog\s+years|of\s+life|costume|halloween|dress(?:ed|es)?\s+(?:up\s+)?as"
    r"|in\s+(?:the\s+)?(?:game|gran\s+turismo|forza|minecraft|the\s+sims|gta)|video\s*game"
    r"|on\s+(?:weekends|saturdays|sundays|the\s+side)|side\s+(?:job|gig|hustle)|extra\s+(?:cash|money)|part[-\s]time"
    r"|in\s+\d+\s+(?:days?|weeks?|months?)|(?:parallel|alternate|another)\s+universe|goals?|bucket\s+list|someday|one\s+day"
    r"|most\s+(?:mornings|days|evenings|nights)|team\s+\w+|right\s+now|watching|on\s+tv|at\s+(?:lunch|dinner|breakfast)|with\s+(?:lunch|dinner))\b"
    r"|\b\w+\s+obsessed\b(?!\s+with)"
    r"|想|打算|准备|要去|会去|可能|如果|要是|假如|下周|下个月|明天|明年|出差|旅游|旅行|这周|今天|今晚|也|故事|小说|梦|的时候|那时|那年|以前|之前"
    r"|曾经|刚下|落地|飞机|高铁|火车|酒店|度假|假设|假装|翻译|语法|造句|例句|改写|润色"
    # 叫 as "ask" or "call for" ("我儿子叫爷爷帮他", "叫滴滴去机场"), a floor, an afternoon's work, a one-off, an age then
    r"|叫[^，。,\s]{1,4}(?:帮|去|来|给|过来|過來|送)|[一二三四五六七八九十\d]+(?:楼|樓|层|層)|(?:工作|上班|办公)了?一(?:下午|上午|整天|晚上|会儿)"
    r"|过一次|過一次|过几次|過幾次|岁(?:来|去|到)的|岁那年|岁时|(?:沙发|沙發|床|桌子|地板)上|叫声|叫聲|资本家|資本家", _I)
_SENTENCE = re.compile(r"[^.!?;。！？；\n]+[.!?;。！？；]*")  # a sentence and its closing marks (core/changed.py reads a turn by them too)
_MAY = re.compile(r"\bmay\b(?!\s+\d)")  # the modal, not the month ("born in May", "May 3")
_QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|\"[^\"]*\"|‘[^’]*’|(?<!\w)'[^'\n]*'(?!\w)|`[^`]*`")
# code, or words meant for somewhere else ("Draft a bio: I work at..."): not the person telling Amber
_NOT_CHAT = re.compile(r"```|^\s*(?:#|//|def\s|class\s|import\s|print\(|>)|\b(?:draft|bio|profile|template|cover\s+letter|résumé|resume|cv)\b",
                       re.IGNORECASE | re.MULTILINE)
# someone else in an item ("My sister works at Google"): a plain statement about the person does not replace it
_OTHERS = re.compile(r"\b(?:my|his|her|their|our)\s+(?:partner|girlfriend|boyfriend|wife|husband|fianc[eé]e?|sister|brother|daughter|son|kids?"
                     r"|children|mum|mom|mother|dad|father|parents?|friend|colleague|co-?worker|teammate|classmate|boss|manager|cousin|aunt|uncle|roommate|flatmate|housemate"
                     r"|neighbou?r|mate|buddy|pal|bestie|best\s+friend|ex|grandma|grandpa|gran|nan|granny|grandmother|grandfather|nephew|niece"
                     r"|(?:sister|brother|mother|father)-in-law|in-laws|team|landlord|landlady)s?\b|\bhalf\s+(?:my|our|the)\s+\w+|\b(?:he|she|they)\b"
                     r"|哥|弟|姐|妹|女朋友|男朋友|老婆|老公|爸|妈|朋友|闺蜜|閨蜜|同事|室友|他|她|发小|發小|舅|奶奶|爷爷|爺爺|外婆|外公|姥姥|姥爷|叔叔|阿姨|婶婶|嬸嬸"
                     r"|领导|領導|上司|邻居|鄰居|老板|老闆", re.IGNORECASE)
_NOT_A_PLACE_ZH = ("公司", "家", "路上", "开会", "上班", "学校", "医院", "外面", "楼下", "车上", "地铁", "机场", "酒店", "这", "那", "这里", "那里",
                   "这儿", "那儿", "里面", "床上", "办公室", "家里", "单位")
_TRIM_ZH = "了啦呢啊呀的住上班工作"
_STOP_NAME = frozenset(
    "i the a an my our this that it he she they there here home work ok okay lol omg tbh btw fyi asap idk "
    "january february march april may june july august september october november december monday tuesday wednesday "
    "thursday friday saturday sunday american canadian british english irish scottish welsh french german italian spanish "
    "portuguese dutch swiss austrian belgian swedish norwegian danish finnish polish ukrainian russian greek turkish "
    "indian pakistani bangladeshi chinese japanese korean vietnamese thai filipino indonesian malaysian australian "
    "mexican brazilian argentinian argentine chilean peruvian colombian venezuelan cuban jamaican haitian nigerian "
    "ghanaian kenyan ethiopian egyptian moroccan iranian iraqi israeli asian african european latina latino "
    "christian catholic muslim jewish buddhist hindu atheist".split())
_NOT_VALUE_ZH = ("认真", "努力", "好好", "专心", "拼命", "处理", "加班", "继续", "远程", "居家", "装修", "打扫", "吃饭", "睡觉", "做饭", "休息",
                 "忙", "看", "想")
# slots a person can hold several values of (sports, instruments, languages, weekend pastimes): a new
# one replaces the old only when the sentence says something changed
_MANY = frozenset({"instrument", "sport", "language", "weekend_zh"})
_CHANGED = re.compile(r"\b(?:now|nowadays|these\s+days|instead|any\s*more|switched|no\s+longer|on\s+hold|dropped|gave\s+up|stopped|quit"
                      r"|rather\s+than|not)\b|现在|改|换|不再|已经|早就|如今|不", re.IGNORECASE)
_NOT_A_FIELD = frozenset("it that this the same my his her their".split())
_GLUE = frozenset("a an the at in on of for to with and or now these days".split())  # words that are no value
_ZH_NUM = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


@dataclass(frozen=True)
class Claim:
    """What the turn states: a slot, its new value (as said), whose (a name's relation, a school
    year's child), and the sentence that says it (what replaces the item)."""

    slot: Slot
    value: str
    rel: str | None = None
    said: str = ""


def stated(text: str) -> list[Claim]:
    """What standing facts about the person this turn states with a value, by the frames alone (no
    item read). Cheap; most turns give none."""
    if not text or len(text) > 400 or _NOT_CHAT.search(text) or _REPORTED.search(text):
        return []
    out = []
    for line in _QUOTED.sub(" ", text).splitlines():
        s = " ".join(line.split())
        if not s or _NOT_NOW.search(s) or _MAY.search(s):
            return []  # one line that is a plan makes the turn one
        # a question asks; the statements beside it still say ("哈？小雪是我妹妹，我老婆叫晓琳")
        s = " ".join(x for x in _SENTENCE.findall(s) if not _QUESTION.search(x)).strip()
        if not s:
            continue
        for slot in SLOTS:
            for frame in slot.frames:
                for m in frame.finditer(s):
                    value = _value(slot, m.group("v"))
                    if value:
                        out.append(Claim(slot, value, _rel(slot, m), _sentence(s, m.start())))
    return out


def _sentence(s: str, at: int) -> str:
    """The sentence of `s` around position `at`: what the person said, without the rest of the turn."""
    start = max(s.rfind(ch, 0, at) for ch in ".!?;。！？；") + 1
    ends = [i for i in (s.find(ch, at) for ch in ".!?;。！？；") if i >= 0]
    return s[start:min(ends) if ends else len(s)].strip(" ,，")


def find_update(text: str, shown: Sequence[Shown]) -> Correction | None:
    """The item this turn gives a new value for, as a supersede with the sentence that says it, or
    None. A turn restating a value an item holds changes nothing, whatever else it says."""
    return update_of(stated(text) if shown else [], shown)


def update_of(claims: Sequence[Claim], shown: Sequence[Shown]) -> Correction | None:
    """`find_update` for claims `stated` has already read from the turn."""
    for claim in claims:
        if claim.slot.name in _MANY and not _CHANGED.search(claim.said):
            continue  # "I play tennis" beside "Plays badminton": a second sport, not a new one
        about = [item for item in shown if _about(claim, item)]
        if about and not any(_holds(claim, item.text) for item in about):  # the same value held: a restatement
            return Correction(about[0], "supersede", claim.said)
    return None


def _rel(slot: Slot, m: re.Match) -> str | None:
    if slot.name == "name":
        return next((k for k in _REL_EN if m.groupdict().get(k) is not None), None)
    if slot.name == "name_zh":  # the relation before the name ("我女朋友叫小妹" names a girlfriend, not a 妹妹)
        said = m.string[m.start():m.start("v")]
        return next((k for k, v in _REL_ZH.items() if re.search(v, said)), None)
    who = m.groupdict().get("who")  # a school year's child
    return who.casefold() if who and slot.name == "school_year" else who


def _about(claim: Claim, item: Shown) -> bool:
    """Whether the shown item holds the slot this claim gives a value for: a memory (a captured
    turn is the conversation's, not a fact to replace), about the person unless the claim names
    whose it is."""
    text = item.text
    if item.source != "memory":
        return False
    if claim.slot.name == "grade_zh":
        return claim.rel is not None and claim.rel in text and claim.slot.about.search(text) is not None
    if claim.slot.name == "school_year":  # the child the item names
        return claim.rel is not None and re.search(rf"\b{re.escape(claim.rel)}\b", text, _I) is not None and claim.slot.about.search(text) is not None
    if claim.rel is None and _OTHERS.search(text):
        return False  # "My sister works at Google": someone else's
    if claim.rel is not None and claim.slot.name == "name":  # the same relation, and a name held for it
        return re.search(rf"\b(?:{_REL_EN[claim.rel]})s?\b", text, _I) is not None and _names(text)
    if claim.rel is not None:
        return re.search(_REL_ZH[claim.rel], text) is not None
    if claim.slot.kind in ("vocab", "brand"):
        return any(mentions(text.casefold(), w) for w in claim.slot.vocab) and claim.slot.about.search(text) is not None
    return claim.slot.about.search(text) is not None


def _holds(claim: Claim, text: str) -> bool:
    """Whether the item already says this value."""
    low = text.casefold()
    kind = claim.slot.kind
    if kind == "number":
        return int(claim.value) in _numbers(text)
    if kind == "year":
        return re.search(rf"\b{re.escape(claim.value)}\b", low) is not None
    if kind == "words":  # "art" is not held by "smart materials"
        return all(re.search(rf"\b{re.escape(w)}\b", low) for w in claim.value.split() if w not in _GLUE)
    if kind == "date":
        return all(t in re.findall(r"[a-z]+|\d+", low) for t in _date_tokens(claim.value))
    if kind in ("vocab", "brand"):
        return all(mentions(low, w) for w in claim.value.split("|"))
    if kind == "zh":
        v = claim.value
        if claim.slot.name == "grade_zh":
            return v in text  # "五年级" against "三年级": they share 年级, not the value
        return v in text or any(v[i:i + 2] in text for i in range(len(v) - 1) if not set(v[i:i + 2]) & set(_TRIM_ZH))
    words = [w for w in claim.value.casefold().split() if w not in _GLUE]
    return bool(words) and all(re.search(rf"\b{re.escape(w)}\b", low) for w in words)


def _value(slot: Slot, raw: str) -> str:
    """The value a frame caught, as the slot reads it, or "" when it does not look like one."""
    raw = raw.strip()
    kind = slot.kind
    if kind == "name":
        m = re.match(r"[A-Z][\w-]*(?:\s+(?!I\b)[A-Z][\w-]*)*", raw)  # "Hangzhou I guess": the name is Hangzhou
        if m is None or m.group(0).split()[0].casefold() in _STOP_NAME or m.group(0).endswith(("ish", "ese")):
            return ""  # a pronoun, a month, a nationality ("my wife is Canadian"): not a name
        if re.match(r"['’]s\b", raw[m.end():]) or (m.group(0).isupper() and len(m.group(0)) <= 2):
            return ""  # "my son is Jake's best friend": someone else's; "OK"
        return m.group(0)
    if kind == "role":
        role = re.split(r"\s+(?:at|in|for|with|on|of|since|now|these\s+days)\b", raw.casefold())[0]  # "a manager at Acme": the role
        if re.search(r"['’]s\b", role):
            return ""  # "a doctor's daughter": someone else's role
        words = [w for w in re.findall(r"[a-z-]+", role) if w not in _GLUE]
        if words and (words[-1] in {"freelancing", "self-employed", "retired", "unemployed"} or words[-1].rstrip("s") in _ROLES):
            return " ".join(words)  # the role is the head of the phrase: "a big fan of that director" is a fan
        if re.match(r"(?:high\s+school|primary|secondary|maths|math|english|science|history|music|art|piano|yoga)", raw, _I):
            return raw.casefold()  # "I teach high school maths"
        return ""
    if kind == "year":
        return " ".join(raw.casefold().split())
    if kind == "words":
        words = [w for w in raw.casefold().split() if w not in _GLUE]
        return " ".join(words) if words and not set(words) & _NOT_A_FIELD else ""
    if kind == "number":
        n = _number(raw)
        return str(n) if n is not None and 1 <= n <= 120 else ""
    if kind == "date":
        return raw if _date_tokens(raw) else ""
    if kind == "vocab":
        words = [w for w in re.findall(r"[a-z]+(?:\s+tennis|\s+running)?", raw.casefold()) if w in slot.vocab or w.split()[0] in slot.vocab]
        return "|".join(words[:1])
    if kind == "brand":
        low = raw.casefold()
        for b in sorted(slot.vocab, key=len, reverse=True):
            at = low.find(b)
            rest = low[at + len(b):] if at >= 0 else None
            if rest is not None and re.fullmatch(r"(?:手机|的手机|汽车|的车)?[\w\s+-]{0,8}", rest) and not re.search(r"[\u3400-\u9fff]", rest.replace("手机", "").replace("汽车", "").replace("的车", "")):
                return b
        return ""
    if slot.name == "name_zh" and (raw[:1] in "我你他她它们人去来上过起醒回帮别外快车得着" or raw.endswith("了")):
        return ""  # "我哥叫我去吃饭", "我老公叫外卖", "狗叫得很凶": 叫 asks or barks, it names no one
    if raw[:1] in "得着地" or raw.startswith(_NOT_VALUE_ZH):
        return ""  # "我住得离公司很近", "我在认真工作": how, not where
    v = raw.rstrip(_TRIM_ZH)  # zh
    for i, ch in enumerate(v):
        if ch in "了的":
            v = v[:i]
            break
    if len(v) < 1 or v in _NOT_A_PLACE_ZH or (slot.name in ("home_zh", "work_zh") and len(v) < 2):
        return ""
    return v


_MONTHS = "january february march april may june july august september october november december".split()


def _date_tokens(raw: str) -> list[str]:
    low = raw.casefold()
    return [t for t in re.findall(r"[a-z]+|\d+", low) if t in _MONTHS or (t.isdigit() and 1 <= int(t) <= 31)]


def _numbers(text: str) -> set[int]:
    out = {int(n) for n in re.findall(r"\d+", text)}
    for run in re.findall(r"[一二两三四五六七八九十]+", text):
        n = _number(run)
        if n is not None:
            out.add(n)
    return out


def _number(raw: str) -> int | None:
    raw = raw.strip()
    if raw.isdigit():
        return int(raw)
    if not raw or any(ch not in _ZH_NUM and ch != "十" for ch in raw):
        return None
    if "十" not in raw:
        return _ZH_NUM[raw] if len(raw) == 1 else None
    tens, _, ones = raw.partition("十")
    return (_ZH_NUM.get(tens, 1) if tens else 1) * 10 + (_ZH_NUM.get(ones, 0) if ones else 0)


def _names(text: str) -> bool:
    return re.search(r"[A-Z][a-z]+", text[1:]) is not None or re.search(r"\b(?:called|named)\b", text, _I) is not None
