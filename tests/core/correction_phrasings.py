"""A corpus for correcting a memory in the conversation (core/correction.py): what people say
right after Amber injected something wrong about them, and what they say that looks like it but
corrects no memory.

Every sentence is made up. Each case is one user turn and the items injected into the request just
before it (what the person could be correcting): CORRECTIONS name the item they correct (its index
in `shown`), LOOK_ALIKES must correct nothing. `{h0}`, `{h1}` stand for the handles of shown items
(the test fills them in from the items' ids).

Written before the detector was tuned against it. Every third case of each list (index
2, 5, 8, ...) is "held_out" and is not used for tuning; bench/corrections.py reports the splits apart.

Decisions the corpus encodes:
- A correction says that what Amber holds is wrong or no longer true ("that's wrong", "actually",
  "not X but Y", "no longer", "不对", "其实", "已经不", "不再") and it concerns the person ("I", "my",
  "我") and one of the items just shown (shared words or a shared topic: where they live, work,
  names, age, what they eat...), or names an item by its handle.
- Correcting the assistant's answer is not correcting a memory: "That's wrong, 7 x 8 is 56",
  "不对，你算错了".
- Confirming is not correcting: "That's right, I still live in Shanghai", "没错，我妹妹叫林".
- Rounds one to four: a plain new statement without a marker ("I moved to Hangzhou") is left to
  extraction, which supersedes keyed facts later; it is in neither list. Round five (at the end)
  changes that: a new value stated for what a shown item is about is a correction, marker or not,
  and plain chat about the item's topic is a look-alike.
- Something true for now only ("No, I don't want coffee today") corrects no standing fact.
"""

from __future__ import annotations

from dataclasses import dataclass

TUNE = "tune"
HELD_OUT = "held_out"


@dataclass(frozen=True)
class Case:
    text: str
    shown: tuple[str, ...]  # the texts of the items injected just before, in block order
    target: int | None  # index in `shown` of the item corrected; None: no correction
    lang: str
    split: str
    round: int = 1  # 1: rounds one to four, written for the grammar's markers; 5: as people chat (see ROUND5)


def _split(index: int) -> str:
    return HELD_OUT if index % 3 == 2 else TUNE


def held_out_cases(rows: list[tuple], correcting: bool, split: str) -> list[Case]:
    """A held-out file's rows as cases, all in `split`: (lang, shown, text, target) for a correction,
    (lang, shown, text) for a look-alike."""
    out = []
    for row in rows:
        if correcting:
            lang, shown, text, target = row
        else:
            (lang, shown, text), target = row, None
        out.append(Case(text=text, shown=tuple(shown), target=target, lang=lang, split=split))
    return out


def _cases(rows: list[tuple], correcting: bool, first: int = 0, round: int = 1) -> list[Case]:
    out = []
    for i, row in enumerate(rows, start=first):
        if correcting:
            lang, shown, text, target = row
        else:
            (lang, shown, text), target = row, None
        out.append(Case(text=text, shown=tuple(shown), target=target, lang=lang, split=_split(i), round=round))
    return out


SH = "I live in Shanghai"
SISTER = "My sister is called Lan"
JOB = "Works as a backend engineer at Acme"
DOG = "Has a dog named Biscuit"
AGE = "I am 34 years old"
VEG = "Is vegetarian"
COFFEE = "Loves coffee, drinks three cups a day"
CAR = "Drives a blue Honda Civic"
BDAY = "Birthday is on March 3"
PARTNER = "Partner's name is Alex"
RUN = "Trains for a marathon in October"
ZH_JOB = "我在字节跳动工作"
ZH_CITY = "我住在北京朝阳区"
ZH_CAT = "我养了一只猫叫咪咪"
ZH_DIET = "我不吃辣"
ZH_BRO = "我哥哥叫王强"
ZH_SCHOOL = "女儿在实验小学上三年级"
ZH_PHONE = "用的是华为手机"
ZH_AGE = "我今年28岁"

