"""A third held-out corpus for correcting a memory in the conversation (core/correction.py), written
in one sitting on 2026-12-03 and committed before the grammar or the correction classifier
(core/correction_model.py) was run on it: every case is held out. Nothing is tuned or trained on
these sentences; bench/corrections.py reports them as their own split ("fresh2").

Every sentence is made up. Same shape as correction_phrasings.py: one user turn and the items
injected into the request just before it; CORRECTIONS name the item they correct (its index in
`shown`), LOOK_ALIKES must correct nothing. `{h0}`, `{h1}` stand for the handles of shown items.

Phrasings the earlier files have few of: "ancient history", "where did you get that", "set the
record straight", "that hasn't been the case", "heads up", "FYI that changed", "update your notes",
"close, but", "strike that", "you've confused", "I'm afraid that's off", a rhetorical question, and
in Chinese 太老了, 早变了, 老黄历, 不是这样的, 弄混了, 这条有误, 纠正下, 并不, 没有的事, 哪还, 有误.
Look-alikes use the same openings about other things: outdated software, prices, someone else's
move, a confirmation, a hypothetical without "if", a question without a mark, a screenplay.
"""

from __future__ import annotations

from correction_phrasings import AGE, BDAY, CAR, COFFEE, DOG, JOB, PARTNER, RUN, SH, SISTER, VEG, ZH_AGE, ZH_BRO, \
    ZH_CAT, ZH_CITY, ZH_DIET, ZH_JOB, ZH_PHONE, ZH_SCHOOL, Case, held_out_cases
from correction_heldout import GUITAR, PEANUT, ZH_CAR, ZH_HOBBY

FRESH2 = "fresh2"

KIDS = "Has two kids, Mia and Leo"
TENNIS = "Plays tennis every Sunday morning"
LANG = "Is learning Japanese"
ZH_GF = "我女朋友叫小雨"
ZH_BREAKFAST = "我每天早上喝豆浆"
ZH_GRAD = "我在上海交大读研究生"


def _cases(rows: list[tuple], correcting: bool) -> list[Case]:
    return held_out_cases(rows, correcting, FRESH2)


CORRECTIONS = _cases([
    ("en", [SH, JOB], "Nah, that's ancient history. Home is Xiamen these days.", 0),
    ("en", [JOB, AGE], "Where did you get that? I've never worked at Acme, I'm at Hooli.", 0),
    ("en", [DOG, SH], "Let me set the record straight: Biscuit is a hamster.", 0),
    ("en", [AGE], "That hasn't been the case for a while, I'm 38 now.", 0),
    ("en", [CAR, COFFEE], "Heads up, the Civic got totalled, I'm on a Vespa now", 0),
    ("en", [PARTNER], "Close, but my partner is Alexis, not Alex", 0),
    ("en", [VEG, RUN], "Strike that, I went back to eating meat last winter", 0),
    ("en", [COFFEE], "FYI that changed, my doctor took me off coffee and I drink rooibos now", 0),
    ("en", [SH, JOB], "Update your notes: I relocated to Qingdao in the autumn", 0),
    ("en", [SISTER, DOG], "You've confused my sister with my cousin, my sister's name is Yue", 0),
    ("en", [RUN], "The race isn't in October anymore, they pushed it to December", 0),
    ("en", [JOB, SH], "I'm afraid that's off, I retired from Acme in March", 0),
    ("en", [BDAY, AGE], "Uh, no, I was born on the 3rd of August", 0),
    ("en", [KIDS], "Two kids? I have three now, we had Ava in May", 0),
    ("en", [SH, DOG], "Please drop {h1}, Biscuit was my childhood dog", 1),
    ("en", [JOB, CAR], "{h0} isn't accurate anymore", 0),
    ("en", [TENNIS, SH], "I gave up tennis after my shoulder surgery, it's swimming now", 0),
    ("en", [LANG, JOB], "It's Korean I'm learning, not Japanese", 0),
    ("en", [SH], "Ha, that was ages ago, I've lived in Singapore for three years", 0),
    ("en", [CAR, DOG], "Wrong car - mine's a grey Subaru", 0),
    ("en", [VEG, PEANUT], "I'm not allergic to peanuts, it's shellfish", 1),
    ("en", [GUITAR, RUN], "The band broke up, I haven't played guitar in months", 0),
    ("en", [KIDS, PARTNER], "Mia is my niece, my kids are Leo and Sam", 0),
    ("en", [COFFEE, SH], "Erase {h0}, I can't stand coffee", 0),
    ("en", [JOB], "That's a mix-up, Acme is where my wife works; I'm a nurse at the city hospital", 0),
    ("en", [SH, AGE], "Not Shanghai, Suzhou - it's an hour away, people confuse them", 0),
    ("zh", [ZH_CITY, ZH_JOB], "你这个信息太老了，我现在住在广州", 0),
    ("zh", [ZH_JOB], "早变了，我跳槽去了拼多多", 0),
    ("zh", [ZH_CAT], "那都是老黄历了，咪咪送回老家了", 0),
    ("zh", [ZH_DIET, ZH_CITY], "不是这样的，我特别能吃辣，无辣不欢", 0),
    ("zh", [ZH_BRO, ZH_SCHOOL], "你弄混了，王强是我表哥，我亲哥叫王涛", 0),
    ("zh", [ZH_AGE], "这条有误，我今年二十六", 0),
    ("zh", [ZH_PHONE, ZH_CITY], "纠正下，我用的是vivo", 0),
    ("zh", [ZH_SCHOOL], "女儿并不在实验小学，在外国语小学", 0),
    ("zh", [ZH_CAT, ZH_DIET], "没有的事，我从来没养过猫", 0),
    ("zh", [ZH_CITY], "我哪还住北京啊，去年就回老家了", 0),
    ("zh", [ZH_JOB, ZH_PHONE], "把{h0}删了，那是我实习时候的", 0),
    ("zh", [ZH_CITY, ZH_JOB], "{h1}有误，我在昌平", 1),
    ("zh", [ZH_GF, ZH_JOB], "我女朋友不叫小雨了，我们分手了，现在的女朋友叫晓晴", 0),
    ("zh", [ZH_BREAKFAST], "豆浆早不喝了，改喝牛奶", 0),
    ("zh", [ZH_GRAD, ZH_CITY], "我已经毕业了，不在交大读书了", 0),
    ("zh", [ZH_CAR, ZH_HOBBY], "丰田是我爸的车，我自己开的是特斯拉", 0),
    ("zh", [ZH_HOBBY], "爬山是以前的爱好了，现在周末都去钓鱼", 0),
    ("zh", [ZH_AGE, ZH_BRO], "说我28岁的那条不对，我32了", 0),
    ("zh", [ZH_PHONE], "华为那个是公司配的，私人手机一直是苹果", 0),
    ("zh", [ZH_DIET, ZH_CAT], "这个你得改改，我现在吃辣了，胃好了", 0),
    ("zh", [ZH_SCHOOL, ZH_AGE], "女儿早升初中了，已经不是小学生了", 0),
    ("zh", [ZH_CITY, ZH_CAT], "不在朝阳了，搬到顺义了，忘了跟你说", 0),
], correcting=True)

