"""A ninth held-out corpus for correcting a memory in the conversation (core/correction.py), written
blind in one sitting on 2026-12-06 and committed before the grammar, the update frames or anything
else was run on it: every case is held out. Nothing is tuned or trained on these sentences;
bench/corrections.py reports them as their own split ("fresh8"), once.

Every sentence is made up. Same shape as correction_phrasings.py: one user turn and the items
injected into the request just before it; CORRECTIONS name the item they correct (its index in
`shown`), LOOK_ALIKES and ORDINARY must correct nothing. `{h0}`, `{h1}` stand for the handles of
shown items.

The turns are written the way people type in a chat app: lowercase, typos, slang, emoji, very short
turns and long rambling ones, never one template.

CORRECTIONS (30 English, 30 Chinese) span many slots (job, employer, city, commute, car, phone, pets,
partner, kids, school year, diet, allergies, drinks, sports, gym, instruments, languages, hobbies,
team, bank, health, shift pattern, degree, pronouns, nickname, house, neighbourhood) and mix:
pushing back on what was shown (sarcasm, a rhetorical question, "that's old"), a new value stated
plainly with no correction word, the old value contrasted with the new, a value that belongs to
someone else with the person's own given, a life event that ends the item, and a partial
correction of one detail of an item (the day, the number, the place).

LOOK_ALIKES (30 English, 30 Chinese) reuse the same words and shapes but correct nothing: someone
else's news, a plan or wish, a hypothetical, a question, pushing back on the assistant's answer or
on a fact about the world, a passing moment, a restatement confirming the item, a quote, a brand or
place as a thing, a past story that changes nothing now, an addition, a request to the assistant,
a complaint about the thing the item names.

ORDINARY (25 English, 25 Chinese) turns are plain chat about the shown item's topic.
"""

from __future__ import annotations

from correction_phrasings import BDAY, COFFEE, DOG, JOB, RUN, SH, VEG, ZH_AGE, ZH_BRO, ZH_CAT, ZH_CITY, \
    ZH_DIET, ZH_JOB, ZH_PHONE, ZH_SCHOOL, Case, held_out_cases

FRESH8 = "fresh8"

LYON = "Lives in Lyon"
TRAIN = "Takes the 7:40 train to work"
GOLF = "Drives a grey VW Golf"
PIXEL = "Uses a Pixel 7"
CATS = "Has two cats, Miso and Tofu"
SAM = "Partner is Sam"
KIDS = "Has two kids, Ella (7) and Jack (4)"
MIA = "Daughter Mia is in Year 2"
VEGAN = "Is vegan"
PEANUTS = "Allergic to peanuts"
TEA = "Drinks green tea, never coffee"
FOOTY = "Plays five-a-side football on Wednesdays"
GYM = "Goes to PureGym near the office"
CELLO = "Plays the cello"
JAPANESE = "Is learning Japanese"
WOOD = "Into woodworking"
ARSENAL = "Supports Arsenal"
MONZO = "Banks with Monzo"
DIABETES = "Has type 1 diabetes"
NIGHTS = "Works night shifts, Monday to Thursday"
PHD = "Doing a PhD in marine biology"
PRONOUNS = "Uses she/her pronouns"
BEX = "Goes by Bex"
TERRACE = "Owns a two-bed terrace house"
CLAPTON = "Lives in Clapton, east London"
NURSE = "Works as a nurse at St Mary's"

ZH_HZ = "我住在杭州西湖区"
ZH_METRO = "每天坐地铁2号线通勤"
ZH_HAN = "开一辆白色的比亚迪汉"
ZH_HUSBAND = "我老公叫陈磊"
ZH_KID = "儿子乐乐在上幼儿园大班"
ZH_MILKTEA = "每天都要喝一杯奶茶"
ZH_SEAFOOD = "对海鲜过敏"
ZH_GYM = "在乐刻健身办了年卡"
ZH_PIANO = "业余在学钢琴"
ZH_JP = "在学日语，准备考N2"
ZH_LAKERS = "支持湖人队"
ZH_BANK = "工资卡是招商银行的"
ZH_BP = "有高血压，一直在吃药"
ZH_SHIFT = "上班是三班倒"
ZH_MASTERS = "在读研二，学计算机"
ZH_NICK = "朋友都叫我阿杰"
ZH_HOUSE = "在上海买了套两居室"
ZH_HOOD = "住在成都高新区"
ZH_ACCOUNTANT = "在一家外企做会计"
ZH_SWIM = "每周游泳两次"
ZH_HAMSTER = "养了两只仓鼠"
ZH_CAMERA = "喜欢拍照，用富士相机"


