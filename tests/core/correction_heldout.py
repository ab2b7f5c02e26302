"""A second, larger held-out corpus for correcting a memory in the conversation (core/correction.py),
written in one sitting on 2026-12-03 and committed before the detector was run on it: every case here
is held out. The detector is never tuned on these sentences; bench/corrections.py reports them as
their own split ("fresh"), and a grammar change is judged on them only after it was made on the tune
split of tests/core/correction_phrasings.py.

Every sentence is made up. Same shape as correction_phrasings.py: one user turn and the items
injected into the request just before it; CORRECTIONS name the item they correct (its index in
`shown`), LOOK_ALIKES must correct nothing. `{h0}`, `{h1}` stand for the handles of shown items.

Phrasings the first corpus had few of: "scratch that", "I meant", "no, it's …", "you have X
wrong", "that info is stale", "不是…是…", "搞错了", "记反了", "那是以前", handles with 删除/忘掉.
Look-alikes it had few of: quotes and reported speech, hypotheticals ("if I moved …", "假如…"),
other people's corrections and other people's changes, questions, and "actually" / "其实" that
praise or confirm what is held ("actually I love it").
"""

from __future__ import annotations

from correction_phrasings import AGE, BDAY, CAR, COFFEE, DOG, JOB, PARTNER, RUN, SH, SISTER, VEG, ZH_AGE, ZH_BRO, \
    ZH_CAT, ZH_CITY, ZH_DIET, ZH_JOB, ZH_PHONE, ZH_SCHOOL, Case, held_out_cases

FRESH = "fresh"

GUITAR = "Plays the guitar in a weekend band"
PEANUT = "Is allergic to peanuts"
ZH_CAR = "我开一辆白色的丰田"
ZH_HOBBY = "我周末喜欢去爬山"


def _cases(rows: list[tuple], correcting: bool) -> list[Case]:
    return held_out_cases(rows, correcting, FRESH)


CORRECTIONS = _cases([
    ("en", [SH, JOB], "Scratch that, I'm in Hangzhou now, not Shanghai", 0),
    ("en", [SISTER, DOG], "I meant my sister is called Lin. Lan is my cousin.", 0),
    ("en", [JOB], "No, it's Globex, not Acme. I changed jobs in spring.", 0),
    ("en", [DOG, CAR], "Actually, Biscuit is a cat, not a dog", 0),
    ("en", [AGE, SH], "You have my age wrong, I'm 41", 0),
    ("en", [VEG, COFFEE], "I stopped being vegetarian two years ago", 0),
    ("en", [COFFEE, RUN], "That's old info, these days I only drink decaf tea", 0),
    ("en", [CAR], "I haven't had the Civic since 2023, I drive a Mazda now", 0),
    ("en", [BDAY, PARTNER], "Nope, March 3 is my partner's birthday, mine is in July", 0),
    ("en", [PARTNER, SISTER], "My partner's name is Sam, not Alex, please fix that", 0),
    ("en", [RUN, DOG], "Please update that, I'm training for a triathlon, not a marathon", 0),
    ("en", [SH, JOB, DOG], "forget {h1}", 1),
    ("en", [SH, JOB], "{h0} is outdated", 0),
    ("en", [SH, DOG], "delete {h1} please, I never had a dog", 1),
    ("en", [JOB, AGE], "I'm not at Acme anymore, I'm at a startup called Tidal", 0),
    ("en", [VEG, PEANUT], "Not vegetarian - pescatarian, I eat fish", 0),
    ("en", [SISTER], "Wait, no - Lan is my niece. My sister is Mei.", 0),
    ("en", [AGE, BDAY], "You're off by a few years, I'm 31", 0),
    ("en", [COFFEE, GUITAR], "I don't drink coffee at all these days, it keeps me awake", 0),
    ("en", [CAR, SH], "I sold the Honda last spring, I cycle everywhere", 0),
    ("en", [JOB, SH], "That info is stale: I'm a data scientist at Acme now, not a backend engineer", 0),
    ("en", [BDAY], "Not March, my birthday is in May, the 3rd", 0),
    ("en", [PARTNER, RUN], "Alex is my ex now, we separated in the summer", 0),
    ("en", [SH, JOB], "Your memory of where I live is wrong, it's Suzhou", 0),
    ("en", [DOG, GUITAR], "That's mistaken, Biscuit is my parents' dog, not mine", 0),
    ("en", [GUITAR, SH], "I quit the band in August, I only play at home now", 0),
    ("en", [PEANUT, VEG], "Small fix: it's tree nuts I'm allergic to, peanuts are fine", 0),
    ("zh", [ZH_CITY, ZH_JOB], "不是北京，是上海，我去年就搬了", 0),
    ("zh", [ZH_JOB], "搞错了，我在腾讯工作，不在字节跳动", 0),
    ("zh", [ZH_CAT, ZH_DIET], "其实咪咪是我朋友的猫，我没有养猫", 0),
    ("zh", [ZH_DIET, ZH_AGE], "记错了，我挺能吃辣的", 0),
    ("zh", [ZH_BRO, ZH_CITY], "不对，我哥哥叫王伟，王强是我表哥", 0),
    ("zh", [ZH_SCHOOL], "女儿今年升五年级了，不是三年级", 0),
    ("zh", [ZH_PHONE, ZH_CAT], "我换成iPhone了，华为给我妈用了", 0),
    ("zh", [ZH_AGE], "我不是28，今年已经30了", 0),
    ("zh", [ZH_CITY, ZH_PHONE], "忘掉{h0}", 0),
    ("zh", [ZH_JOB, ZH_CITY], "{h1}过时了，我现在住在通州", 1),
    ("zh", [ZH_CAT, ZH_DIET], "删除{h0}，那只猫送人了", 0),
    ("zh", [ZH_JOB], "我上个月从字节跳动辞职了，现在不上班", 0),
    ("zh", [ZH_CITY, ZH_CAR], "你搞错了，我住在东城区，不是朝阳区", 0),
    ("zh", [ZH_DIET], "那是以前，现在我什么辣都吃", 0),
    ("zh", [ZH_BRO, ZH_AGE], "王强是我弟弟，你记反了", 0),
    ("zh", [ZH_SCHOOL, ZH_CITY], "女儿转学了，现在在育英学校读书", 0),
    ("zh", [ZH_PHONE], "早就不用华为了，我现在用小米", 0),
    ("zh", [ZH_AGE, ZH_JOB], "其实我今年35岁，28是我妹妹的年龄", 0),
    ("zh", [ZH_CAT], "不对，猫不叫咪咪，叫花花", 0),
    ("zh", [ZH_JOB, ZH_PHONE], "错了，我已经在美团上班了", 0),
    ("zh", [ZH_CAR, ZH_HOBBY], "丰田去年卖了，我现在开比亚迪", 0),
    ("zh", [ZH_HOBBY, ZH_CITY], "膝盖受伤以后我就不爬山了，改成游泳", 0),
], correcting=True)