LOOK_ALIKES = _cases([
    ("en", [SH], "That's outdated, Python 3.8 reached end of life already"),
    ("en", [JOB], "You're behind, the latest version of the library is 4.2"),
    ("en", [DOG], "Where did you get that number? The source says 12%"),
    ("en", [AGE], "Not a chance I'm paying 40 dollars for that"),
    ("en", [CAR], "Strike that sentence about the engine, it's too technical"),
    ("en", [COFFEE], "Update your notes: the standup moved to 10am"),
    ("en", [SH, JOB], "My neighbour relocated to Qingdao in the autumn"),
    ("en", [SISTER], "My sister keeps telling people I'm wrong about everything"),
    ("en", [PARTNER], "Alex's old car was a Civic too, funny coincidence"),
    ("en", [VEG], "Yep, still vegetarian, so skip the bacon"),
    ("en", [RUN], "The marathon in October, that's correct, and I'm nervous"),
    ("en", [BDAY], "March 3 is right, remind me to book a table"),
    ("en", [SH], "Ha, that was a great answer, thanks"),
    ("en", [JOB], "Close, but the function should return a list, not a tuple"),
    ("en", [KIDS], "Three kids would be too many for our flat, wouldn't it"),
    ("en", [TENNIS], "Suppose I gave up tennis, what else keeps my shoulders strong"),
    ("en", [LANG], "How do you say 'I'm not learning Korean' in Japanese"),
    ("en", [DOG], "Biscuit was a puppy once, now he's a grumpy old man"),
    ("en", [GUITAR], "The guitar I play is my dad's old Fender, still sounds great"),
    ("en", [PEANUT], "Double-check the label for peanuts, I don't trust it"),
    ("en", [SH], "In my screenplay the heroine says she never lived in Shanghai"),
    ("en", [JOB, CAR], "My boss switched to a Tesla last month"),
    ("en", [COFFEE], "Your last message was wrong about caffeine half-life, it's about 5 hours"),
    ("en", [AGE, SH], "Erase the last paragraph and rewrite it for a 12 year old"),
    ("en", [CAR], "The Civic needs new tires, no longer safe in the rain"),
    ("en", [SH], "No kidding, Shanghai rent went up again"),
    ("zh", [ZH_CITY], "你这个数据太老了，北京房价早就不是这个数了"),
    ("zh", [ZH_JOB], "早变了，这个接口新版已经废弃了"),
    ("zh", [ZH_CAT], "那都是老黄历了，现在养猫都喂生骨肉"),
    ("zh", [ZH_DIET], "不是这样的，这道题要先求导"),
    ("zh", [ZH_BRO], "我哥哥王强从来没去过上海"),
    ("zh", [ZH_AGE], "这条有误，请检查第三行代码"),
    ("zh", [ZH_PHONE], "纠正下你的语法，这里应该用过去时"),
    ("zh", [ZH_SCHOOL], "实验小学今年不招插班生了"),
    ("zh", [ZH_CAT], "没有的事，咪咪从来不抓沙发"),
    ("zh", [ZH_CITY], "北京这几天雾霾很严重"),
    ("zh", [ZH_JOB], "把这段删了，太啰嗦了"),
    ("zh", [ZH_GF], "小雨说我记性不好，老忘她生日"),
    ("zh", [ZH_BREAKFAST], "豆浆喝多了会不会胀气"),
    ("zh", [ZH_GRAD], "我室友已经毕业了，去了深圳"),
    ("zh", [ZH_CAR], "丰田的新车型改了设计，挺好看"),
    ("zh", [ZH_HOBBY], "这周末下雨，爬山取消了"),
    ("zh", [ZH_AGE], "我32岁的表姐刚生了宝宝"),
    ("zh", [ZH_PHONE], "你刚才推荐的手机不对，那款已经停产了"),
    ("zh", [ZH_DIET], "对的，还是不吃辣，帮我点个清淡的"),
    ("zh", [ZH_CITY, ZH_JOB], "电视剧里那个人说他早就从字节离职了"),
    ("zh", [ZH_CAT], "万一咪咪走丢了我该怎么找"),
    ("zh", [ZH_JOB], "老板说我方案写错了，要重写"),
], correcting=False)