CORRECTIONS = _cases([
    ("en", [SH, JOB], "That's wrong, I moved to Hangzhou", 0),
    ("en", [SISTER], "actually my sister is called Lin, not Lan", 0),
    ("en", [JOB, DOG], "That's not right, I left Acme in June and now work at Globex.", 0),
    ("en", [DOG, SH], "Actually my dog's name is Cookie, not Biscuit", 0),
    ("en", [AGE], "No, I'm 35 now, I had my birthday last week", 0),
    ("en", [VEG, COFFEE], "That's outdated - I eat fish again these days", 0),
    ("en", [COFFEE], "Not true anymore, I quit coffee last month", 0),
    ("en", [CAR, SH], "I don't drive the Civic anymore, I sold it and got a bike", 0),
    ("en", [BDAY], "Wrong date: my birthday is on March 13, not March 3", 0),
    ("en", [PARTNER, SH], "Actually, my partner is called Alexa, not Alex", 0),
    ("en", [RUN], "That's old news, I'm no longer training for the marathon", 0),
    ("en", [SH, DOG], "No, I don't live in Shanghai anymore, I live in Shenzhen now", 0),
    ("en", [JOB], "Correction: I'm a frontend engineer, not backend", 0),
    ("en", [SISTER, PARTNER], "You've got my sister's name wrong, it's Lin", 0),
    ("en", [SH, JOB, DOG], "forget {h2}", 2),
    ("en", [SH, JOB], "{h1} is wrong, I work at Globex now", 1),
    ("en", [VEG], "Actually I'm not vegetarian anymore", 0),
    ("en", [AGE, SH], "that's incorrect, I'm 43, not 34", 0),
    ("en", [CAR], "Update: I drive a red Tesla now, not the Honda", 0),
    ("en", [JOB, SH], "Nope, I quit my job at Acme, I'm freelancing now", 0),
    ("en", [DOG], "Sadly that's not true anymore, Biscuit passed away last year", 0),
    ("en", [SH], "That was true last year, but I've moved to Hangzhou since", 0),
    ("en", [PARTNER], "We broke up, I'm not with Alex anymore", 0),
    ("en", [COFFEE, VEG], "Actually I switched from coffee to green tea", 0),
    ("en", [SH, JOB], "please forget {h0}, it's wrong", 0),
    ("en", [BDAY, AGE], "My birthday isn't March 3, it's May 3", 0),
    ("zh", [ZH_JOB, ZH_CITY], "不对，我已经不在那家公司了", 0),
    ("zh", [ZH_CITY], "不对，我已经搬到杭州了", 0),
    ("zh", [ZH_CAT, ZH_CITY], "其实我的猫叫团团，不叫咪咪", 0),
    ("zh", [ZH_DIET], "我现在能吃辣了，以前不吃", 0),
    ("zh", [ZH_BRO], "你记错了，我哥哥叫王刚，不是王强", 0),
    ("zh", [ZH_SCHOOL, ZH_CITY], "不对，女儿已经上四年级了", 0),
    ("zh", [ZH_PHONE], "我早就不用华为了，现在用的是苹果", 0),
    ("zh", [ZH_AGE], "错了，我今年29岁", 0),
    ("zh", [ZH_JOB], "这个过时了，我去年就从字节跳动离职了", 0),
    ("zh", [ZH_CITY, ZH_CAT], "不是朝阳区，我住在海淀区", 0),
    ("zh", [ZH_CAT], "咪咪已经不在了，去年走的", 0),
    ("zh", [ZH_CITY, ZH_JOB], "忘掉{h0}吧，那个不对", 0),
    ("zh", [ZH_JOB, ZH_PHONE], "{h0}不对，我现在在阿里巴巴工作", 0),
    ("zh", [ZH_DIET, ZH_AGE], "其实我不是不吃辣，是不吃香菜", 0),
    ("zh", [ZH_BRO, ZH_CITY], "搞错了，王强是我弟弟，不是哥哥", 0),
    ("zh", [ZH_SCHOOL], "更正一下，女儿在育才小学，不在实验小学", 0),
    ("zh", [ZH_CITY], "我已经不住在北京了，搬回成都了", 0),
    ("zh", [ZH_JOB, ZH_CITY], "不对不对，我早就不在字节了", 0),
    ("zh", [ZH_AGE, ZH_CAT], "你说错了，我不是28岁，是32岁", 0),
    ("zh", [ZH_PHONE, ZH_JOB], "那个信息过期了，我换了小米手机", 0),
    ("zh", [ZH_CAT], "其实咪咪是狗，不是猫", 0),
    ("zh", [ZH_DIET], "不对，我现在吃辣了", 0),
    # second round: written after the detector's first version, measured once blind before any change
    ("en", [SH, JOB], "Hmm, that's out of date. I live in Beijing these days.", 0),
    ("en", [DOG, CAR], "No no, Biscuit is my neighbour's dog, mine is called Pepper", 0),
    ("en", [JOB, SH], "I actually work at Initech now, Acme was two jobs ago", 0),
    ("en", [AGE, BDAY], "Small correction: I'm 36, not 34", 0),
    ("en", [PARTNER, SISTER], "Alex and I split up last year, so that's not current", 0),
    ("en", [COFFEE], "Not anymore, I gave up caffeine entirely", 0),
    ("en", [VEG, SH], "That's no longer accurate - I'm vegan now, not just vegetarian", 0),
    ("en", [CAR, JOB], "I got rid of the Civic, I take the train now", 0),
    ("en", [RUN, AGE], "Actually the marathon got cancelled, I'm not training anymore", 0),
    ("zh", [ZH_CITY, ZH_JOB], "不是北京了，我上个月搬去了深圳", 0),
    ("zh", [ZH_BRO], "我哥哥不叫王强，叫王磊", 0),
    ("zh", [ZH_PHONE, ZH_CAT], "华为那个是旧手机，我现在用的是OPPO", 0),
    ("zh", [ZH_SCHOOL], "你记得不对，女儿是在实验中学，不是小学", 0),
    ("zh", [ZH_JOB, ZH_AGE], "我早就离开字节跳动了，现在自己创业", 0),
    ("zh", [ZH_CAT, ZH_DIET], "咪咪其实是只狗", 0),
    # third round: written after the fresh set (correction_heldout.py) was measured blind, on the kinds of
    # phrasing it showed the grammar lacked; never copies of its sentences
    ("en", [SH, CAR], "Scratch that: I'm in Nanjing these days", 0),
    ("en", [JOB, SH], "Sorry, I meant I work at Umbrella, Acme was my old employer", 0),
    ("en", [PARTNER], "No, it's Jordan. Alex was years ago.", 0),
    ("en", [COFFEE, AGE], "You have my drinks wrong, I'm strictly a tea person", 0),
    ("en", [CAR, DOG], "I haven't driven since the accident, the Civic is gone", 0),
    ("en", [RUN], "That info is old, I switched to cycling races", 0),
    ("en", [SISTER, SH], "Lan is my aunt, you mixed them up, my sister is Jia", 0),
    ("en", [DOG, PARTNER], "Biscuit is actually my roommate's dog, not mine", 0),
    ("en", [AGE], "Off by one: I'm 35", 0),
    ("zh", [ZH_CITY, ZH_DIET], "不是朝阳，是海淀，我早搬了", 0),
    ("zh", [ZH_BRO], "你记反了，王强是我表弟", 0),
    ("zh", [ZH_DIET, ZH_CAT], "那是以前了，我现在特别爱吃辣", 0),
    ("zh", [ZH_PHONE], "华为那部手机给我爸了，我自己用苹果", 0),
    ("zh", [ZH_JOB, ZH_AGE], "搞错了吧，我在京东上班", 0),
    ("zh", [ZH_SCHOOL, ZH_CAT], "女儿去年就转到了附属小学", 0),
    ("zh", [ZH_AGE, ZH_CITY], "我其实31岁，不是28", 0),
    # fourth round: more ways people say it, written before any change for them; fresh set not read
    ("en", [SH, JOB], "Not anymore - I moved back to Chengdu in May", 0),
    ("en", [JOB, DOG], "Haha no, that's my brother's job, I'm a teacher", 0),
    ("en", [DOG, SH], "Ugh, Amber has that wrong: my dog is Pepper", 0),
    ("en", [AGE, CAR], "Hm, no. I turned 40 in January.", 0),
    ("en", [VEG, COFFEE], "I've been vegan since last year, so not vegetarian", 0),
    ("en", [PARTNER, SISTER], "Minor fix - Alex is my brother-in-law, my partner is Robin", 0),
    ("en", [RUN, AGE], "Please correct that: the marathon is in November, not October", 0),
    ("en", [CAR], "The Civic was my old car, these days I ride an e-bike", 0),
    ("zh", [ZH_CITY, ZH_JOB], "哪有，我早就搬到苏州了", 0),
    ("zh", [ZH_BRO, ZH_CITY], "瞎说，我哥哥叫王军", 0),
    ("zh", [ZH_JOB, ZH_PHONE], "这条不准，我在网易上班", 0),
    ("zh", [ZH_AGE, ZH_CAT], "应该是30岁才对", 0),
], correcting=True)

