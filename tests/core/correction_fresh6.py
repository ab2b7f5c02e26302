"""A seventh held-out corpus for correcting a memory in the conversation (core/correction.py), written
blind in one sitting on 2026-12-05/06 and committed before the grammar, the update frames or anything
else was run on it: every case is held out. Nothing is tuned or trained on these sentences; they are
reported as their own split ("fresh6"), once.

Every sentence is made up. Same shape as correction_phrasings.py: one user turn and the items
injected into the request just before it; CORRECTIONS name the item they correct (its index in
`shown`), LOOK_ALIKES and ORDINARY must correct nothing. `{h0}`, `{h1}` stand for the handles of
shown items.

CORRECTIONS mix three kinds: pushing back on what was shown in the many ways people do in chat
(sarcasm, a rhetorical question, "that's old news", a mix-up with someone else, slang, typos,
lowercase, emoji, no punctuation, a long rambling turn with the correction in the middle), stating
the new value with no correction word at all, and contrasting the old value with the new one. Most
of them use slots the earlier corpora did not (gym, hometown, team, kids, shift pattern, bank,
instrument, degree, working from home, owning a flat, nickname, a food intolerance, commute,
parents, a girlfriend). LOOK_ALIKES reuse the same words and shapes for someone else's news, a plan
or wish, a hypothetical, a question, pushing back on the assistant or on a fact about the world,
a passing moment, a restatement that confirms the item, a quote, a brand or place as a thing,
a past story that changes nothing now, or an addition alongside the item. ORDINARY turns are plain
chat about the shown item's topic.
"""

from __future__ import annotations

from correction_phrasings import AGE, BDAY, CAR, COFFEE, DOG, JOB, PARTNER, RUN, SH, SISTER, VEG, ZH_AGE, ZH_BRO, \
    ZH_CAT, ZH_CITY, ZH_DIET, ZH_JOB, ZH_PHONE, ZH_SCHOOL, Case, held_out_cases

FRESH6 = "fresh6"

GYM = "Goes to PureGym on Elm Street before work"
HOMETOWN = "Grew up in Leeds"
TEAM = "Supports Arsenal"
KIDS = "Has two daughters, Mia and Rosa"
SHIFT = "Works night shifts at the hospital, Monday to Thursday"
BANK = "Banks with Monzo"
CAT = "Has a ginger cat called Pumpkin"
INSTRUMENT = "Plays bass in a covers band"
UNI = "Studying for a law degree at Bristol"
REMOTE = "Works from home three days a week"
FLAT = "Owns a two-bed flat in Bermondsey"
NICK = "Goes by Kat"
DAIRY = "Avoids dairy, lactose intolerant"
ZH_GYM = "我在公司楼下的乐刻健身办了年卡"
ZH_HOMETOWN = "我老家是湖南岳阳的"
ZH_TEAM = "我是湖人队的球迷"
ZH_KID = "儿子叫乐乐，在上幼儿园大班"
ZH_SHIFT = "我上两班倒，白班夜班轮着来"
ZH_BANK = "工资卡是招商银行的"
ZH_COMMUTE = "每天坐地铁10号线上班"
ZH_CAR = "开一辆白色的比亚迪秦"
ZH_PARENTS = "爸妈住在成都"
ZH_GUITAR = "最近在学吉他"
ZH_COFFEE = "每天早上一杯美式"
ZH_GF = "女朋友叫佳佳，在上海读研"
ZH_RUN = "每周跑三次步，每次五公里"


def _cases(rows: list[tuple], correcting: bool) -> list[Case]:
    return held_out_cases(rows, correcting, FRESH6)


