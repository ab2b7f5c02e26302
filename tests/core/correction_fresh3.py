"""A fourth held-out corpus for correcting a memory in the conversation (core/correction.py), written
in one sitting on 2026-12-03 and committed before the grammar, the correction classifier
(core/correction_model.py) or anything else was run on it, and before the fifth tune round and the
retraining: every case is held out. Nothing is tuned or trained on these sentences;
bench/corrections.py reports them as their own split ("fresh3"), once.

Every sentence is made up. Same shape as correction_phrasings.py: one user turn and the items
injected into the request just before it; CORRECTIONS name the item they correct (its index in
`shown`), LOOK_ALIKES and ORDINARY must correct nothing. `{h0}`, `{h1}` stand for the handles of
shown items.

What is new here: about half the corrections carry no correction word at all; they state the new
value for what the item is about ("These days home is Wuhan", "手机上周换成荣耀了"), as people
mostly do. Look-alikes reuse those shapes for someone else, a plan, a question, the assistant's
answer or a passing moment. ORDINARY turns are plain chat that mentions the item's topic (the dog,
the job, the city) and corrects nothing, the kind of turn most conversations are made of.
"""

from __future__ import annotations

from correction_fresh2 import KIDS, LANG, TENNIS, ZH_BREAKFAST, ZH_GF, ZH_GRAD
from correction_heldout import GUITAR, PEANUT, ZH_CAR, ZH_HOBBY
from correction_phrasings import AGE, BDAY, CAR, COFFEE, DOG, JOB, PARTNER, RUN, SH, SISTER, VEG, ZH_AGE, ZH_BRO, \
    ZH_CAT, ZH_CITY, ZH_DIET, ZH_JOB, ZH_PHONE, ZH_SCHOOL, Case, held_out_cases

FRESH3 = "fresh3"

HOUSE = "Rents a one-bedroom flat near the river"
GYM = "Goes to the gym on weekday mornings"
ZH_SON = "我儿子叫乐乐，今年五岁"
ZH_COMMUTE = "我每天坐地铁上班"


def _cases(rows: list[tuple], correcting: bool) -> list[Case]:
    return held_out_cases(rows, correcting, FRESH3)


CORRECTIONS = _cases([
    ("en", [SH, JOB], "These days home is Wuhan, been here since the spring.", 0),
    ("en", [JOB, SH], "My employer is Vandelay now; I handed in my notice at Acme in January.", 0),
    ("en", [DOG, CAR], "Biscuit went to live with my parents on their farm, so there's no dog in my flat.", 0),
    ("en", [AGE, CAR], "Just celebrated my 37th, so bump that number.", 0),
    ("en", [VEG, COFFEE], "Been eating chicken again since my iron levels dropped.", 0),
    ("en", [COFFEE, RUN], "Down to one espresso a day after the doctor's advice, three cups is history.", 0),
    ("en", [CAR, SH], "The Honda's been replaced by a secondhand Kia.", 0),
    ("en", [BDAY, PARTNER], "My birthday falls on the 30th of March, the 3rd is my mum's.", 0),
    ("en", [RUN, TENNIS], "Signed up for a 10k instead, the marathon plan is shelved.", 0),
    ("en", [SISTER, PARTNER], "Lan's my sister-in-law; my own sister is Ning.", 0),
    ("en", [KIDS, SH], "We've got three now, baby Noor arrived in June.", 0),
    ("en", [TENNIS, SH], "Sundays are for padel these days, the tennis club closed down.", 0),
    ("en", [LANG, JOB], "Switched from Japanese to Mandarin last term.", 0),
    ("en", [GUITAR, RUN], "I play bass in the band, I've never played guitar.", 0),
    ("en", [PEANUT, VEG], "The allergy test said sesame; peanuts turned out fine for me.", 0),
    ("en", [HOUSE, JOB], "We bought a terraced house last year, the rented flat is long behind us.", 0),
    ("en", [GYM, SH], "My gym sessions moved to evenings with the new shift pattern.", 0),
    ("en", [SH, JOB, DOG], "wipe {h2} please", 2),
    ("en", [JOB, SH], "{h0} - that's two jobs back", 0),
    ("en", [AGE, BDAY], "Add a year to that, I'm 35.", 0),
    ("en", [CAR, DOG], "Nope, the blue Civic belonged to my flatmate, I've never owned a car.", 0),
    ("en", [SH, AGE], "I'm in Shenyang, not Shanghai; they look alike on a form.", 0),
    ("en", [COFFEE, VEG], "Hmm, coffee and I parted ways months ago.", 0),
    ("en", [DOG, PARTNER], "That's a bit behind: Biscuit passed last winter and we adopted Juniper.", 0),
    ("zh", [ZH_CITY, ZH_JOB], "我家已经安在武汉了，春节后搬过去的", 0),
    ("zh", [ZH_JOB, ZH_CITY], "上个月入职了小红书，字节那边早交接完了", 0),
    ("zh", [ZH_CAT, ZH_DIET], "咪咪去年冬天给了楼下阿姨，家里现在没有猫", 0),
    ("zh", [ZH_DIET, ZH_AGE], "这两年口味变重了，顿顿离不了辣椒", 0),
    ("zh", [ZH_BRO, ZH_CITY], "我哥哥的名字是王浩，王强是我堂哥", 0),
    ("zh", [ZH_SCHOOL, ZH_PHONE], "女儿九月份升到四年级了", 0),
    ("zh", [ZH_PHONE, ZH_JOB], "手机上周换成荣耀了", 0),
    ("zh", [ZH_AGE, ZH_CAT], "过完年我就31了", 0),
    ("zh", [ZH_SON, ZH_AGE], "乐乐上个月刚过了六岁生日", 0),
    ("zh", [ZH_COMMUTE, ZH_CITY], "公司搬近了，我每天骑车上班", 0),
    ("zh", [ZH_CAR, ZH_HOBBY], "那辆丰田开了十年，今年换成了理想", 0),
    ("zh", [ZH_HOBBY, ZH_CAR], "周末改去打羽毛球了，山好久没爬", 0),
    ("zh", [ZH_GF, ZH_JOB], "跟小雨早分了，女朋友现在叫阿琳", 0),
    ("zh", [ZH_BREAKFAST, ZH_CITY], "早上那杯豆浆戒了，换成了燕麦奶", 0),
    ("zh", [ZH_GRAD, ZH_CITY], "研究生念完了，现在在交大当助教", 0),
    ("zh", [ZH_CITY, ZH_CAT], "{h0}那条麻烦删一下，我家不在那儿", 0),
    ("zh", [ZH_JOB, ZH_PHONE], "{h0}得改一改，我现在给美团打工", 0),
    ("zh", [ZH_DIET, ZH_BRO], "说我不吃辣不准确，微辣我完全没问题", 0),
    ("zh", [ZH_CITY, ZH_JOB], "朝阳那是老地址了，现在住丰台", 0),
    ("zh", [ZH_SON, ZH_SCHOOL], "我儿子大名叫陈乐，乐乐只是小名，今年都七岁了", 0),
], correcting=True)