LOOK_ALIKES = _cases([
    ("en", [SH], "That's wrong, 7 times 8 is 56, not 54"),
    ("en", [JOB], "Actually, can you make the answer shorter?"),
    ("en", [SH], "That's right, I still live in Shanghai"),
    ("en", [COFFEE], "No, I don't want coffee today, thanks"),
    ("en", [DOG], "Actually I was wondering if you could help me train my dog"),
    ("en", [JOB], "No, I meant the second function, not the first one"),
    ("en", [SISTER], "My sister is called Lan, she's visiting next week"),
    ("en", [SH], "That's not what I asked, I asked about the weather in Tokyo"),
    ("en", [AGE], "Actually I'm not sure what to cook tonight"),
    ("en", [VEG], "Wrong answer, try again with a vegetarian recipe"),
    ("en", [CAR], "No, the bug is in the parser, not the lexer"),
    ("en", [RUN], "That's incorrect, the marathon record is 2:00:35"),
    ("en", [SH, JOB], "Actually, let's talk about something else"),
    ("en", [PARTNER], "Alex says I'm wrong about the movie, but I'm not"),
    ("en", [BDAY], "Not quite, the meeting is on March 4, not March 3"),
    ("en", [SH], "I'm not in Shanghai right now, I'm on a business trip to Tokyo"),
    ("en", [DOG], "You're wrong about dogs, they can't eat grapes"),
    ("en", [JOB], "Correct, I still work at Acme"),
    ("en", [COFFEE], "Actually, I'd love another cup of coffee right now"),
    ("en", [SISTER, SH], "No, I don't think my sister would like that gift"),
    ("en", [SH], "forget it, let's move on"),
    ("en", [JOB], "That's not the error I'm seeing, it says timeout"),
    ("en", [AGE], "Nope, that didn't work either"),
    ("en", [VEG], "Is #12345 a valid ticket number?"),
    ("en", [RUN], "Actually the weather was perfect for my run this morning"),
    ("en", [SH, CAR], "Not exactly what I wanted, but close"),
    ("zh", [ZH_CITY], "不对，你算错了，应该是42"),
    ("zh", [ZH_JOB], "其实我也不知道该怎么办"),
    ("zh", [ZH_CITY], "没错，我还住在朝阳区"),
    ("zh", [ZH_CAT], "不是这个意思，我是问猫粮怎么选"),
    ("zh", [ZH_DIET], "我今天不想吃辣的"),
    ("zh", [ZH_BRO], "我哥哥王强下周来北京"),
    ("zh", [ZH_JOB], "不对吧，你再检查一下代码"),
    ("zh", [ZH_SCHOOL], "其实我想问一下怎么辅导作业"),
    ("zh", [ZH_PHONE], "错了错了，是第三个选项"),
    ("zh", [ZH_AGE], "我不是在问这个"),
    ("zh", [ZH_CITY, ZH_JOB], "算了，忘了吧"),
    ("zh", [ZH_CAT], "对，咪咪很可爱"),
    ("zh", [ZH_JOB], "不是的，这个函数没有返回值"),
    ("zh", [ZH_DIET], "其实这道菜不辣"),
    ("zh", [ZH_CITY], "我这周不在北京，在上海出差"),
    ("zh", [ZH_BRO, ZH_AGE], "你说得不对，长城不是从太空能看到的"),
    ("zh", [ZH_PHONE], "现在用的手机有点卡，怎么办"),
    ("zh", [ZH_SCHOOL], "不对，题目说的是三角形"),
    ("zh", [ZH_JOB, ZH_CITY], "其实今天天气不错"),
    ("zh", [ZH_CAT], "错，这道题的答案是B"),
    ("zh", [ZH_AGE], "没有，我没这么说过"),
    ("zh", [ZH_CITY], "好的，谢谢"),
    # second round: written after the detector's first version, measured once blind before any change
    ("en", [SH, JOB], "That's wrong, Shanghai is not the capital of China"),
    ("en", [DOG], "Actually, what breed do you think Biscuit is?"),
    ("en", [JOB], "No, the deadline at work moved to Friday, not Thursday"),
    ("en", [SISTER], "My sister Lan says hi, by the way"),
    ("en", [COFFEE, VEG], "That's not right, the recipe needs two eggs, not three"),
    ("en", [SH], "I no longer care about the weather in Shanghai, tell me about Tokyo"),
    ("en", [AGE], "Actually I'm feeling much better now, thanks"),
    ("en", [CAR], "You're wrong, the Civic has a 1.5 litre engine"),
    ("en", [RUN], "Nope, I meant the half marathon results, not the full one"),
    ("zh", [ZH_CITY], "不对，北京的人口不是两千万"),
    ("zh", [ZH_JOB], "其实字节跳动的新产品挺好用的"),
    ("zh", [ZH_CAT], "咪咪今天不吃饭，怎么回事"),
    ("zh", [ZH_BRO], "我哥哥王强说你说得不对"),
    ("zh", [ZH_PHONE], "错了，华为的新手机是下个月发布"),
    ("zh", [ZH_DIET], "其实我挺喜欢川菜的香味"),
    # third round (see the corrections' third round)
    ("en", [JOB, SH], "She said 'I quit Acme' at the party, can you believe it"),
    ("en", [SH], "What if I moved away from Shanghai next year, would you still remember me"),
    ("en", [CAR], "My dad no longer drives, he sold his car"),
    ("en", [COFFEE], "Actually the coffee at my office is amazing"),
    ("en", [PARTNER, SH], "Alex thinks I'm wrong about Shanghai traffic"),
    ("en", [DOG], "Actually yes, I still have Biscuit, he's twelve now"),
    ("en", [VEG], "Imagine I weren't vegetarian, which steak would you pick"),
    ("en", [JOB], "I meant the report for Acme, not the one for Globex"),
    ("en", [SISTER], "Scratch that, make the card for my sister shorter"),
    ("zh", [ZH_CITY], "我朋友说：“我早就不住朝阳区了。”"),
    ("zh", [ZH_JOB], "要是我离开字节跳动，你觉得去哪好"),
    ("zh", [ZH_CAT], "其实咪咪最喜欢晒太阳"),
    ("zh", [ZH_BRO], "王强说他已经换工作了"),
    ("zh", [ZH_DIET], "假设我能吃辣，火锅点哪个锅底"),
    ("zh", [ZH_PHONE], "我同事的华为手机坏了，他换了苹果"),
    ("zh", [ZH_AGE], "28岁换工作要不要紧"),
    # fourth round (see the corrections' fourth round)
    ("en", [SH], "Haha no, that joke was terrible"),
    ("en", [JOB], "Ugh, the build is broken again, not the tests"),
    ("en", [SISTER], "Please correct the grammar in this paragraph about my sister"),
    ("en", [COFFEE], "Not anymore? What do you mean by that"),
    ("en", [SH, JOB], "My coworker moved to Hangzhou last month"),
    ("en", [SH], "Actually, Shanghai in spring is beautiful"),
    ("en", [DOG], "I've been thinking about getting a second dog"),
    ("en", [JOB], "Minor fix: change the title to Q3 plan"),
    ("zh", [ZH_PHONE], "哪有这么贵，便宜点吧"),
    ("zh", [ZH_CITY], "瞎说，明天北京不会下雨"),
    ("zh", [ZH_JOB], "这条新闻不准，别信"),
    ("zh", [ZH_JOB, ZH_CITY], "我表弟在字节跳动工作"),
], correcting=False)