CORRECTIONS = _cases([
    # English, pushing back on what was shown
    ("en", (TEAM, BDAY), "lol me? supporting Arsenal?? my dad would disown me. Spurs, always have been, always will be", 0),
    ("en", (KIDS, GYM), "two daughters?? you've got me mixed up with my brother. I've got one boy, Finn, he's 6", 0),
    ("en", (SHIFT, BANK), "night shifts is ancient history mate, moved to days on the ward back in feb", 0),
    ("en", (CAT, HOMETOWN), "Pumpkin passed away last spring 😢 we adopted a grey tabby called Mochi in the summer", 0),
    ("en", (BANK, SH), "{h0}?? i closed that account when they froze my card for two weeks. everything's with starling", 0),
    ("en", (INSTRUMENT, COFFEE), "Who told you I play bass lol. I'm the drummer, Dev plays bass", 0),
    ("en", (HOMETOWN, JOB), "Leeds? I've never even been to Leeds. Grew up in Hull, though I get why people mix them up", 0),
    ("en", (REMOTE, CAR, DOG), "ok so long story but basically the office did this whole 'back to basics' thing in "
                               "september, everyone's in five days a week, no wfh at all anymore, which means I'm back "
                               "on the 7:40 train and honestly I've started listening to podcasts just to survive it. "
                               "anyway what I actually wanted to ask was whether you know any good true crime ones", 0),
    ("en", (UNI, AGE), "im not doing law anymore, swtiched to pyschology after first year, way more my thing", 0),
    ("en", (FLAT, PARTNER), "Since when do I own a flat in Bermondsey? I wish. Still renting in Deptford like a mug", 0),
    ("en", (SISTER, NICK), "scrap {h1}, nobody calls me Kat except my gran. it's Katie", 1),
    # English, the new value with no correction word
    ("en", (GYM, BANK), "I train at the leisure centre by the library, 22 quid a month and there's a pool", 0),
    ("en", (KIDS, CAR), "we've got three now, little Ivy arrived in october", 0),
    ("en", (TEAM, SHIFT), "I work 7am to 3pm at the hospital, weekdays only", 1),
    ("en", (CAR, HOMETOWN), "I drive a white Kia Niro, the electric one", 0),
    ("en", (PARTNER, DOG), "Sam and I got married in June! she says hi btw", 0),
    ("en", (SH, JOB), "Home is Suzhou, it's a quick hop to Shanghai on the fast train when I need to go in", 0),
    ("en", (AGE, VEG), "turned 36 on saturday, feeling ancient", 0),
    ("en", (BANK, REMOTE), "Everything's at Nationwide, current account, savings, the lot", 0),
    ("en", (CAT, COFFEE), "our cat's a big fluffy black thing called Soot, thinks he owns the sofa", 0),
    ("en", (NICK, BDAY), "Call me Kit, everyone does", 0),
    # English, the old value against the new one
    ("en", (HOMETOWN, TEAM), "I was born in Leeds but we moved to Bristol when I was two, so Bristol's really where I grew up", 0),
    ("en", (SHIFT, CAT), "used to do nights mon-thu, now it's a four-on four-off rota, days and nights mixed", 0),
    ("en", (INSTRUMENT, GYM), "Bass was the old band. These days I play keys in a jazz trio on Fridays", 0),
    ("en", (UNI, SISTER), "Not Bristol, Exeter. Same course though, law", 0),
    ("en", (REMOTE, KIDS), "it was three days at home, then two, and as of this month it's just fridays", 0),
    ("en", (TEAM, AGE), "I followed Arsenal as a kid but I've had a Brentford season ticket for ten years now", 0),
    ("en", (FLAT, JOB), "Sold the Bermondsey place in the spring, we're in a little terraced house in Margate", 0),
    ("en", (DAIRY, CAR), "the dairy thing turned out to be a gluten thing, cheese is totally fine, it's bread that wrecks me", 0),
    ("en", (JOB, SISTER), "backend at Acme → frontend at Acme, same desk, different misery", 0),

    # Chinese, pushing back on what was shown
    ("zh", (ZH_TEAM, ZH_AGE), "湖人？？我看着像湖人球迷吗😂 我一直是勇士的，死忠", 0),
    ("zh", (ZH_KID, ZH_BANK), "乐乐是我外甥好吧，你把我和我姐搞混了。我家是闺女，叫朵朵", 0),
    ("zh", (ZH_SHIFT, ZH_COMMUTE), "两班倒那是老黄历了，去年年底调到行政岗，朝九晚五", 0),
    ("zh", (ZH_BANK, ZH_CAR), "招行？早销户了，现在工资发到建行卡上", 0),
    ("zh", (ZH_HOMETOWN, ZH_JOB), "岳阳是我老婆老家啊 我是湖北荆州的 你记岔了", 0),
    ("zh", (ZH_GYM, ZH_RUN), "还年卡呢，那家乐刻半年前就倒闭了，卡里的钱都没退🙃 我现在在家跟着视频练", 0),
    ("zh", (ZH_CITY, ZH_CAT), "你这信息得更新一下了吧 朝阳那边租约到期我就搬回天津了", 0),
    ("zh", (ZH_COMMUTE, ZH_COFFEE, ZH_PARENTS), "说起来今天真是够呛，早上闹钟没响，急急忙忙出门，结果发现车钥匙落家里"
                                                "又回去拿，哦对了我现在都是自己开车上班，10号线那会儿太挤了受不了，然后到"
                                                "公司发现会议改到下午了，白忙活一场。你说我是不是该换个闹钟app", 0),
    ("zh", (ZH_GUITAR, ZH_TEAM), "吉他早吃灰了hhh 三分钟热度 现在迷上尤克里里了", 0),
    ("zh", (ZH_GF, ZH_BRO), "佳佳？我们分手都快一年了好吗，你还提她干嘛", 0),
    ("zh", (ZH_COFFEE, ZH_CAR), "把{h1}删了吧，那车去年就卖了，现在骑电驴", 1),
    # Chinese, the new value with no correction word
    ("zh", (ZH_PARENTS, ZH_AGE), "爸妈住三亚，空气好，我妈的老寒腿好多了", 0),
    ("zh", (ZH_CAR, ZH_HOMETOWN), "我开的是特斯拉Model Y，灰色的", 0),
    ("zh", (ZH_AGE, ZH_DIET), "我今年31了，奔三都奔过头了", 0),
    ("zh", (ZH_KID, ZH_GYM), "乐乐九月份上一年级了，在育才小学", 0),
    ("zh", (ZH_PHONE, ZH_COFFEE), "我用的小米14，拍照还挺好", 0),
    ("zh", (ZH_JOB, ZH_BRO), "我再美团做产品经理，天天加班到十点", 0),
    ("zh", (ZH_CAT, ZH_BANK), "我家猫叫年糕，橘的，十二斤", 0),
    ("zh", (ZH_RUN, ZH_GUITAR), "我每周跑五次，一次十公里左右", 0),
    ("zh", (ZH_SCHOOL, ZH_CITY), "女儿今年上五年级了，还在实验小学", 0),
    ("zh", (ZH_BRO, ZH_PHONE), "我哥大名王刚，小名刚子", 0),
    # Chinese, the old value against the new one
    ("zh", (ZH_DIET, ZH_SCHOOL), "以前是一点辣都不碰，在重庆待了两年，现在无辣不欢", 0),
    ("zh", (ZH_HOMETOWN, ZH_TEAM), "户口本上写的岳阳，但我从小在长沙长大，老家其实算长沙", 0),
    ("zh", (ZH_SHIFT, ZH_KID), "之前是两班倒，现在改三班了，早中晚轮着来", 0),
    ("zh", (ZH_COMMUTE, ZH_BANK), "从10号线换成了14号线，公司搬到望京了", 0),
    ("zh", (ZH_COFFEE, ZH_GYM), "美式喝多了心慌，换成燕麦拿铁了，一天最多一杯", 0),
    ("zh", (ZH_GF, ZH_CITY), "佳佳去年已经毕业了，不在上海读书了，在杭州上班", 0),
    ("zh", (ZH_GUITAR, ZH_RUN), "不是吉他，是古筝，学了快半年了", 0),
    ("zh", (ZH_TEAM, ZH_DIET), "小时候喜欢湖人，后来就不怎么看NBA了，现在只看CBA，支持广东队", 0),
    ("zh", (ZH_BANK, ZH_JOB), "{h0}得改一下：工资卡从招行换成了浦发，公司统一办的", 0),
], correcting=True)

