"""A fifth held-out corpus for correcting a memory in the conversation (core/correction.py), written
in one sitting on 2026-12-05 and committed before the grammar, the correction classifier
(core/correction_model.py) or anything else was run on it: every case is held out. Nothing is tuned
or trained on these sentences; bench/corrections.py reports them as their own split ("fresh4"), once.

Every sentence is made up. Same shape as correction_phrasings.py: one user turn and the items
injected into the request just before it; CORRECTIONS name the item they correct (its index in
`shown`), LOOK_ALIKES and ORDINARY must correct nothing. `{h0}`, `{h1}` stand for the handles of
shown items.

The corrections mix three kinds: about a third push back with a word or phrase ("nah", "old info",
"you're behind", "不是啦", "早不是了", "你记岔了"), about half carry no correction word at all and just
state the new value ("I'm a school nurse now", "我老婆叫小雪"), and the rest set the new value
against the old ("X, not Y", "no longer", "已经不", "不再", "换成", "改成"). Look-alikes reuse those
words and shapes for someone else, a plan or a wish, a hypothetical, a question, the assistant's
answer, a passing moment, a confirmation, a quote, a place or brand as a thing, or the past
remembered without a change. ORDINARY turns are plain chat about the item's topic.
"""

from __future__ import annotations

import re

from correction_phrasings import AGE, BDAY, CAR, COFFEE, DOG, JOB, PARTNER, RUN, SH, SISTER, VEG, ZH_AGE, ZH_BRO, \
    ZH_CAT, ZH_CITY, ZH_DIET, ZH_JOB, ZH_PHONE, ZH_SCHOOL, Case, held_out_cases

FRESH4 = "fresh4"

NIGHT = "Works night shifts at the hospital"
KID = "Son Theo is 7 and in second grade"
PHONE = "Uses an iPhone 12"
JAPANESE = "Is learning Japanese"
SHELLFISH = "Is allergic to shellfish"
SWIM = "Swims on Tuesday and Thursday evenings"
MASTERS = "Studying for a master's in economics"
BIKE = "Cycles to work every day"
ROOMMATES = "Rents a flat with two roommates"
TITLE = "Is a senior product designer"
ZH_YOGA = "我每周三晚上练瑜伽"
ZH_BYD = "我开一辆白色的比亚迪"
ZH_PEANUT = "我对花生过敏"
ZH_JAPANESE = "我在学日语"
ZH_SHARE = "我和室友合租一套两居室"
ZH_BDAY = "我生日是十月八号"
ZH_WIFE = "我老婆叫小雨"
ZH_MASTERS = "我在读计算机研究生"


def _cases(rows: list[tuple], correcting: bool) -> list[Case]:
    return held_out_cases(rows, correcting, FRESH4)