# fifth round (2026-12-03, after correction_fresh3.py was committed and before anything ran on it):
# turns as people say them, most with no correction word at all: the new value for what the item is
# about ("I live in Hangzhou now, since March" against "I live in Shanghai"). Look-alikes: the same
# shapes about someone else, a plan, a question, the assistant's answer; then plain chat about the
# item's topic that corrects nothing (what most turns are). Every third case held out, counting on
# from the lists above. Training data for the classifier; the grammar was not tuned on it.
CORRECTIONS += _cases([
    ("en", [SH, JOB], "I live in Hangzhou now, since March", 0),
    ("en", [SH, DOG], "Home's been Xi'an for a year and a half", 0),
    ("en", [JOB, SH], "I work at Globex these days, joined in the autumn", 0),
    ("en", [JOB, AGE], "Started a new role at Initech two months ago", 0),
    ("en", [JOB], "I'm a product manager now, moved off the engineering track", 0),
    ("en", [DOG, CAR], "Our dog is called Maple", 0),
    ("en", [DOG], "Biscuit lives with my ex now", 0),
    ("en", [AGE, SH], "I'm 36 as of last Tuesday", 0),
    ("en", [AGE], "Turned 35 over the summer", 0),
    ("en", [VEG, COFFEE], "I eat meat again, doctor's orders", 0),
    ("en", [VEG], "Went pescatarian in January", 0),
    ("en", [COFFEE, RUN], "One cup a day is my limit now", 0),
    ("en", [COFFEE], "I only drink matcha nowadays", 0),
    ("en", [CAR, SH], "I drive a Prius now", 0),
    ("en", [CAR], "Sold the Civic to my cousin in April", 0),
    ("en", [BDAY, AGE], "My birthday is the 23rd of March", 0),
    ("en", [BDAY], "I was born in June, on the 3rd", 0),
    ("en", [PARTNER, SISTER], "My partner is Casey", 0),
    ("en", [PARTNER], "Alex and I got divorced, I'm seeing someone called Jun", 0),
    ("en", [RUN, AGE], "I'm doing a half marathon in October, the full one is off the table", 0),
    ("en", [RUN], "I took up trail running last spring and dropped road races", 0),
    ("en", [SISTER, DOG], "My sister goes by Lina", 0),
    ("en", [SISTER], "Lan is my cousin, my sister is Xiu", 0),
    ("en", [SH, JOB], "Living in Chengdu these days, the food is incredible", 0),
    ("en", [JOB, CAR], "I've been freelancing full-time since the layoffs at Acme", 0),
    ("en", [PARTNER, SH], "My girlfriend's name is Priya, Alex was before her", 0),
    ("en", ["Plays tennis every Sunday morning", SH], "Tennis is on Saturday afternoons for me now", 0),
    ("en", ["Is learning Japanese", JOB], "I'm learning Spanish, Japanese is on hold", 0),
    ("en", ["Plays the guitar in a weekend band"], "I play drums in the band", 0),
    ("en", ["Is allergic to peanuts"], "It's cashews I react to, peanuts never bothered me", 0),
    ("en", [SH], "My flat is in Beijing, has been for two years", 0),
    ("en", [JOB], "I teach high school maths now", 0),
    ("en", [DOG, SH], "We rehomed Biscuit last year", 0),
    ("en", [AGE, CAR], "I'm 29", 0),
    ("zh", [ZH_CITY, ZH_JOB], "我现在在杭州了", 0),
    ("zh", [ZH_CITY], "我住在上海浦东，两年前搬的", 0),
    ("zh", [ZH_CITY, ZH_CAT], "我家在海淀了", 0),
    ("zh", [ZH_JOB, ZH_CITY], "我在腾讯上班", 0),
    ("zh", [ZH_JOB], "我现在是自由职业", 0),
    ("zh", [ZH_JOB, ZH_AGE], "今年开始在华为做硬件", 0),
    ("zh", [ZH_CAT, ZH_DIET], "我的猫叫豆豆", 0),
    ("zh", [ZH_CAT], "咪咪跟着我前任了", 0),
    ("zh", [ZH_DIET, ZH_CITY], "我能吃辣，特辣都行", 0),
    ("zh", [ZH_DIET], "最近爱上了麻辣火锅，越辣越好", 0),
    ("zh", [ZH_BRO, ZH_CITY], "我哥叫王刚", 0),
    ("zh", [ZH_BRO], "我没有哥哥，只有一个弟弟叫王强", 0),
    ("zh", [ZH_SCHOOL, ZH_AGE], "女儿上五年级", 0),
    ("zh", [ZH_SCHOOL], "女儿在育才小学读书", 0),
    ("zh", [ZH_PHONE, ZH_JOB], "我用的是苹果手机", 0),
    ("zh", [ZH_PHONE], "手机是去年买的小米", 0),
    ("zh", [ZH_AGE, ZH_CAT], "我三十三了", 0),
    ("zh", [ZH_AGE], "我今年26岁", 0),
    ("zh", ["我开一辆白色的丰田", "我周末喜欢去爬山"], "我开的是蔚来", 0),
    ("zh", ["我周末喜欢去爬山"], "我周末一般去游泳", 0),
    ("zh", ["我女朋友叫小雨"], "我女朋友叫思思", 0),
    ("zh", ["我每天早上喝豆浆"], "我早上只喝黑咖啡", 0),
    ("zh", ["我在上海交大读研究生", ZH_CITY], "我在复旦读博", 0),
    ("zh", [ZH_CITY, ZH_JOB], "搬家了，现在住在天津", 0),
    ("zh", [ZH_JOB, ZH_PHONE], "工作换了，去了百度", 0),
    ("zh", [ZH_CAT, ZH_CITY], "家里那只猫是英短，叫奶茶", 0),
    ("zh", [ZH_DIET, ZH_AGE], "口味早就变了，现在无辣不欢", 0),
    ("zh", [ZH_SCHOOL, ZH_CITY], "女儿今年上初一了", 0),
    ("zh", [ZH_AGE, ZH_BRO], "我都四十了", 0),
    ("zh", [ZH_PHONE, ZH_CAT], "华为那部摔坏了，换了一加", 0),
], correcting=True, first=len(CORRECTIONS), round=5)