LOOK_ALIKES = _cases([
    # English: someone else's news
    ("en", (TEAM, BDAY), "my flatmate just switched from Arsenal to Spurs, I'm never speaking to him again"),
    ("en", (KIDS, CAR), "my sister just had her third, another girl, so Mia and Rosa have a new cousin"),
    ("en", (SHIFT, BANK), "Priya's moving to day shifts next month, jealous tbh"),
    # a plan or wish
    ("en", (GYM, RUN), "thinking about switching to the climbing gym on Canal Street in the new year, PureGym's always rammed at 6"),
    ("en", (CAR, HOMETOWN), "I'd love to swap the Civic for something electric one day, if prices ever come down"),
    ("en", (SH, JOB), "we might move to Hangzhou next year if my wife's transfer goes through"),
    # a hypothetical or a question
    ("en", (BANK, REMOTE), "if I moved everything over to Starling would I lose my Monzo pots?"),
    ("en", (AGE, VEG), "if I were 30 again I'd have started investing way earlier"),
    ("en", (CAT, COFFEE), "is it normal for a ginger cat to sleep 18 hours a day? Pumpkin barely moves"),
    ("en", (HOMETOWN, TEAM), "what's the quickest way from Leeds to Manchester airport on a sunday morning?"),
    ("en", (REMOTE, KIDS), "is it worth asking my boss for a fourth wfh day, or am I pushing my luck?"),
    # pushing back on the assistant or on a fact about the world
    ("en", (UNI, AGE), "no, that's wrong, contract law is a first year module, not second, at least on my course"),
    ("en", (CAR, DOG), "that's not right, the Civic has a timing chain not a belt. why did you tell me to budget for a belt change"),
    ("en", (TEAM, SHIFT), "you're way off there, the Emirates holds about 60k, not 40k"),
    # a passing moment
    ("en", (SH, PARTNER), "I'm in Hangzhou this week for a work thing, back in Shanghai on Friday"),
    ("en", (GYM, KIDS), "gym's closed for a refurb till the 20th so it's home workouts for now"),
    ("en", (VEG, COFFEE), "took a bite of my brother's bacon roll by accident this morning. still veggie, just mildly traumatised"),
    # a restatement that confirms
    ("en", (SHIFT, CAT), "{h0} is spot on, still on nights mon-thu, my body clock is permanently broken"),
    ("en", (KIDS, GYM), "yes that's right, two girls, Mia's 8 and Rosa's 5"),
    ("en", (HOMETOWN, JOB), "Leeds born and bred, that's me. still say 'nowt' when I'm tired"),
    # a quote
    ("en", (TEAM, AGE), "my mate keeps saying 'you're not a real Arsenal fan if you've never been to the Emirates' which, fair"),
    ("en", (BANK, SH), "my dad says Monzo is 'not a real bank' lol, he's 70"),
    # a brand or place as a thing
    ("en", (CAR, RUN), "Honda just announced a new Civic hybrid, apparently the range is way better"),
    ("en", (NICK, BDAY), "there's a new café called Kat's Kitchen near work, the brownies are unreal"),
    # a past story that changes nothing now
    ("en", (CAT, HOMETOWN), "before Pumpkin we had a rabbit called Toast when I was a kid, he lived to 11"),
    ("en", (INSTRUMENT, COFFEE), "I played trumpet in the school band back in year 7, was awful at it"),
    ("en", (FLAT, PARTNER), "before we bought the Bermondsey flat we rented in Deptford for 4 years, the damp was unreal"),
    # an addition alongside the item
    ("en", (INSTRUMENT, GYM), "started learning cello on top of the bass stuff, my neighbours are thrilled"),
    ("en", (TEAM, DOG), "I've started following the women's team too, went to my first game on Sunday"),
    ("en", (GYM, REMOTE), "added a yoga class on Wednesdays, still hitting PureGym the other mornings"),

    # Chinese: someone else's news
    ("zh", (ZH_TEAM, ZH_AGE), "我表弟最近从湖人粉转勇士粉了，被我骂了一顿"),
    ("zh", (ZH_CAR, ZH_HOMETOWN), "我同事刚把比亚迪换成了理想，天天在群里晒"),
    ("zh", (ZH_SHIFT, ZH_COMMUTE), "我们组小刘调去行政岗了，不用再倒班，羡慕死了"),
    # a plan or wish
    ("zh", (ZH_COMMUTE, ZH_BANK), "打算明年买辆车，不想再挤10号线了"),
    ("zh", (ZH_CITY, ZH_CAT), "要是能搬去大理住就好了，每天晒太阳撸猫"),
    ("zh", (ZH_JOB, ZH_BRO), "在考虑要不要跳槽去美团，有猎头找我了"),
    # a hypothetical or a question
    ("zh", (ZH_DIET, ZH_SCHOOL), "假如我能吃辣的话，第一件事就是去吃一顿正宗的重庆火锅"),
    ("zh", (ZH_BANK, ZH_CAR), "如果我把工资卡换成建行，房贷那边需要重新签代扣吗？"),
    ("zh", (ZH_CAT, ZH_BANK), "咪咪最近老掉毛，是不是换季的原因啊"),
    ("zh", (ZH_HOMETOWN, ZH_JOB), "从深圳回岳阳过年，坐高铁还是飞长沙再转车方便？"),
    ("zh", (ZH_BRO, ZH_PHONE), "我哥王强是不是下个月生日来着？帮我想想送啥"),
    # pushing back on the assistant or on a fact about the world
    ("zh", (ZH_BANK, ZH_AGE), "不对吧，你那个定投收益算错了，年化应该是6%不是8%"),
    ("zh", (ZH_GUITAR, ZH_RUN), "你说错了，民谣吉他一般是六根弦，不是七根"),
    ("zh", (ZH_TEAM, ZH_COFFEE), "别乱说，湖人2020年才拿过总冠军，哪有十几年没拿"),
    # a passing moment
    ("zh", (ZH_CITY, ZH_JOB), "这周在杭州出差，周五才回北京"),
    ("zh", (ZH_DIET, ZH_CITY), "今天被朋友拉去吃了顿麻辣烫，辣得我眼泪都出来了，以后还是不碰了"),
    ("zh", (ZH_COMMUTE, ZH_COFFEE), "今天10号线故障，打车去的公司，花了八十多"),
    # a restatement that confirms
    ("zh", (ZH_SHIFT, ZH_KID), "对，还是两班倒，这个月夜班排得特别多"),
    ("zh", (ZH_KID, ZH_GYM), "是的，乐乐还在大班，明年九月才上小学"),
    ("zh", (ZH_PHONE, ZH_AGE), "{h0}没错，华为用了好几年了，一直没换"),
    # a quote
    ("zh", (ZH_GF, ZH_BRO), "佳佳昨天跟我说“读研比上班累多了”，我都不知道该怎么接"),
    ("zh", (ZH_PARENTS, ZH_CAR), "我妈老说“成都是最适合养老的城市”，听得我耳朵都起茧了"),
    # a brand or place as a thing
    ("zh", (ZH_BANK, ZH_PHONE), "招商银行的app最近改版了，找个转账按钮找了半天"),
    ("zh", (ZH_CAR, ZH_RUN), "比亚迪新出的那款看着挺不错的，据说油耗很低"),
    ("zh", (ZH_JOB, ZH_CITY), "美团外卖今天又给我送错了，气死"),
    # a past story that changes nothing now
    ("zh", (ZH_HOMETOWN, ZH_TEAM), "小时候在岳阳楼下面卖过一暑假的冰棍，现在想想挺好玩的"),
    ("zh", (ZH_CAT, ZH_GYM), "养咪咪之前我还养过一只仓鼠，后来跑丢了"),
    # an addition alongside the item
    ("zh", (ZH_GUITAR, ZH_RUN), "除了吉他，最近还报了个架子鼓的课"),
    ("zh", (ZH_RUN, ZH_DIET), "跑步之外又加了一周一次的游泳，膝盖舒服多了"),
    ("zh", (ZH_COFFEE, ZH_GYM), "下午有时候会再来一杯拿铁，早上还是美式"),
], correcting=False)