CORRECTIONS = _cases([
    # English, a correction word or phrase
    ("en", (JOB, SH, DOG), "nah, I left Shanghai ages ago, I'm in Chengdu now", 1),
    ("en", (COFFEE, JOB), "That was years ago. I quit coffee completely, it's just herbal tea now", 0),
    ("en", (AGE, CAR), "old info — sold the Civic last spring, I drive a grey Mazda 3 now", 1),
    ("en", (NIGHT, PARTNER), "Where'd you get that? I've been on day shifts since the summer.", 0),
    ("en", (RUN, VEG), "you're behind, I started eating fish again a few months back", 1),
    ("en", (PHONE, SWIM), "{h0} is out of date, I'm on a Pixel 8 now", 0),
    ("en", (BDAY, SISTER), "Wrong date lol. My birthday's in May, the 21st", 0),
    ("en", (PARTNER, DOG), "Hmm, that's stale. Alex and I split up last year, I'm with Jordan now.", 0),
    ("en", (COFFEE, SHELLFISH), "Scratch that, it's peanuts I'm allergic to. Shellfish is totally fine", 1),
    ("en", (KID, JOB), "You've got my job mixed up, I'm at Globex these days doing data engineering", 1),
    ("en", (ROOMMATES, RUN), "Correction: the roommates moved out in September, I've got the place to myself", 0),
    ("en", (SISTER, JOB), "Please fix {h0}, my sister is Lin. Lan is my cousin!", 0),
    # English, no correction word: the new value, stated
    ("en", (SH, JOB), "Living in Valencia these days, the wether is unreal", 0),
    ("en", (DOG, BDAY), "Biscuit passed away in August. We adopted a cat called Mango a few weeks later.", 0),
    ("en", (BDAY, CAR), "I bike everywhere since I got rid of the car", 1),
    ("en", (AGE,), "just turned 36 🎉", 0),
    ("en", (BIKE, JOB), "I take the train to work now, they closed the bike lane on my route", 0),
    ("en", (DOG, KID, RUN), "Theo started third grade this fall, he's eight now!", 1),
    ("en", (VEG, SWIM), "Swimming is Monday and Wednesday mornings for me now, before work", 1),
    ("en", (JAPANESE, AGE), "Been learning Korean for a year now, Japanese kind of fell by the wayside", 0),
    ("en", (CAR, TITLE), "I got promoted to design director in October", 1),
    ("en", (NIGHT, DOG), "I'm a school nurse now. Regular hours, home by four.", 0),
    ("en", (SWIM, ROOMMATES), "we bought a little house outside town in the spring, finally have a garden", 1),
    ("en", (VEG, SISTER), "I eat meat again, mostly chicken and the odd steak", 0),
    ("en", (SHELLFISH, KID), "Turns out I outgrew the shellfish allergy, had prawns on saturday and nothing happened", 0),
    ("en", (PARTNER, SISTER), "My sister goes by Lana these days", 1),
    ("en", (MASTERS, BDAY), "I moved my master's over to public policy this semester", 0),
    ("en", (PHONE, CAR), "typing this on my new samsung, still getting usd to the keyboard", 0),
    ("en", (RUN, COFFEE), "I'm down to one coffee a day, mornings only", 1),
    ("en", (RUN, AGE), "The race I'm training for is the Berlin half in March.", 0),
    # English, the new value set against the old
    ("en", (BDAY, SISTER), "My birthday's March 13, not March 3", 0),
    ("en", (CAR, DOG), "I don't have Biscuit anymore, he lives with my parents on their farm now", 1),
    ("en", (SH, AGE), "I no longer live in Shanghai. Moved to Suzhou for a quieter life", 0),
    ("en", (BIKE, ROOMMATES), "I don't cycle to work anymore, it's the bus since my knee surgery", 0),
    ("en", (PHONE, JAPANESE), "not studying Japanese any more, it's Italian now", 1),
    ("en", (PARTNER, COFFEE, JOB), "I'm a frontend engineer now, not backend. Same company though", 2),
    # Chinese, a correction word or phrase
    ("zh", (ZH_JOB, ZH_CAT), "不是啦，我早就从字节出来了，现在在小红书", 0),
    ("zh", (ZH_CITY, ZH_CAT), "你记岔了，咪咪是我妈养的，我自己养的是只柯基，叫豆豆", 1),
    ("zh", (ZH_CITY, ZH_DIET), "早不是了，我去年就搬到杭州了", 0),
    ("zh", (ZH_PHONE, ZH_AGE), "哪来的28，我都31了", 1),
    ("zh", (ZH_YOGA, ZH_BRO), "这条过时了，瑜伽我现在周六上午练", 0),
    ("zh", (ZH_BRO, ZH_JOB), "{h0} 写错了，我哥叫王刚", 0),
    ("zh", (ZH_DIET, ZH_PEANUT), "搞错了吧，我是对芒果过敏，花生随便吃", 1),
    ("zh", (ZH_BYD, ZH_CITY), "老黄历了，比亚迪早卖了，现在开特斯拉", 0),
    # Chinese, no correction word
    ("zh", (ZH_PHONE,), "我现在用的是小米14", 0),
    ("zh", (ZH_CAT, ZH_PHONE, ZH_SCHOOL), "女儿今年升四年级了，还转到了育才小学", 2),
    ("zh", (ZH_AGE, ZH_DIET), "在长沙待了两年，现在无辣不欢", 1),
    ("zh", (ZH_WIFE, ZH_BRO), "我老婆叫小雪，下雪的雪", 0),
    ("zh", (ZH_SHARE, ZH_YOGA), "上个月在通州买了房，现在一个人住", 0),
    ("zh", (ZH_PHONE, ZH_JAPANESE), "日语学到N3就搁下了，最近在学法语，准备明年去蒙特利尔读书", 1),
    ("zh", (ZH_CAT, ZH_SCHOOL), "咪咪去年冬天走了，家里现在没养宠物", 0),
    ("zh", (ZH_WIFE, ZH_BDAY), "我生日是十月十八号哦", 1),
    ("zh", (ZH_MASTERS, ZH_CITY), "去年研究生毕业了，现在在一家银行做风控", 0),
    ("zh", (ZH_AGE, ZH_JOB), "上个月入职了拼多多，做产品经理", 1),
    ("zh", (ZH_BRO, ZH_SHARE), "我哥前年改了名，现在叫王晨", 0),
    ("zh", (ZH_DIET, ZH_YOGA), "瑜伽现在是每周一和周四晚上", 1),
    # Chinese, the new value set against the old
    ("zh", (ZH_CITY, ZH_JOB), "我已经不住朝阳了，搬到海淀了", 0),
    ("zh", (ZH_DIET, ZH_CAT), "我现在不再忌辣了，吃火锅都点红锅", 0),
    ("zh", (ZH_BYD, ZH_PHONE), "手机换成苹果了", 1),
    ("zh", (ZH_JAPANESE, ZH_WIFE), "日语不学了，改成学西班牙语", 0),
], correcting=True)