LOOK_ALIKES = _cases([
    ("en", [SH, JOB], "My cousin's home is Wuhan now, she moved there in the spring."),
    ("en", [JOB, SH], "Vandelay offered me an interview, but I'm staying at Acme."),
    ("en", [DOG], "Biscuit stayed with my parents on their farm while I travelled."),
    ("en", [AGE], "My dad just celebrated his 70th, so we're planning a party."),
    ("en", [VEG], "Still no meat for me, even though my iron levels dropped."),
    ("en", [COFFEE], "Down to the last bag of coffee beans, remind me to reorder."),
    ("en", [CAR], "The Honda needs replacing soon, should I look at a Kia"),
    ("en", [BDAY], "The 30th of March is my mum's birthday, what should I get her"),
    ("en", [PARTNER, SH], "Alex and I are hosting a dinner on Friday, eight people."),
    ("en", [RUN], "Should I sign up for a 10k before the marathon as a warm-up"),
    ("en", [SISTER], "Your translation of sister-in-law was off, it's 嫂子 not 姐姐"),
    ("en", [KIDS], "Mia and Leo want a third sibling, they keep asking for one"),
    ("en", [TENNIS], "Padel looks fun but I'm sticking with tennis"),
    ("en", [LANG], "Your Japanese example had the wrong particle, it should be ga"),
    ("en", [GUITAR], "My bandmate switched to bass last month, we need a new bassist joke"),
    ("en", [PEANUT], "The allergy test for my son came back clear for sesame"),
    ("en", [HOUSE], "My brother bought a terraced house last year"),
    ("en", [GYM], "The gym changed its opening hours, annoying"),
    ("en", [SH, JOB], "Wipe that draft and start over with a friendlier tone"),
    ("en", [JOB], "That was two drafts back, use the newest one"),
    ("en", [AGE], "Add a year to the warranty estimate, the answer is 35 months"),
    ("en", [CAR], "Nope, the blue jacket is my flatmate's, mine is the black one"),
    ("en", [SH], "Shenyang and Shanghai are easy to mix up on a map, right"),
    ("en", [COFFEE], "My boss and coffee parted ways and now he's grumpy all day"),
    ("en", [DOG], "That's a bit behind, the dog-training app is on version 3 now"),
    ("zh", [ZH_CITY], "我表姐家已经安在武汉了，春节后搬的"),
    ("zh", [ZH_JOB], "小红书给我发了面试邀请，不过我不打算走"),
    ("zh", [ZH_CAT], "楼下阿姨送了咪咪一个新猫窝"),
    ("zh", [ZH_DIET], "这家店口味变重了，辣得我受不了"),
    ("zh", [ZH_BRO], "王强的儿子名字叫王浩"),
    ("zh", [ZH_SCHOOL], "四年级的数学题你帮我讲讲"),
    ("zh", [ZH_PHONE], "荣耀的新手机值得买吗"),
    ("zh", [ZH_AGE], "我老婆过完年就31了"),
    ("zh", [ZH_SON], "乐乐的同学昨天过六岁生日"),
    ("zh", [ZH_COMMUTE], "地铁今天又晚点了，骑车都比它快"),
    ("zh", [ZH_CAR], "你上一条回答里的油耗数字写错了"),
    ("zh", [ZH_HOBBY], "羽毛球和爬山哪个更适合减肥"),
    ("zh", [ZH_GF], "小雨的闺蜜阿琳下周过生日"),
    ("zh", [ZH_BREAKFAST], "燕麦奶和豆浆哪个蛋白质多"),
    ("zh", [ZH_GRAD], "交大的助教工资一般多少"),
    ("zh", [ZH_CITY], "那条路线麻烦删一下，太绕了"),
    ("zh", [ZH_JOB], "这段文案得改一改，太官方了"),
    ("zh", [ZH_DIET], "你这个说法不准确，辣椒不会直接导致胃溃疡"),
    ("zh", [ZH_CITY], "朝阳那家店是老地址了，新店在望京"),
], correcting=False)