LOOK_ALIKES += _cases([
    ("en", [SH, JOB], "My sister lives in Hangzhou now, since March"),
    ("en", [SH], "I'll be in Hangzhou for the conference next week"),
    ("en", [JOB], "My friend works at Globex these days"),
    ("en", [JOB], "Thinking of applying to Initech, their offices look nice"),
    ("en", [DOG], "Our neighbour's dog is called Maple"),
    ("en", [AGE], "My brother is 36 as of last Tuesday"),
    ("en", [VEG], "My husband eats meat, so I cook two dinners"),
    ("en", [COFFEE], "The cafe only sells matcha on Mondays"),
    ("en", [CAR], "Renting a Prius for the holiday"),
    ("en", [BDAY], "My niece's birthday is the 23rd of March"),
    ("en", [PARTNER], "Casey from work invited Alex and me to a barbecue"),
    ("en", [RUN], "The half marathon in October sold out already"),
    ("en", [SISTER], "My sister's friend Lina is visiting"),
    ("en", ["Has two kids, Mia and Leo"], "Mia's best friend has a baby brother called Theo"),
    ("en", ["Plays tennis every Sunday morning"], "The tennis courts are closed on Saturday afternoons"),
    ("en", ["Is learning Japanese"], "Spanish or Japanese, which is easier for English speakers"),
    ("en", ["Plays the guitar in a weekend band"], "Our drummer plays too loud"),
    ("en", ["Is allergic to peanuts"], "Cashews are pricey this year"),
    ("en", [SH], "I'd move to Chengdu in a heartbeat for the food"),
    ("en", [JOB], "Freelancing sounds scary to me, Acme is comfortable"),
    ("zh", [ZH_CITY], "我朋友现在在杭州了"),
    ("zh", [ZH_CITY], "下周我去杭州出差三天"),
    ("zh", [ZH_JOB], "我同学在腾讯上班"),
    ("zh", [ZH_JOB], "自由职业的社保怎么交"),
    ("zh", [ZH_CAT], "邻居家的猫叫豆豆"),
    ("zh", [ZH_DIET], "我老公能吃辣，特辣都行"),
    ("zh", [ZH_BRO], "王刚是我哥的同事"),
    ("zh", [ZH_SCHOOL], "五年级的作文怎么写"),
    ("zh", [ZH_PHONE], "苹果手机和小米哪个拍照好"),
    ("zh", [ZH_AGE], "我同事三十三了还没结婚"),
    ("zh", ["我开一辆白色的丰田"], "蔚来的换电站多吗"),
    ("zh", ["我周末喜欢去爬山"], "游泳和爬山都挺好的"),
    ("zh", ["我女朋友叫小雨"], "思思是我女朋友的表妹"),
    ("zh", ["我每天早上喝豆浆"], "黑咖啡空腹喝伤胃吗"),
    ("zh", ["我在上海交大读研究生"], "复旦读博要几年"),
    ("zh", [ZH_CITY], "天津的煎饼果子你吃过吗"),
    # plain chat about the item's topic
    ("en", [SH], "Walked along the Bund after dinner, lovely breeze"),
    ("en", [JOB], "Shipped the new billing service at work today"),
    ("en", [DOG], "Biscuit learned to shake hands"),
    ("en", [AGE], "Feeling every one of my 34 years after that hike"),
    ("en", [VEG], "Found a great tofu recipe"),
    ("en", [COFFEE], "My third coffee of the day is kicking in"),
    ("en", [CAR], "Washed the Civic, it looks new"),
    ("en", [BDAY], "Only two weeks until my birthday"),
    ("en", [PARTNER], "Alex made pancakes this morning"),
    ("en", [RUN], "Long run on Sunday, 30 km planned"),
    ("en", [SISTER], "Lan is coming over for dinner"),
    ("en", [SH, JOB], "The traffic in Shanghai was bad on the way to the office"),
    ("en", [JOB], "My manager at Acme approved my vacation"),
    ("en", [DOG], "Need a bigger bed for Biscuit"),
    ("en", [COFFEE, VEG], "Oat milk works great in my coffee"),
    ("zh", [ZH_CITY], "朝阳大悦城周末有活动"),
    ("zh", [ZH_JOB], "今天在字节加班到十点"),
    ("zh", [ZH_CAT], "咪咪晚上总在床上踩奶"),
    ("zh", [ZH_DIET], "不吃辣的话，粤菜是好选择"),
    ("zh", [ZH_BRO], "王强送了我一盒茶叶"),
    ("zh", [ZH_SCHOOL], "女儿期中考试数学考了满分"),
    ("zh", [ZH_PHONE], "华为手机的系统更新了"),
    ("zh", [ZH_AGE], "28岁生日准备怎么过"),
    ("zh", [ZH_CITY, ZH_JOB], "北京的秋天最舒服"),
    ("zh", [ZH_CAT], "咪咪今天特别黏人"),
    ("zh", [ZH_JOB], "字节的食堂伙食不错"),
    ("zh", [ZH_SCHOOL], "实验小学的运动会在下周三"),
    ("zh", [ZH_PHONE], "手机壳该换了"),
    ("zh", [ZH_DIET], "我还是不吃辣，帮我选个清淡的菜"),
    ("zh", [ZH_AGE, ZH_CAT], "我今年28岁，想学钢琴"),
], correcting=False, first=len(LOOK_ALIKES), round=5)