LOOK_ALIKES = _cases([
    # someone else
    ("en", (SH, JOB), "My brother's living in Valencia these days, I'm so jealous of the weather"),
    ("en", (DOG, PARTNER), "My neighbour's dog is called Mango and he is a menace"),
    ("en", (AGE, BDAY), "my husband just turned 36 last week"),
    ("en", (JOB, SISTER), "My sister got promoted to design director at Globex!"),
    ("en", (CAR, COFFEE), "My dad finally sold his Civic, he drives a Mazda now"),
    ("en", (VEG, RUN), "My roommate eats meat again, mostly chicken, after ten years vegetarian."),
    # a plan or a wish
    ("en", (SH, AGE), "Might move to Lisbon next year if the visa works out"),
    ("en", (JOB, CAR), "thinkng about applying to Globex, their data team looks fun"),
    ("en", (PHONE, SWIM), "I'm tempted to get a Pixel when this iPhone finally dies"),
    ("en", (JAPANESE, AGE), "Maybe I'll pick up Korean once I'm done with Japanese"),
    # a hypothetical
    ("en", (DOG, SH), "If I ever got a second dog I'd name it Pepper"),
    ("en", (NIGHT, PARTNER), "If I switched to day shifts, would my sleep actually get better?"),
    ("en", (VEG, COFFEE), "Suppose I started eating fish again, what would be the easiest recipes to start with?"),
    # a question to the assistant
    ("en", (BDAY, SISTER), "What day of the week is March 3 next year?"),
    ("en", (SHELLFISH, DOG), "Can someone with a shellfish allergy eat fish sauce?"),
    ("en", (KID, JOB), "What should a second grader be able to read by the end of the year?"),
    ("en", (RUN, COFFEE), "how many weeks out from an October marathon should I start tapering"),
    # a correction of the assistant's answer
    ("en", (AGE, CAR), "That's wrong, 15% of 80 is 12, not 14"),
    ("en", (SH, JOB), "Actually Shanghai's population is over 24 million, your number is old"),
    ("en", (BDAY, PARTNER), "No, the capital of Australia is Canberra, not Sydney."),
    ("en", (MASTERS, KID), "That's not right, a master's in the UK is usually one year, not two"),
    # a passing moment
    ("en", (SH, DOG), "I'm in Lisbon this week for a conference, back Sunday"),
    ("en", (COFFEE, JOB), "No coffee for me today, I've got a stomach bug"),
    ("en", (BIKE, CAR), "Taking the bus this week because my bike has a flat"),
    ("en", (NIGHT, DOG), "covering a couple of day shifts this week for a colleague"),
    # a confirmation
    ("en", (JOB, SH), "Yep, still at Acme, still doing backend"),
    ("en", (DOG, AGE), "{h0} is right, Biscuit's still with me. He's getting old though"),
    ("en", (PARTNER, BDAY), "That's right, Alex and I are still together"),
    ("en", (SHELLFISH, PHONE), "Correct, shellfish is the only thing I'm allergic to"),
    ("en", (ROOMMATES, SWIM), "still sharing with the same two roommates, nothing's changed there"),
    # a quote
    ("en", (SH, JOB), "My mum keeps saying I don't really live in Shanghai, I live at the office"),
    ("en", (CAR, PHONE), "The dealer told me 'this Civic is worth nothing now', which, rude"),
    # a place or a brand as a thing
    ("en", (SH, COFFEE), "Chengdu's hotpot is on another level, we should plan a trip"),
    ("en", (PHONE, CAR), "Samsung's new foldable looks fragile tbh"),
    # the past remembered, nothing changed
    ("en", (VEG, RUN), "Before I went vegetarian I used to eat bacon every single morning"),
    ("en", (SH, AGE), "Before I moved to Shanghai I'd never even tried xiaolongbao"),
    # Chinese: someone else
    ("zh", (ZH_JOB, ZH_CITY), "我表弟现在在美团上班"),
    ("zh", (ZH_CAT, ZH_AGE), "我闺蜜家的猫也叫咪咪，哈哈"),
    ("zh", (ZH_BYD, ZH_PHONE), "我爸上周把他的比亚迪卖了，换了辆理想"),
    # a plan or a wish
    ("zh", (ZH_JOB, ZH_DIET), "有点想换个工作，在字节太卷了"),
    ("zh", (ZH_CITY, ZH_CAT), "明年可能会搬去杭州，还在考虑"),
    ("zh", (ZH_PHONE, ZH_SCHOOL), "等华为新款出来我再换手机"),
    ("zh", (ZH_JAPANESE, ZH_AGE), "日语学完想再学点韩语"),
    # a hypothetical
    ("zh", (ZH_DIET, ZH_CITY), "要是我能吃辣就好了，川菜看着都好香"),
    ("zh", (ZH_PEANUT, ZH_JOB), "如果不小心吃到花生，第一时间应该怎么处理？"),
    # a question to the assistant
    ("zh", (ZH_SCHOOL, ZH_PHONE), "三年级的数学一般学到哪里？"),
    ("zh", (ZH_YOGA, ZH_BRO), "周三晚上练瑜伽之前吃点什么比较好"),
    ("zh", (ZH_SHARE, ZH_CITY), "合租的时候水电费一般怎么分比较公平？"),
    # a correction of the assistant's answer
    ("zh", (ZH_AGE, ZH_JOB), "不对吧，28乘以12是336，不是326"),
    ("zh", (ZH_CITY, ZH_DIET), "你记错了，故宫在东城区，不在西城"),
    ("zh", (ZH_BDAY, ZH_WIFE), "不是啦，寒露是在十月八号前后，不是九月"),
    # a passing moment
    ("zh", (ZH_CITY, ZH_JOB), "这周出差在上海，周五回北京"),
    ("zh", (ZH_YOGA, ZH_DIET), "这周三要加班，瑜伽只能请假了"),
    ("zh", (ZH_BYD, ZH_CITY), "车这两天送去保养了，只好打车上班"),
    # a confirmation
    ("zh", (ZH_BRO, ZH_CAT), "对，我哥就叫王强，没错"),
    ("zh", (ZH_JOB, ZH_CITY), "{h0} 没问题，我还在字节"),
    ("zh", (ZH_WIFE, ZH_BDAY), "是的，小雨是我老婆，我们结婚五年了。"),
    # a quote
    ("zh", (ZH_AGE, ZH_SCHOOL), "我妈老说“你都三十的人了”，其实我才28"),
    # a brand as a thing
    ("zh", (ZH_PHONE, ZH_JOB), "华为的鸿蒙系统最近更新得挺勤快"),
    # the past remembered, nothing changed
    ("zh", (ZH_CITY, ZH_BRO), "刚搬来北京那年冬天，冷得我直哭"),
], correcting=False)