LOOK_ALIKES = _cases([
    ("en", [SH], "He said 'that's wrong, I moved to Hangzhou' and walked out"),
    ("en", [SH], "If I moved to Hangzhou, would my commute be shorter?"),
    ("en", [JOB], "Suppose I quit Acme, what happens to my stock options"),
    ("en", [COFFEE], "Actually I love it, the coffee here is great"),
    ("en", [SISTER], "My friend keeps saying 'actually, it's Lin, not Lan' about her own sister"),
    ("en", [PARTNER], "Alex told his boss that's wrong, he never moved to Berlin"),
    ("en", [DOG], "Is Biscuit a good name for a dog, or is it too common?"),
    ("en", [JOB], "Scratch that last paragraph, write it more formally"),
    ("en", [SH], "I meant the Shanghai office, not the Beijing one, in that email"),
    ("en", [AGE], "Actually, I'm 34 and I feel great"),
    ("en", [VEG], "No, it's a vegetarian lasagna, not a vegan one"),
    ("en", [CAR], "My brother no longer drives his Civic, he sold it"),
    ("en", [BDAY], "What would you say if my birthday were on March 13 instead"),
    ("en", [SH, JOB], "In the novel the hero says: no, I don't live in Shanghai anymore"),
    ("en", [COFFEE], "My doctor says I should quit coffee, but I won't"),
    ("en", [DOG], "Actually, Biscuit loves long walks in the park"),
    ("en", [PARTNER], "Alex corrected me: the restaurant is on Elm Street, not Oak Street"),
    ("en", [JOB], "Forget about work for a minute and tell me a joke"),
    ("en", [SH], "No, it's fine, Shanghai is where I want to stay"),
    ("en", [SISTER], "Translate into French: my sister is called Lin, not Lan"),
    ("en", [VEG], "Being vegetarian turned out easier than I thought, actually"),
    ("en", [CAR], "Scratch that, use a blue background instead of a red one"),
    ("en", [GUITAR], "My bandmate thinks I play the guitar wrong, but I don't care"),
    ("en", [PEANUT], "Actually yes, peanuts are still a problem for me, so no satay"),
    ("zh", [ZH_CITY], "他说：“不对，我已经搬到杭州了。”"),
    ("zh", [ZH_JOB], "如果我从字节跳动离职，社保怎么处理"),
    ("zh", [ZH_CAT], "其实我很喜欢咪咪，它特别乖"),
    ("zh", [ZH_BRO], "我哥哥说他已经不在那家公司了"),
    ("zh", [ZH_DIET], "假如我不吃辣了，川菜还能点什么"),
    ("zh", [ZH_CITY], "不对，刚才那段翻译错了，重新翻一下"),
    ("zh", [ZH_JOB], "我同事搞错了，他以为今天开会"),
    ("zh", [ZH_PHONE], "华为手机其实挺好用的"),
    ("zh", [ZH_AGE], "28岁是不是该考虑买房了"),
    ("zh", [ZH_SCHOOL], "女儿说老师讲错了一道题"),
    ("zh", [ZH_CAT], "咪咪其实很怕生"),
    ("zh", [ZH_CITY], "小说里的主角说：我早就不住北京了"),
    ("zh", [ZH_BRO], "王强不是坏人，你别误会他"),
    ("zh", [ZH_JOB], "算了，这段删掉吧，重写一个开头"),
    ("zh", [ZH_CITY, ZH_JOB], "搞错了，我要的是上海的天气"),
    ("zh", [ZH_PHONE], "不是华为的问题，是网络的问题"),
    ("zh", [ZH_AGE, ZH_CAT], "我妈总说我记错了她的生日"),
    ("zh", [ZH_SCHOOL], "其实实验小学离我们家很近"),
    ("zh", [ZH_JOB], "字节跳动已经不是以前那个小公司了"),
    ("zh", [ZH_CAR], "我朋友把他的丰田卖了，换了一辆电车"),
    ("zh", [ZH_HOBBY], "其实爬山对膝盖不太好，我得注意"),
], correcting=False)