# sixth round (2026-12-05, written for the update frames, core/update.py, before they ran on it):
# first-person statements that name a value for the item's topic and change nothing: the same value
# restated, a trip, a past time, an addition, a possessive, a number that is no age, a name that is
# no name, agreeing with someone.
LOOK_ALIKES += _cases([
    ("en", [PARTNER], "My partner is Alex's biggest fan"),
    ("en", [SH], "I live in Shanghai but I'm in Hangzhou this week for a project"),
    ("en", [JOB], "I work at Acme, though today I'm working from a cafe"),
    ("en", [AGE], "I'm 34 and I still love cartoons"),
    ("en", [AGE], "I'm 12 kilometres into my long run"),
    ("en", [AGE], "I'm 40 minutes from the office"),
    ("en", [AGE], "I'm 2 chapters from the end of the book"),
    ("en", [CAR], "I drive a Civic, and my wife drives a Tesla"),
    ("en", [CAR], "I drive a lot for work"),
    ("en", ["Plays the guitar in a weekend band"], "I play the guitar and sing a bit"),
    ("en", ["Plays the guitar in a weekend band"], "I play piano too, badly"),
    ("en", ["Is learning Japanese"], "I'm learning Python at work"),
    ("en", [JOB], "I'm a big fan of Acme's new product"),
    ("en", [JOB], "I'm an engineer at heart"),
    ("en", [SH], "I moved to Shanghai in 2019 and never looked back"),
    ("en", [SH], "I've lived in Berlin and Paris before"),
    ("en", [BDAY], "I was born in Chengdu, in a tiny hospital"),
    ("en", [PARTNER], "I'm with Casey on this one, pineapple belongs on pizza"),
    ("en", [SISTER], "My sister is Lan, she's the funny one"),
    ("en", [DOG], "My dog is called Biscuit, he's a corgi"),
    ("en", [PARTNER], "My wife is Canadian, so we do two Thanksgivings"),
    ("en", [JOB], "I work for Acme's biggest client on Fridays"),
    ("en", [SH], "When I lived in Hangzhou I cycled everywhere"),
    ("en", [COFFEE], "I drink coffee black, no sugar"),
    ("zh", [ZH_CITY], "我住在北京，但这周在上海开会"),
    ("zh", [ZH_CITY], "我现在在上海了，刚下飞机"),
    ("zh", [ZH_JOB], "我在腾讯上班的时候认识了他"),
    ("zh", [ZH_AGE], "我28岁那年去了西藏"),
    ("zh", [ZH_PHONE], "我换了华为的耳机"),
    ("zh", [ZH_BRO], "我哥叫我去吃饭"),
    ("zh", [ZH_CAT], "我家猫叫咪咪，特别乖"),
    ("zh", [ZH_CITY], "我住在朝阳区，离公司很近"),
    ("zh", [ZH_JOB], "我在字节上班，天天加班"),
    ("zh", [ZH_JOB], "我在厨房做饭呢"),
    ("zh", [ZH_CITY], "我现在在路口了，马上到"),
    ("zh", [ZH_PHONE], "我用的是小米的充电器"),
    ("zh", ["我周末喜欢去爬山"], "我周末一般去看我妈"),
    ("zh", [ZH_AGE], "我都28了还在长身体"),
    ("zh", [ZH_BRO], "我哥是医生"),
    ("zh", [ZH_CITY], "以前我住在上海，后来搬到北京"),
], correcting=False, first=len(LOOK_ALIKES), round=6)