def _cases(rows: list[tuple], correcting: bool) -> list[Case]:
    return held_out_cases(rows, correcting, FRESH8)


_CORRECTIONS = [
    # English
    ("en", (LYON, NURSE), "lol no, lyon was like two years ago. i'm in bordeaux now", 0),
    ("en", (TRAIN, GYM), "the 7:40 got axed in the timetable change so it's the 8:05 for me now", 0),
    ("en", (GOLF, PIXEL),
     "ugh ok funny story, the golf's gone — sold it in march bc the clutch was going and my mechanic basically "
     "said walk away, so now i've got a little ID.3 and honestly never going back to petrol ⚡", 0),
    ("en", (PIXEL,), "pixel 7?? that thing drowned in a puddle. been on an iphone 15 since the summer", 0),
    ("en", (CATS, SAM), "just the one cat now 😢 tofu passed away in september", 0),
    ("en", (SAM, LYON), "sam and i broke up in the spring fyi. pls stop bringing him up", 0),
    ("en", (KIDS,), "jack's 5 now actually, birthday was last week 🎂", 0),
    ("en", (MIA, KIDS), "she moved up in september, mia's year 3 now", 0),
    ("en", (VEGAN, TEA), "not vegan anymore, went back to eating fish about a year ago", 0),
    ("en", (PEANUTS, DIABETES), "its tree nuts not peanuts. peanuts are totally fine for me weirdly", 0),
    ("en", (LYON, VEGAN, TEA), "where'd you get never coffee from lmao i have two flat whites a day", 2),
    ("en", (FOOTY, GYM), "five a side moved to mondays btw", 0),
    ("en", (GYM, TRAIN), "cancelled puregym in jan, i go to the council leisure centre now, half the price", 0),
    ("en", (CELLO, JAPANESE), "cello is my brother, i play the viola. easy mistake i guess", 0),
    ("en", (JAPANESE, WOOD), "gave up on japanese tbh. switched to korean after way too many k-dramas", 0),
    ("en", (WOOD, ARSENAL), "woodworking was a lockdown phase haha, it's pottery these days", 0),
    ("en", (MONZO, ARSENAL),
     "arsenal?? that's my dad's team, i'm spurs through and through. don't ever say that again", 1),
    ("en", (MONZO, NIGHTS), "{h0} is out of date, moved everything over to starling last month", 0),
    ("en", (DIABETES, PEANUTS), "type 2, not type 1. kind of a big difference for how i manage it", 0),
    ("en", (NIGHTS, TRAIN), "off nights now 🙌 days, tues to sat", 0),
    ("en", (PHD, LYON), "finished the phd in june!! postdoc now 🎓", 0),
    ("en", (PRONOUNS, BEX), "it's they/them for me now, not she/her", 0),
    ("en", (BEX, PRONOUNS), "nobody's called me bex since school. it's becca", 0),
    ("en", (TERRACE, CLAPTON), "we sold the terrace, renting a flat while we look for somewhere bigger", 0),
    ("en", (CLAPTON, TERRACE), "left clapton in the autumn, we're up in walthamstow now", 0),
    ("en", (NURSE, NIGHTS), "i transferred to the royal free in august so not st marys anymore", 0),
    ("en", (SH, DOG), "{h1} — biscuit is my neighbour's dog lol. mine's called pickle", 1),
    ("en", (JOB, SH), "acme laid off half the team incl me in october. freelancing now", 0),
    ("en", (COFFEE, VEG), "three?? one cup. doctor's orders", 0),
    ("en", (BDAY, RUN), "13th of march, not the 3rd. close tho", 0),
    # Chinese
    ("zh", (ZH_HZ, ZH_METRO), "早搬走了，现在在苏州", 0),
    ("zh", (ZH_METRO, ZH_HAN), "公司搬到滨江去了，我现在骑电驴上班，地铁不坐了", 0),
    ("zh", (ZH_HAN, ZH_HUSBAND), "汉去年就卖了啊，换了辆理想L6", 0),
    ("zh", (ZH_PHONE, ZH_AGE), "华为早换了哈哈哈 现在用小米14", 0),
    ("zh", (ZH_HUSBAND, ZH_KID), "我们已经离婚了，以后别再提陈磊了", 0),
    ("zh", (ZH_KID, ZH_HUSBAND), "乐乐九月份就上一年级了，不是大班了", 0),
    ("zh", (ZH_SCHOOL, ZH_CAT), "女儿现在四年级了", 0),
    ("zh", (ZH_DIET, ZH_MILKTEA), "我现在能吃辣了😂 在重庆待了两年硬生生练出来的", 0),
    ("zh", (ZH_SEAFOOD, ZH_BP), "不是海鲜，是芒果过敏，你记错了", 0),
    ("zh", (ZH_GYM, ZH_MILKTEA), "奶茶戒了三个月了，现在只喝美式", 1),
    ("zh", (ZH_GYM, ZH_SWIM), "乐刻那张卡退了 现在在家跟着帕梅拉练", 0),
    ("zh", (ZH_PIANO, ZH_JP), "钢琴是我表妹在学，我学的是古筝", 0),
    ("zh", (ZH_JP, ZH_MASTERS), "N2去年就过了，在准备N1呢", 0),
    ("zh", (ZH_LAKERS,), "湖人？？我勇士球迷好吧", 0),
    ("zh", (ZH_BANK, ZH_ACCOUNTANT), "换工作以后工资卡变成建行的了", 0),
    ("zh", (ZH_BP, ZH_SEAFOOD), "血压已经正常了，上个月医生说药可以停了", 0),
    ("zh", (ZH_SHIFT, ZH_METRO), "不用三班倒了！！调到白班了，朝九晚五", 0),
    ("zh", (ZH_MASTERS, ZH_HOOD), "研二是去年的事，我今年研三了，在找工作", 0),
    ("zh", (ZH_NICK, ZH_AGE), "阿杰是我大学室友啦，朋友一般叫我小杰", 0),
    ("zh", (ZH_HOUSE, ZH_HOOD), "上海那套房子卖掉了，回老家了", 0),
    ("zh", (ZH_HOOD, ZH_ACCOUNTANT), "{h0}不对，我住天府新区，不是高新区", 0),
    ("zh", (ZH_ACCOUNTANT, ZH_BANK),
     "外企那份工作我辞了。。。说来话长，反正现在自己开了个烘焙工作室，累是累点但开心", 0),
    ("zh", (ZH_JOB, ZH_CITY), "字节？早离职了，现在在美团", 0),
    ("zh", (ZH_JOB, ZH_BRO, ZH_CITY), "朝阳是以前，我现在住海淀", 2),
    ("zh", (ZH_CAT, ZH_DIET), "咪咪是我妈养的猫，我自己那只叫团子", 0),
    ("zh", (ZH_CAT, ZH_BRO), "{h1}写错了，我哥叫王刚", 1),
    ("zh", (ZH_AGE, ZH_PHONE), "28是前年了，我都30了好吗", 0),
    ("zh", (ZH_SWIM, ZH_GYM), "最近太忙，一周就游一次了", 0),
    ("zh", (ZH_HAMSTER, ZH_CAMERA), "仓鼠只剩一只了，另一只上个月走了🥲", 0),
    ("zh", (ZH_CAMERA, ZH_HAMSTER), "富士那台出掉了，换了索尼", 0),
]