ORDINARY = _cases([
    ("en", (GYM, RUN), "what's a decent push/pull/legs split for 4 days a week?"),
    ("en", (TEAM, BDAY), "can you help me write a funny card for a mate who's a massive Arsenal fan? he's turning 40"),
    ("en", (KIDS, CAR), "any ideas for a rainy saturday with a 5 and 8 year old that doesn't involve screens"),
    ("en", (SHIFT, COFFEE), "how do I actually sleep after a night shift, blackout blinds aren't cutting it"),
    ("en", (CAT, DOG), "Pumpkin keeps knocking glasses off the table at 4am, how do I make him stop"),
    ("en", (BANK, SH), "how do savings pots work in Monzo, can I set one to round up my spending"),
    ("en", (HOMETOWN, TEAM), "recommend a good pub in Leeds city centre for a reunion, about 12 of us"),
    ("en", (INSTRUMENT, GYM), "what's a good bass line to learn for a wedding set, something everyone knows"),
    ("en", (UNI, AGE), "how should I structure a 2000 word essay on negligence"),
    ("en", (FLAT, PARTNER), "our boiler's making a banging noise, is that something I can sort myself"),
    ("en", (REMOTE, KIDS), "tips for staying focused on wfh days when the kids are off school?"),
    ("en", (NICK, SISTER), "help me pick a username for a new instagram, something with Kat in it"),
    ("en", (DAIRY, VEG), "what can I use instead of cream in a curry"),
    ("en", (CAR, RUN), "how often should I rotate the tyres on the Civic"),
    ("en", (SH, JOB), "best dumpling places in Jing'an? friend's visiting next week"),
    ("en", (JOB, AGE), "how do I ask for a raise without sounding desperate"),
    ("en", (PARTNER, BDAY), "Alex's birthday is coming up, any ideas under £50"),
    ("en", (RUN, DOG), "what should I eat the night before a 30k long run"),
    ("en", (SISTER, KIDS), "Lan's coming to stay for a week, what's a good day trip near us"),
    ("en", (COFFEE, AGE), "is three cups a day actually bad for you or is that a myth"),
    ("en", (AGE, BDAY), "what's a fun thing to do for a 35th that isn't a pub crawl"),
    ("en", (VEG, COFFEE), "give me a high protein veggie dinner that isn't tofu again pls"),
    ("en", (DOG, CAT), "Biscuit and Pumpkin finally tolerate each other, any tips to keep it that way?"),
    ("en", (TEAM, SHIFT), "how do I get cheaper Arsenal tickets, the members ballot never works for me"),
    ("en", (SHIFT, KIDS), "how do other nurses on nights sort out childcare, I'm running out of ideas"),

    ("zh", (ZH_GYM, ZH_RUN), "新手练背应该从哪几个动作开始？"),
    ("zh", (ZH_TEAM, ZH_AGE), "今晚湖人打哪个队？几点开始？"),
    ("zh", (ZH_KID, ZH_SCHOOL), "大班的孩子要不要提前学拼音啊，身边好多家长都在报班"),
    ("zh", (ZH_SHIFT, ZH_COFFEE), "夜班下班回家睡不着怎么办，有什么好办法"),
    ("zh", (ZH_BANK, ZH_PHONE), "招行的朝朝宝和活期有什么区别"),
    ("zh", (ZH_HOMETOWN, ZH_DIET), "岳阳有什么好吃的特产，想带点给同事"),
    ("zh", (ZH_COMMUTE, ZH_JOB), "地铁上通勤一个小时，推荐几个好听的播客"),
    ("zh", (ZH_CAR, ZH_CITY), "比亚迪秦冬天续航掉得厉害吗"),
    ("zh", (ZH_PARENTS, ZH_AGE), "周末想给成都的爸妈寄点东西，有什么适合老人的"),
    ("zh", (ZH_GUITAR, ZH_RUN), "左手按弦手指好痛，要多久才能长茧"),
    ("zh", (ZH_COFFEE, ZH_GYM), "空腹喝美式会不会伤胃"),
    ("zh", (ZH_GF, ZH_CITY), "佳佳下个月答辩，我想送她个小礼物，有什么建议"),
    ("zh", (ZH_RUN, ZH_DIET), "跑完步膝盖外侧有点疼，是不是跑姿有问题"),
    ("zh", (ZH_CITY, ZH_CAT), "朝阳公园附近有没有适合周末带娃去的地方"),
    ("zh", (ZH_CAT, ZH_DIET), "咪咪不爱喝水，有什么办法让它多喝点"),
    ("zh", (ZH_DIET, ZH_JOB), "明天团建去吃火锅，不能吃辣的人点什么锅底比较好"),
    ("zh", (ZH_BRO, ZH_BANK), "我哥下个月结婚，份子钱一般给多少合适"),
    ("zh", (ZH_SCHOOL, ZH_KID), "三年级的数学应用题怎么给孩子讲比较好懂"),
    ("zh", (ZH_PHONE, ZH_CAR), "华为手机怎么把照片批量传到电脑上"),
    ("zh", (ZH_AGE, ZH_GYM), "快三十了，现在开始存养老金来得及吗"),
    ("zh", (ZH_JOB, ZH_COMMUTE), "字节的年终评估一般几月份开始"),
    ("zh", (ZH_SHIFT, ZH_KID), "倒班的时候怎么安排接孩子放学"),
    ("zh", (ZH_BANK, ZH_JOB), "工资卡里的钱放着不动，有什么稳一点的理财"),
    ("zh", (ZH_TEAM, ZH_GUITAR), "帮我想个湖人主题的生日蛋糕设计"),
    ("zh", (ZH_COMMUTE, ZH_CITY), "10号线早高峰哪节车厢人最少"),
], correcting=False)