# seventh round (2026-12-05, written before the grammar's markers were widened for it): pushback as
# people say it, beyond "that's wrong": a rhetorical question, "ancient history", "you're behind",
# "I never said that", "you've confused me with...", "for the record", "update your notes", "记岔了",
# "老黄历", "有误", "从没"; look-alikes with the same words about other things. Every third held out.
CORRECTIONS += _cases([
    ("en", [SH, JOB], "Where did you get that? I've been in Hangzhou for two years", 0),
    ("en", [JOB, SH], "Acme is ancient history, I'm at Globex", 0),
    ("en", [DOG, CAR], "You're behind, Biscuit went to my parents' farm", 0),
    ("en", [SISTER, DOG], "I never said that, my sister is called Lin", 0),
    ("en", [PARTNER, SH], "You've confused me with someone else, my partner is Sam", 0),
    ("en", [AGE, SH], "For the record, I'm 37 now", 0),
    ("en", [COFFEE, RUN], "Update your notes: I quit coffee in the spring", 0),
    ("en", [CAR, DOG], "Strike that, I drive a Kia these days", 0),
    ("en", [VEG, JOB], "That's changed, I eat fish again", 0),
    ("en", [BDAY, AGE], "Not quite, my birthday is March 13", 0),
    ("en", [RUN, SH], "That was years ago, I run trails now", 0),
    ("en", [JOB, CAR], "Says who? I left Acme in June", 0),
    ("en", [SH, DOG], "That's someone else, I've never lived in Shanghai, I'm in Shenzhen", 0),
    ("en", [DOG, AGE], "Long gone, sadly, Biscuit died last winter", 0),
    ("en", [JOB, SH], "To be clear, I don't work at Acme any more, I'm freelance", 0),
    ("zh", [ZH_CITY, ZH_JOB], "你记岔了，我住在海淀", 0),
    ("zh", [ZH_JOB, ZH_CITY], "字节那是老黄历了，我现在在美团", 0),
    ("zh", [ZH_CAT, ZH_DIET], "这条有误，咪咪是我姐姐的猫", 0),
    ("zh", [ZH_BRO, ZH_CITY], "我从没说过我哥叫王强，他叫王刚", 0),
    ("zh", [ZH_DIET, ZH_AGE], "早变了，我现在挺能吃辣的", 0),
    ("zh", [ZH_PHONE, ZH_JOB], "信息旧了，我用的是小米", 0),
    ("zh", [ZH_AGE, ZH_CAT], "这个并不对，我今年30岁", 0),
    ("zh", [ZH_SCHOOL, ZH_CITY], "以前是三年级，女儿现在上四年级", 0),
    ("zh", [ZH_CITY, ZH_CAT], "哪还住朝阳啊，我早搬到通州了", 0),
], correcting=True, first=len(CORRECTIONS), round=7)