ORDINARY = _cases([
    ("en", (DOG, SH), "Biscuit stole a whole bagette off the counter this morning"),
    ("en", (JOB, AGE), "Long day at Acme, the deploy broke twice"),
    ("en", (SH, COFFEE), "It's been raining in Shanghai for like five days straight"),
    ("en", (COFFEE, CAR), "Just made my second cup. The new beans are a bit sour."),
    ("en", (CAR, PHONE), "The Civic needs new tyres before winter, any brands you'd recommend?"),
    ("en", (RUN, DOG), "Did 18 miles today, legs are jelly"),
    ("en", (PARTNER, BDAY), "Alex is cooking tonight so I'm on dishes"),
    ("en", (SISTER, JOB), "Lan sent me a video of her cat falling off the sofa lol"),
    ("en", (VEG, SISTER), "Can you suggest a vegetarian lasagne that doesn't use ricotta?"),
    ("en", (BDAY, PARTNER), "Birthday's coming up in March and I have zero plans"),
    ("en", (AGE, RUN), "my knees are definitely feeling 34 today"),
    ("en", (NIGHT, COFFEE), "Rough night shift. Three admissions in an hour."),
    ("en", (KID, DOG), "Theo lost his first tooth at school today and is very proud of himself"),
    ("en", (PHONE, SH), "My iPhone battery barely lasts till lunch, is that normal for a three year old phone?"),
    ("en", (JAPANESE, AGE), "Finally got through the whole hiragana chart without looking"),
    ("en", (SHELLFISH, VEG), "Ordered pad thai and triple-checked there was no shrimp in it"),
    ("en", (SWIM, RUN), "The pool was freezing tonight, only managed 30 lengths"),
    ("en", (MASTERS, JOB), "econometrics exam on friday, send help"),
    ("en", (BIKE, CAR), "Got caught in the rain cycling in, soaked to the bone"),
    ("en", (ROOMMATES, DOG), "One of my roommates keeps leaving dishes in the sink, how do I bring it up nicely?"),
    ("en", (TITLE, JOB), "Reviewing portfolios for the junior designer role all afternoon"),
    ("en", (JOB, PARTNER), "we had a team offsite today, mostly just pizza and a whiteboard"),
    ("en", (DOG, BDAY), "Does Biscuit need a rabies booster every year or every three?"),
    ("en", (SH,), "Any good day trips from Shanghai for a long weekend?"),
    ("en", (COFFEE,), "thinking of getting a grinder, is burr really that much better"),
    ("en", (PARTNER, SISTER), "Alex and Lan are finally meeting this weekend, kind of nervous"),
    ("en", (RUN, SWIM), "Registered for the marathon today. No backing out now!"),
    ("en", (KID, JOB), "Parent-teacher night for Theo's class is thursday"),
    ("en", (CAR, BIKE), "Washed the car for the first time in months, turns out it really is blue"),
    ("en", (NIGHT, KID), "Sleeping during the day is so hard with the neighbours renovating"),
    ("zh", (ZH_JOB, ZH_CITY), "今天公司食堂的红烧肉居然挺好吃"),
    ("zh", (ZH_CAT, ZH_AGE), "咪咪又把我的耳机线咬断了"),
    ("zh", (ZH_CITY, ZH_JOB), "朝阳这边今天雾霾好重"),
    ("zh", (ZH_DIET, ZH_BRO), "有没有不辣的湘菜推荐？"),
    ("zh", (ZH_BRO, ZH_CAT), "王强下个月结婚，我得准备份子钱了"),
    ("zh", (ZH_SCHOOL, ZH_PHONE), "女儿今天数学考了满分，开心"),
    ("zh", (ZH_PHONE, ZH_BYD), "华为手机怎么关掉负一屏？"),
    ("zh", (ZH_AGE, ZH_BDAY), "28岁了还天天被家里催婚，好烦"),
    ("zh", (ZH_YOGA, ZH_DIET), "今晚瑜伽老师教了个新体式，差点没站稳"),
    ("zh", (ZH_BYD, ZH_CITY), "比亚迪的车机有时候会卡一下"),
    ("zh", (ZH_PEANUT, ZH_DIET), "去超市买零食都得先看配料表里有没有花生"),
    ("zh", (ZH_JAPANESE, ZH_JOB), "今天背了五十个日语单词"),
    ("zh", (ZH_SHARE, ZH_CITY), "室友今天包了一锅饺子，分了我一大碗"),
    ("zh", (ZH_BDAY, ZH_WIFE), "快到十月了，想想生日怎么过"),
    ("zh", (ZH_WIFE, ZH_BRO), "小雨最近迷上了做面包，家里全是面粉"),
    ("zh", (ZH_MASTERS, ZH_JOB), "开题报告明天要交，还差一半没写"),
    ("zh", (ZH_JOB, ZH_AGE), "明天要早起赶个上线，今天早点睡"),
    ("zh", (ZH_CAT,), "猫粮快吃完了，有推荐的牌子吗"),
    ("zh", (ZH_SCHOOL, ZH_CAT), "实验小学下周开运动会，女儿报了跳绳"),
    ("zh", (ZH_CITY, ZH_SHARE), "周末想在北京附近找个地方爬山"),
], correcting=False)


def _check() -> None:
    """The corpus's own shape: counts, languages, targets and handles within `shown`."""
    for cases, total, english in ((CORRECTIONS, 60, 36), (LOOK_ALIKES, 60, 36), (ORDINARY, 50, 30)):
        assert len(cases) == total and sum(c.lang == "en" for c in cases) == english
        for case in cases:
            assert case.shown and case.lang in ("en", "zh") and case.split == FRESH4
            assert all(int(n) < len(case.shown) for n in re.findall(r"\{h(\d+)\}", case.text))
            if cases is CORRECTIONS:
                assert case.target is not None and 0 <= case.target < len(case.shown)
            else:
                assert case.target is None
    assert sum("{h" in c.text for c in CORRECTIONS) <= 4 and sum("{h" in c.text for c in LOOK_ALIKES) <= 2


_check()