_LOOK_ALIKES = [
    # English
    ("en", (LYON,), "my sister just moved to bordeaux, so jealous of her"),
    ("en", (TRAIN,), "thinking of getting the 8:05 instead from next month, the 7:40 is always rammed"),
    ("en", (GOLF,), "i'd love an ID.3 one day but the golf's got years left in it"),
    ("en", (PIXEL,), "if i switched to an iphone would all my pixel photos transfer ok?"),
    ("en", (CATS,), "is it normal for tofu to sleep like 18 hrs a day? miso never does"),
    ("en", (VEGAN,), "no that's wrong, honey isn't vegan, bees make it"),
    ("en", (ARSENAL,), "nah you're wrong, the invincibles season was 03/04 not 04/05"),
    ("en", (TEA, VEGAN), "not feeling tea today tbh, just water for me"),
    ("en", (NIGHTS,), "yep still on nights mon-thu, it's brutal but it pays"),
    ("en", (BEX,), "my manager literally said 'bex, you are not a morning person' in front of everyone lmao"),
    ("en", (MONZO,), "monzo's app is down again, is it just me?"),
    ("en", (CLAPTON,), "before clapton we lived in croydon for like 6 yrs, wild times"),
    ("en", (CELLO,), "i also started piano a few weeks ago, cello's still my main thing tho"),
    ("en", (GYM,), "can you write me a 3 day split i can do at puregym?"),
    ("en", (GOLF, PIXEL), "my golf's brakes are squeaking again 🙄"),
    ("en", (SAM,), "my best mate and her boyfriend broke up, so sam and i are taking her out tonight"),
    ("en", (MIA,), "what do year 2 kids usually do in maths?"),
    ("en", (NURSE,), "if i ever left st mary's i'd probably go agency"),
    ("en", (DIABETES,), "no, that's not how insulin pumps work, you've got it backwards"),
    ("en", (PEANUTS,), "yeah peanuts, still carry my epipen everywhere"),
    ("en", (TERRACE,), "the roof on the terrace is leaking AGAIN"),
    ("en", (JAPANESE,), "gonna add korean next year once my japanese is solid"),
    ("en", (FOOTY,), "my brother's five a side moved to mondays so we can't carpool anymore"),
    ("en", (PHD, LYON), "why do you remember {h0}? just curious how that works"),
    ("en", (SH,), "actually that's wrong, shanghai isn't the capital, beijing is"),
    ("en", (COFFEE,), "no coffee today, off caffeine until after my scan tomorrow"),
    ("en", (DOG,), "when biscuit was a puppy he ate my passport lol"),
    ("en", (JOB,), "my partner just got a job at acme too, we'll be coworkers haha"),
    ("en", (PRONOUNS,), "wish more people at work would get my pronouns right tbh"),
    ("en", (KIDS,), "jack asked me today why ella gets to stay up later. kids are so funny"),
    # Chinese
    ("zh", (ZH_HZ,), "我闺蜜刚搬到苏州，周末去找她玩"),
    ("zh", (ZH_METRO,), "要是2号线能延到我家门口就好了"),
    ("zh", (ZH_HAN,), "比亚迪汉的车机又卡了，烦死"),
    ("zh", (ZH_PHONE,), "华为新出的那款折叠屏多少钱？"),
    ("zh", (ZH_HUSBAND,), "我闺蜜离婚了，陈磊说让我这阵子多陪陪她"),
    ("zh", (ZH_KID,), "大班的孩子一般要学拼音吗？"),
    ("zh", (ZH_SCHOOL,), "不对不对，你算错了，这道三年级的题答案是24不是42"),
    ("zh", (ZH_DIET,), "今天被同事拉去吃火锅，我点了清汤锅哈哈"),
    ("zh", (ZH_SEAFOOD,), "对，还是海鲜过敏，出去吃饭都得先问一句"),
    ("zh", (ZH_MILKTEA,), "今天不想喝奶茶，来杯白开水就行"),
    ("zh", (ZH_GYM,), "乐刻的私教课值不值得买？"),
    ("zh", (ZH_PIANO,), "老师说我下个月可以开始练肖邦了！"),
    ("zh", (ZH_JP,), "如果N2没过，我就明年再考一次"),
    ("zh", (ZH_LAKERS,), "你说错了，湖人不是2019年夺冠，是2020年"),
    ("zh", (ZH_BANK,), "招商银行的app又更新了，界面好丑"),
    ("zh", (ZH_BP,), "我爸也查出高血压了，唉"),
    ("zh", (ZH_SHIFT,), "我们科室有人调白班了，不用三班倒了，羡慕死"),
    ("zh", (ZH_MASTERS,), "帮我改一下这段开题报告的摘要吧"),
    ("zh", (ZH_NICK,), "今天开会老板突然说“阿杰你来讲两句”，我当场懵了"),
    ("zh", (ZH_HOUSE,), "以前没买房的时候在上海租了五年，搬了四次家"),
    ("zh", (ZH_HOOD,), "有点想搬去天府新区，离公司近点，还在考虑"),
    ("zh", (ZH_ACCOUNTANT,), "要是我辞职去开烘焙店，你觉得靠谱吗"),
    ("zh", (ZH_JOB,), "听说字节今年年终奖不错？"),
    ("zh", (ZH_CITY,), "我表哥刚从朝阳搬到海淀"),
    ("zh", (ZH_CAT, ZH_DIET), "咪咪今天把花瓶打碎了😤"),
    ("zh", (ZH_BRO,), "王强下个月结婚，我要当伴郎"),
    ("zh", (ZH_AGE,), "28了还没对象，我妈天天催"),
    ("zh", (ZH_SWIM,), "除了游泳，最近还开始跑步了"),
    ("zh", (ZH_HAMSTER,), "仓鼠笼子的垫料多久换一次比较好？"),
    ("zh", (ZH_CAMERA, ZH_HAMSTER), "{h0}没错，最近还想入一个富士的新镜头"),
]