LOOK_ALIKES += _cases([
    ("en", [SH], "Where did you get that recipe? It looks amazing"),
    ("en", [JOB], "The Roman Empire is ancient history, but I love reading about it"),
    ("en", [DOG], "You're behind on the news, the match ended 2-1"),
    ("en", [SISTER], "I never said that to my boss, I only thought it"),
    ("en", [PARTNER], "You've confused the two formulas, the first one is for area"),
    ("en", [AGE], "For the record, the meeting is at 3 pm"),
    ("en", [COFFEE], "Update your notes app, it keeps crashing"),
    ("en", [CAR], "Strike that word from the essay, it sounds stiff"),
    ("en", [VEG], "That's changed the way I think about cooking, thanks"),
    ("en", [BDAY], "Not quite done with the cake, two more minutes"),
    ("en", [RUN], "That was years ago for my brother, he's retired now"),
    ("en", [JOB], "Says who, the manual? I'll check"),
    ("en", [SH], "That's someone else's umbrella, not mine"),
    ("en", [DOG], "Long gone are the days of dial-up internet"),
    ("en", [JOB], "To be clear, the deadline is Friday"),
    ("zh", [ZH_CITY], "你记岔了公式，应该是平方"),
    ("zh", [ZH_JOB], "这种做法是老黄历了，现在都用新方法"),
    ("zh", [ZH_CAT], "这条新闻有误，记者写错了日期"),
    ("zh", [ZH_BRO], "我从没去过西藏，好想去"),
    ("zh", [ZH_DIET], "天气早变了，带把伞吧"),
    ("zh", [ZH_PHONE], "这本书的信息旧了，是十年前出的"),
    ("zh", [ZH_AGE], "这个答案并不对，再算一遍"),
    ("zh", [ZH_SCHOOL], "以前是手写作业，现在都用平板了"),
    ("zh", [ZH_CITY], "哪还有这么便宜的房子啊"),
], correcting=False, first=len(LOOK_ALIKES), round=7)


def split(cases: list[Case], name: str) -> list[Case]:
    return [c for c in cases if c.split == name]