ORDINARY = _cases([
    ("en", [SH], "Any good dumpling places near People's Square in Shanghai"),
    ("en", [SH, JOB], "Shanghai was foggy all morning and my flight got delayed."),
    ("en", [JOB], "Had a long code review at Acme, my eyes hurt."),
    ("en", [JOB, AGE], "Our team at Acme is migrating to Kubernetes next quarter."),
    ("en", [DOG], "Biscuit chewed through another charging cable."),
    ("en", [DOG, SH], "Took Biscuit to the vet for his yearly shots."),
    ("en", [AGE], "Thirty-four and I still can't parallel park."),
    ("en", [VEG], "Made a lentil curry tonight, it turned out great."),
    ("en", [COFFEE], "Tried a new Ethiopian roast, very fruity."),
    ("en", [CAR], "The Civic passed its inspection without any issues."),
    ("en", [BDAY], "Thinking about a small picnic for my birthday in March."),
    ("en", [PARTNER], "Alex and I watched a documentary about octopuses."),
    ("en", [RUN], "Did 28 km this morning, my legs are jelly."),
    ("en", [SISTER], "Lan sent me photos from her trip to Yunnan."),
    ("en", [KIDS], "Leo lost his first tooth and Mia is jealous."),
    ("en", [TENNIS], "My backhand is finally getting consistent."),
    ("en", [LANG], "I learned to count to a hundred in Japanese."),
    ("en", [GUITAR], "We're rehearsing a new song for the band's next gig."),
    ("en", [PEANUT], "I always carry my epipen when eating out."),
    ("en", [HOUSE], "The river outside my flat flooded the path again."),
    ("en", [GYM], "Deadlifted a new personal best at the gym."),
    ("zh", [ZH_CITY], "朝阳区新开了一家面包店，排队的人好多"),
    ("zh", [ZH_JOB], "字节今天发了年终奖，心情不错"),
    ("zh", [ZH_CAT], "咪咪又把花盆打翻了"),
    ("zh", [ZH_DIET], "帮我推荐几道不辣的湘菜"),
    ("zh", [ZH_BRO], "王强下个月结婚，我得准备份子钱"),
    ("zh", [ZH_SCHOOL], "女儿的班主任人特别好"),
    ("zh", [ZH_PHONE], "华为手机的电池还挺耐用"),
    ("zh", [ZH_AGE], "28岁才开始学游泳，会不会太晚"),
    ("zh", [ZH_SON], "乐乐今天在幼儿园画了一只恐龙"),
    ("zh", [ZH_COMMUTE], "早高峰的地铁挤得我喘不过气"),
    ("zh", [ZH_CAR], "丰田该做保养了，提醒我一下"),
    ("zh", [ZH_HOBBY], "上周末爬了香山，红叶特别美"),
    ("zh", [ZH_GF], "小雨最近迷上了做蛋糕"),
    ("zh", [ZH_BREAKFAST], "楼下那家豆浆越来越淡了"),
    ("zh", [ZH_GRAD], "导师让我下周交开题报告"),
    ("zh", [ZH_CITY, ZH_JOB], "北京今天降温了，出门记得多穿点"),
    ("zh", [ZH_CAT], "给咪咪换了一款新猫粮，它很爱吃"),
    ("zh", [ZH_PHONE], "手机相册满了，怎么清理比较好"),
    ("zh", [ZH_SCHOOL], "实验小学下周开家长会"),
    ("zh", [ZH_JOB], "我在字节负责推荐系统，最近在调模型"),
    ("zh", [ZH_DIET], "我不吃辣，但酸的很喜欢"),
], correcting=False)