_ORDINARY = [
    # English
    ("en", (LYON,), "any good bouchons in lyon for a date night?"),
    ("en", (TRAIN,), "good podcasts for a 40 min train ride?"),
    ("en", (GOLF,), "how often should i change the oil on a golf"),
    ("en", (PIXEL,), "how do i turn off the always-on display"),
    ("en", (CATS,), "whats a decent wet food brand for two adult cats"),
    ("en", (SAM,), "ideas for sam's birthday? he's into climbing and board games"),
    ("en", (KIDS,), "rainy day stuff for a 7 and a 4 year old pls 🙏"),
    ("en", (VEGAN,), "quick vegan lunches that aren't just hummus"),
    ("en", (TEA,), "sencha vs gyokuro, what's the difference"),
    ("en", (FOOTY,), "stretches before football so my hamstrings stop dying"),
    ("en", (CELLO,), "how do i get a cleaner sound on the c string"),
    ("en", (JAPANESE,), "explain は vs が like i'm 5"),
    ("en", (WOOD,), "best finish for an outdoor oak bench?"),
    ("en", (ARSENAL,), "who are arsenal playing this weekend"),
    ("en", (DIABETES,), "low carb snack ideas for a long drive"),
    ("en", (NIGHTS,), "how do i actually sleep properly during the day"),
    ("en", (PHD,), "help me structure a thesis chapter on coral bleaching"),
    ("en", (TERRACE,), "roughly how much does repointing a terrace cost"),
    ("en", (CLAPTON,), "nice cafes around clapton to work from?"),
    ("en", (NURSE,), "tips for staying hydrated on a 12 hr shift"),
    ("en", (SH,), "what's the weather like in shanghai this week"),
    ("en", (DOG,), "biscuit keeps pulling on the lead, any tips?"),
    ("en", (RUN,), "how many 30k+ long runs should i fit in before race day"),
    ("en", (MONZO,), "how do savings pots work"),
    ("en", (PEANUTS,), "peanut free flapjack recipe?"),
    # Chinese
    ("zh", (ZH_HZ,), "杭州周末有什么好玩的地方推荐吗"),
    ("zh", (ZH_METRO,), "地铁上看什么书比较好"),
    ("zh", (ZH_HAN,), "冬天电车续航掉得厉害怎么办"),
    ("zh", (ZH_PHONE,), "华为手机怎么关掉广告推送"),
    ("zh", (ZH_HUSBAND,), "结婚纪念日送老公什么礼物好"),
    ("zh", (ZH_KID,), "幼儿园大班需要提前学认字吗"),
    ("zh", (ZH_SCHOOL,), "三年级的作文怎么辅导啊，头大"),
    ("zh", (ZH_DIET,), "推荐几道不辣的川菜"),
    ("zh", (ZH_SEAFOOD,), "去日本玩，对海鲜过敏要注意点啥"),
    ("zh", (ZH_MILKTEA,), "奶茶怎么在家自己做"),
    ("zh", (ZH_GYM,), "帮我排个一周练三次的计划"),
    ("zh", (ZH_PIANO,), "车尔尼599练到多少条可以考级"),
    ("zh", (ZH_JP,), "N2听力怎么提高"),
    ("zh", (ZH_LAKERS,), "湖人今晚几点打"),
    ("zh", (ZH_BANK,), "招行信用卡积分怎么兑换"),
    ("zh", (ZH_BP,), "高血压能喝咖啡吗"),
    ("zh", (ZH_SHIFT,), "夜班下来怎么快速入睡"),
    ("zh", (ZH_MASTERS,), "研究生论文查重一般多少算合格"),
    ("zh", (ZH_HOUSE,), "两居室怎么装修显得大一点"),
    ("zh", (ZH_HOOD,), "高新区附近有什么好吃的火锅"),
    ("zh", (ZH_ACCOUNTANT,), "年底审计好忙，有啥提高效率的excel技巧"),
    ("zh", (ZH_CAT,), "猫咪掉毛严重怎么办"),
    ("zh", (ZH_SWIM,), "自由泳换气总是呛水怎么办"),
    ("zh", (ZH_CAMERA,), "富士的胶片模拟哪个最好看"),
    ("zh", (ZH_HAMSTER,), "仓鼠能吃苹果吗"),
]

CORRECTIONS = _cases(_CORRECTIONS, True)
LOOK_ALIKES = _cases(_LOOK_ALIKES, False)
ORDINARY = _cases(_ORDINARY, False)
