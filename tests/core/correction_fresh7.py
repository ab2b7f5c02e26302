"""An eighth held-out corpus for correcting a memory in the conversation (core/correction.py), written
blind in one sitting on 2026-12-06 and committed before the grammar, the update frames or anything
else was run on it: every case is held out. Nothing is tuned or trained on these sentences;
bench/corrections.py reports them as their own split ("fresh7"), once.

Every sentence is made up. Same shape as correction_phrasings.py: one user turn and the items
injected into the request just before it; CORRECTIONS name the item they correct (its index in
`shown`), LOOK_ALIKES and ORDINARY must correct nothing. `{h0}`, `{h1}` stand for the handles of
shown items.

CORRECTIONS mix five kinds: pushing back on what was shown in the many ways people do in chat
(sarcasm, a rhetorical question, "that's ancient", a mix-up with someone else, "lol no", a
correction buried in the middle of a ramble), stating the new value with no correction word at all,
contrasting the old value with the new one, the shown value reassigned to someone else ("Mia's my
niece, my daughter is Rosa"), and a life event that ends the item (a pet died, the car sold, quit
the band, moved out, graduated). LOOK_ALIKES reuse the same words and shapes for someone else's
news, a plan or wish, a hypothetical, a question, pushing back on the assistant or on a fact about
the world, a passing moment, a restatement, a quote, a brand or place as a thing, a past story that
changes nothing now, an addition, or a request. ORDINARY turns are plain chat about the shown
item's topic.
"""

from __future__ import annotations

from correction_phrasings import CAR, COFFEE, DOG, JOB, PARTNER, SH, VEG, ZH_BRO, ZH_CAT, ZH_CITY, ZH_DIET, ZH_JOB, \
    ZH_PHONE, ZH_SCHOOL, Case, held_out_cases

FRESH7 = "fresh7"

NEIGHBOURHOOD = "Lives in Clapham, south London"
GYM = "Has a PureGym membership and goes before work"
BAND = "Plays bass in a covers band called The Loose Ends"
TEAM = "Supports Arsenal"
BANK = "Banks with Barclays"
ASTHMA = "Has asthma and carries an inhaler"
SHIFTS = "Works night shifts as a nurse at St Mary's"
DAUGHTER = "Daughter is called Mia"
CATS = "Has two cats, Pickle and Moss"
TEETOTAL = "Doesn't drink alcohol"
POTTERY = "Does pottery, takes a class on Wednesdays"
LAW = "Second-year law student at Leeds"
TENNIS = "Plays tennis on Saturday mornings"
DESIGNER = "Works at Brightloop as a product designer"
TRAIN = "Takes the train from Stockport into Manchester for work"
GALAXY = "Uses a Samsung Galaxy S21"
LEO = "Son Leo is in Year 7"
WIFE = "Married to Hannah"
BIOCHEM = "Has a degree in biochemistry"
JAPANESE = "Is learning Japanese"
PEANUT = "Allergic to peanuts"
FLATSHARE = "Shares a flat in Leith with two friends"
ZH_TEACHER = "我是中学数学老师"
ZH_BF = "男朋友叫阿杰"
ZH_BANK = "工资卡是招商银行的"
ZH_NEIGHBOR = "我住在上海徐汇区"
ZH_SUBWAY = "每天坐地铁2号线上班"
ZH_SON = "儿子在读初二"
ZH_TEAM = "是北京国安的球迷"
ZH_TEA = "每天喝一杯奶茶"
ZH_HEALTH = "有胃病，不能喝冰的"
ZH_GRAD = "在读研究生，学计算机"
ZH_PIANO = "在学钢琴"
ZH_SHIFT = "在医院上班，三班倒"
ZH_CAR = "开的是一辆白色的比亚迪"
ZH_GYM = "在乐刻健身办了年卡"
ZH_JAPANESE = "在学日语"
ZH_DEGREE = "本科学的是临床医学"
ZH_TURTLE = "养了两只乌龟"
ZH_PARENTS = "和爸妈住在一起"
ZH_BAND = "在公司乐队里当鼓手"
ZH_ALLERGY = "对青霉素过敏"


def _cases(rows: list[tuple], correcting: bool) -> list[Case]:
    return held_out_cases(rows, correcting, FRESH7)


CORRECTIONS = _cases([
    # English, pushing back on what was shown
    ("en", (SHIFTS, CATS), "night shifts?? lol no, they moved me onto days back in the spring thank god. 7 till 7:30", 0),
    ("en", (BANK, TEAM), "arsenal? mate I've had a spurs season ticket since I was 9, you've got me mixed up with my brother", 1),
    ("en", (GYM, BANK), "barclays lol. closed that account after they lost my cheque twice, everything's with monzo now", 1),
    ("en", (DESIGNER, CATS), "is that from like 2022? brightloop folded, I freelance now, mostly brand work for small cafes", 0),
    ("en", (TENNIS, NEIGHBOURHOOD), "clapham is ancient history, we're out in walthamstow these days, way more space for the money", 1),
    ("en", (DAUGHTER, SH), "Mia's my niece! my daughter is Rosa 🙈", 0),
    ("en", (ASTHMA, GYM, POTTERY), "ok so long day, work was a nightmare, the printer jammed like four times and my manager wanted "
     "the slides redone AGAIN, anyway i got home and realised i havent set foot in puregym since i cancelled in january, i just "
     "run round the park now which is free lol, so yeah can u give me a quick 20 min stretching routine for after runs", 1),
    ("en", (TEETOTAL, TEAM), "doesn't drink alcohol, sure, tell that to the three pints I had last night 😂 I stopped being teetotal ages ago", 0),
    ("en", (GALAXY, LAW), "second-year?? do I look like I'm still sitting in lectures? graduated in july, I'm a trainee solicitor now", 1),
    ("en", (DOG, PARTNER), "haha Alex is my flatmate not my partner, my boyfriend's called Sam", 1),
    ("en", (GALAXY, BANK), "{h0} is well out of date, I'm on an iphone 15 now", 0),
    ("en", (POTTERY, TENNIS), "havent picked up a racket since I did my wrist in, tennis is done for me. padel on saturdays now", 1),
    ("en", (JAPANESE, DESIGNER), "japanese lasted like 3 weeks lmao, it's korean I'm learning", 0),
    # English, the new value with no correction word
    ("en", (SH, JOB), "I live in Hangzhou.", 0),
    ("en", (COFFEE, CAR), "I drive a red Kia Niro, the electric one", 1),
    ("en", (POTTERY, DESIGNER), "im at deliveroo, product design, been there since feb", 1),
    ("en", (LEO, BANK), "leo's in year 9", 0),
    ("en", (BIOCHEM, ASTHMA), "my degree's in chemical engineering", 0),
    # English, old against new
    ("en", (SH, JOB), "used to be backend at acme, now I do platform/devops for an insurance company", 1),
    ("en", (NEIGHBOURHOOD, CATS), "it was two cats, now it's just Moss, Pickle went missing in the summer 😢", 1),
    ("en", (TRAIN, BANK), "I used to get the train into manchester but the office moved out to salford quays so I just drive now", 0),
    ("en", (POTTERY, DAUGHTER), "pottery's been replaced by woodturning tbh, got a little lathe set up in the garage", 0),
    ("en", (PEANUT, TEETOTAL), "the peanut thing was when I was little, got retested last year and it's gone, I eat satay all the time now", 0),
    # English, life events that end the item
    ("en", (TEAM, BAND), "quit the loose ends last month, creative differences lol, so no more band for me", 1),
    ("en", (DOG, CAR), "We had to put Biscuit down in October. Still can't really talk about it.", 0),
    ("en", (SH, CAR), "sold the civic on autotrader last week, I'm car-free now and honestly loving it", 1),
    ("en", (FLATSHARE, GALAXY), "moved out of the leith flat when the lease ended, got my own wee studio in gorgie now 🎉", 0),
    ("en", (COFFEE, VEG), "gave up being veggie when I was pregnant, my iron levels were awful, I eat chicken and fish now", 1),
    ("en", (ASTHMA, TEETOTAL), "my asthma cleared up completely after we moved out of the city, haven't needed the inhaler in 3 years", 0),
    ("en", (LEO, WIFE), "hannah and I got divorced last year so maybe drop that one", 1),
    # Chinese, pushing back on what was shown
    ("zh", (ZH_TEACHER, ZH_CAT), "数学老师？？早不干了好吗，前年考了公务员，现在在区里上班", 0),
    ("zh", (ZH_GYM, ZH_BF), "阿杰是我表哥啊😂 我男朋友叫小周", 1),
    ("zh", (ZH_BANK, ZH_TEA), "招行那张卡早销了，公司统一换成工行的工资卡了", 0),
    ("zh", (ZH_SUBWAY, ZH_NEIGHBOR), "徐汇？那都是老黄历了，我们去年就搬到浦东张江了", 1),
    ("zh", (ZH_SON, ZH_BANK), "你这个信息也太老了吧，我儿子都上高一了", 0),
    ("zh", (ZH_TEA, ZH_TEAM), "我什么时候成国安球迷了，你是把我跟我老公搞混了吧，我支持的是申花", 1),
    ("zh", (ZH_TEA, ZH_HEALTH), "每天一杯奶茶？我倒是想，体检血糖超标之后就戒了，现在只喝白开水", 0),
    ("zh", (ZH_PIANO, ZH_GRAD), "还在读研？我都毕业一年多了好吧，现在在一家做芯片的公司上班", 1),
    ("zh", (ZH_SHIFT, ZH_CAR), "哈哈哈不是啦 我早就不倒班了，调到门诊了，朝八晚五", 0),
    ("zh", (ZH_PIANO, ZH_GYM, ZH_BANK), "今天真的累死了，早上送孩子上学堵了四十分钟，中午开会又拖到一点多，下午还被客户骂了一顿，"
     "本来想下班去乐刻练一下，结果想起来年卡上个月就退了，现在都是在家跟着帕梅拉跳操，你帮我推荐几个适合下班后做的二十分钟训练吧", 1),
    ("zh", (ZH_SON, ZH_CAR), "{h1}这条不对，白色比亚迪去年就卖了，现在开的是理想L6", 1),
    ("zh", (ZH_HEALTH, ZH_TEA), "胃病？去年治好了啊，现在冰的随便喝🥤", 0),
    # Chinese, the new value with no correction word
    ("zh", (ZH_CITY, ZH_JOB), "我住在杭州滨江。", 0),
    ("zh", (ZH_DIET, ZH_PHONE), "我现在用的是小米14", 1),
    ("zh", (ZH_CAT, ZH_JOB), "我在阿里上班，做数据分析", 1),
    ("zh", (ZH_SCHOOL, ZH_PHONE), "女儿上五年级了", 0),
    ("zh", (ZH_TEAM, ZH_SUBWAY), "我每天骑电动车上班，二十分钟就到", 1),
    # Chinese, old against new
    ("zh", (ZH_DIET, ZH_CITY), "以前是一点辣都不碰，在重庆待了两年，现在无辣不欢🌶️", 0),
    ("zh", (ZH_GYM, ZH_JAPANESE), "日语学了半年就放弃了，现在在学韩语", 1),
    ("zh", (ZH_DEGREE, ZH_SHIFT), "我本科学的是护理，不是临床，这两个差别很大的", 0),
    ("zh", (ZH_DIET, ZH_CAT), "原来是养猫，后来我对猫毛过敏，送给我妈养了，现在家里养的是鹦鹉", 1),
    # Chinese, the shown value reassigned
    ("zh", (ZH_BRO, ZH_PHONE), "王强是我表弟，我哥叫王磊", 0),
    ("zh", (ZH_BF, ZH_PIANO), "学钢琴的是我女儿，我是陪练😂 我自己学的是吉他", 1),
    ("zh", (ZH_ALLERGY, ZH_SHIFT), "青霉素过敏那个是我妈，我是对头孢过敏", 0),
    # Chinese, life events that end the item
    ("zh", (ZH_DIET, ZH_TURTLE), "两只乌龟冬眠的时候没挺过去，都没了😭", 1),
    ("zh", (ZH_PARENTS, ZH_JOB), "上周终于搬出来自己住了，在公司附近租了个一居室", 0),
    ("zh", (ZH_SUBWAY, ZH_BAND), "乐队解散了，大家都太忙，我的鼓也挂闲鱼卖了", 1),
    ("zh", (ZH_JOB, ZH_PHONE), "上个月从字节离职了，先在家歇一阵再说", 0),
    ("zh", (ZH_GYM, ZH_BF), "别提他了，上个月分了", 1),
    ("zh", (ZH_TEA, ZH_SCHOOL), "女儿今年夏天小学毕业了，九月份上初中", 1),
], correcting=True)


LOOK_ALIKES = _cases([
    # English
    ("en", (DESIGNER, CATS), "my sister just got a job at brightloop too so now we're both there lol"),
    ("en", (SH, JOB), "my best friend is moving to Hangzhou next month, gutted"),
    ("en", (CAR, COFFEE), "my dad finally sold his civic, 19 years old that thing"),
    ("en", (NEIGHBOURHOOD, TENNIS), "thinking we might move out of clapham in a couple of years if we have kids, what areas are good for families?"),
    ("en", (BANK, GYM), "if I switched from barclays to monzo would I lose my overdraft?"),
    ("en", (SHIFTS, ASTHMA), "how do people on nights actually sleep during the day, I'm really struggling"),
    ("en", (TEAM, BANK), "no that's wrong, arsenal's unbeaten season was 2003-04 not 2004-05"),
    ("en", (TEETOTAL, TEAM), "lol no, red wine isn't actually good for your heart, that study got debunked"),
    ("en", (VEG, COFFEE), "had a bite of my mate's burger tonight, don't tell anyone lol, back to lentils tomorrow"),
    ("en", (TRAIN, BANK), "trains are on strike this week so I'm driving in, nightmare"),
    ("en", (DAUGHTER, SH), "yep Mia's mine, she turned six on sunday"),
    ("en", (TENNIS, POTTERY), "my coach said 'you're not a tennis player anymore, you're a wall' lmao"),
    ("en", (GYM, ASTHMA), "puregym changed its opening hours, doesnt open till 6 now, so annoying"),
    ("en", (JOB, SH), "acme's stock fell 12% today, everyone at work is freaking out"),
    ("en", (CAR, SH), "back in uni I had a clapped out fiesta, the door fell off once lol"),
    ("en", (POTTERY, DAUGHTER), "I've started doing watercolour as well, on top of the pottery"),
    ("en", (BANK, ASTHMA), "can you help me write a complaint email to barclays about a fee they charged me"),
    ("en", (PARTNER, DOG), "my brother's partner is also called alex, family gatherings are confusing"),
    ("en", (LAW, GALAXY), "my flatmate graduated yesterday, meanwhile I'm still slogging through second year 😩"),
    ("en", (SHIFTS, CATS), "god I wish I could get off nights, maybe one day"),
    ("en", (TEAM, CAR), "do you think arsenal will sign a striker in january?"),
    ("en", (BIOCHEM, POTTERY), "that's not right, not every enzyme is a protein, ribozymes are RNA. come on, I did biochem"),
    ("en", (DOG, CAR), "if biscuit ever goes I don't think I could get another dog tbh"),
    ("en", (LEO, BANK), "my mum keeps saying leo's too young for year 7 stuff, he's not, he's 11"),
    ("en", (BAND, TEAM), "we're playing without our drummer this weekend, he's in spain, wish us luck"),
    ("en", (GALAXY, JOB), "samsung just announced the new galaxy and the price is insane"),
    ("en", (WIFE, LEO), "hannah's sister just got divorced, she's staying with us for a bit"),
    ("en", (TEETOTAL, GYM), "{h0} is right, still sober, 4 years in march 💪"),
    ("en", (NEIGHBOURHOOD, TENNIS), "before clapham we lived in croydon for like a month, worst month of my life"),
    ("en", (TRAIN, JOB), "wait that's not right, the train from stockport to manchester is like 10 minutes not 40"),
    # Chinese
    ("zh", (ZH_JOB, ZH_CITY), "我同事刚从字节跳槽到腾讯了，工资涨了不少"),
    ("zh", (ZH_CITY, ZH_CAT), "我闺蜜下个月要搬去杭州了，好舍不得"),
    ("zh", (ZH_CAR, ZH_SON), "我爸把他那辆老桑塔纳卖了，也换了个比亚迪"),
    ("zh", (ZH_NEIGHBOR, ZH_SUBWAY), "明年孩子上学了，可能考虑搬到闵行，你觉得那边学区怎么样"),
    ("zh", (ZH_BANK, ZH_TEA), "如果我把工资卡换成工行的，招行的信用卡还能正常用吗"),
    ("zh", (ZH_SHIFT, ZH_HEALTH), "三班倒的人怎么调整作息啊，我最近上完夜班老是睡不着"),
    ("zh", (ZH_TEAM, ZH_TEA), "不对，国安拿联赛冠军是2009年，不是2010年"),
    ("zh", (ZH_DIET, ZH_CITY), "不对吧，辣其实不是味觉是痛觉，这个我知道"),
    ("zh", (ZH_SUBWAY, ZH_BANK), "今天2号线故障，我打车去的公司，花了八十多"),
    ("zh", (ZH_TEA, ZH_HEALTH), "今天破例喝了两杯奶茶，开会开到崩溃了"),
    ("zh", (ZH_BF, ZH_GYM), "对，阿杰，我们下个月就在一起三年了"),
    ("zh", (ZH_PIANO, ZH_BF), "我妈说“你都三十了还学什么钢琴”，气死我了"),
    ("zh", (ZH_GYM, ZH_PIANO), "乐刻最近涨价了，单次课从39涨到49"),
    ("zh", (ZH_JOB, ZH_PHONE), "字节今天又上热搜了，不知道又出啥事了"),
    ("zh", (ZH_CAR, ZH_SON), "刚拿驾照那会儿开我爸的车把后视镜刮掉了，哈哈"),
    ("zh", (ZH_JAPANESE, ZH_GYM), "除了日语，我最近还开始学点法语，纯属兴趣"),
    ("zh", (ZH_BANK, ZH_TEA), "帮我查一下招行信用卡的年费怎么免"),
    ("zh", (ZH_SON, ZH_BANK), "我侄子今年也上初二，跟我儿子一个学校"),
    ("zh", (ZH_SHIFT, ZH_CAR), "好想调去门诊啊，不用倒班多好"),
    ("zh", (ZH_TURTLE, ZH_DIET), "要是乌龟死了我会哭死的，它们都养了八年了"),
    ("zh", (ZH_GRAD, ZH_PIANO), "研究生毕业之后去大厂好还是读博好啊"),
    ("zh", (ZH_JOB, ZH_CITY), "你算错了吧，字节的年终奖不是这么算的"),
    ("zh", (ZH_TEACHER, ZH_CAT), "我朋友老说我当老师当傻了，只会讲题哈哈"),
    ("zh", (ZH_PARENTS, ZH_JOB), "这周爸妈出去旅游了，家里就我一个人，太爽了"),
    ("zh", (ZH_NEIGHBOR, ZH_TEAM), "徐汇滨江那边新开了个美术馆，周末去看看"),
    ("zh", (ZH_BAND, ZH_SUBWAY), "隔壁部门的乐队解散了，现在我们乐队是公司唯一一个了"),
    ("zh", (ZH_ALLERGY, ZH_SHIFT), "{h0}没错，所以每次看病我都要跟医生强调一遍"),
    ("zh", (ZH_CAT, ZH_DIET), "咪咪小时候掉进过鱼缸，差点淹死，现在看到水就跑"),
    ("zh", (ZH_PHONE, ZH_JOB), "华为手机怎么把微信聊天记录导到电脑上"),
    ("zh", (ZH_HEALTH, ZH_TEA), "不对不对，我问的是胃炎能不能喝咖啡，你回答的是胃溃疡"),
], correcting=False)


ORDINARY = _cases([
    # English
    ("en", (SH, JOB), "whats a good place for xiaolongbao near jing'an?"),
    ("en", (CAR, COFFEE), "how often should i change the oil on my civic"),
    ("en", (DOG, CAR), "biscuit barks at the postman every single morning, any tips"),
    ("en", (BANK, GYM), "is it worth opening an ISA this year or should I just leave it in savings"),
    ("en", (SHIFTS, CATS), "what should I eat before a night shift so I don't crash at 3am"),
    ("en", (TEAM, BANK), "who's starting for arsenal tonight, is saka fit?"),
    ("en", (DAUGHTER, SH), "ideas for mia's 7th birthday party? she's obsessed with dinosaurs"),
    ("en", (NEIGHBOURHOOD, TENNIS), "any decent brunch spots near the common"),
    ("en", (POTTERY, DAUGHTER), "how do i stop my bowls cracking in the kiln"),
    ("en", (LAW, GALAXY), "how do I structure an answer to a contract law problem question"),
    ("en", (BAND, TEAM), "can you suggest some 80s songs that work well for a covers band"),
    ("en", (TEETOTAL, GYM), "good alcohol-free options for a wedding toast?"),
    ("en", (ASTHMA, GYM), "is it ok to do HIIT with asthma if I use my inhaler first"),
    ("en", (TRAIN, BANK), "what's the cheapest way to do a daily train commute, season ticket or railcard"),
    ("en", (GALAXY, JOB), "my samsung battery drains so fast, any settings I should change"),
    ("en", (LEO, BANK), "leo's got a test on fractions friday, can you make some practice questions"),
    ("en", (WIFE, LEO), "anniversary dinner ideas for hannah, she's really into thai food"),
    ("en", (BIOCHEM, POTTERY), "explain michaelis-menten like i forgot everything from uni"),
    ("en", (TENNIS, POTTERY), "best strings for a club-level racket?"),
    ("en", (VEG, COFFEE), "quick veggie dinners under 20 mins pls"),
    ("en", (PARTNER, DOG), "what should I get alex for christmas, budget £50"),
    ("en", (CATS, NEIGHBOURHOOD), "pickle keeps scratching the sofa 😩 what do I do"),
    ("en", (DESIGNER, CATS), "can you look at how I've structured this case study for my portfolio"),
    ("en", (JOB, SH), "how should I think about indexing a really big orders table in postgres"),
    ("en", (COFFEE, VEG), "which beans make the best espresso at home"),
    # Chinese
    ("zh", (ZH_JOB, ZH_CITY), "最近组里加班有点多，有什么解压的方法吗"),
    ("zh", (ZH_CITY, ZH_CAT), "朝阳区周末有什么适合带孩子去的地方"),
    ("zh", (ZH_CAT, ZH_DIET), "咪咪最近不爱吃猫粮，怎么办"),
    ("zh", (ZH_DIET, ZH_CITY), "推荐几道不辣的川菜"),
    ("zh", (ZH_SCHOOL, ZH_PHONE), "三年级的数学应用题怎么教孩子比较好"),
    ("zh", (ZH_PHONE, ZH_JOB), "华为手机怎么关掉负一屏"),
    ("zh", (ZH_NEIGHBOR, ZH_SUBWAY), "徐汇哪里有好吃的本帮菜"),
    ("zh", (ZH_SUBWAY, ZH_BANK), "地铁上看什么书比较好，推荐几本"),
    ("zh", (ZH_CAR, ZH_SON), "比亚迪的保养多久做一次"),
    ("zh", (ZH_SON, ZH_BANK), "初二物理怎么辅导，我自己都忘光了"),
    ("zh", (ZH_BF, ZH_GYM), "阿杰生日快到了，送什么礼物好"),
    ("zh", (ZH_GYM, ZH_PIANO), "练完腿第二天很酸，要怎么拉伸"),
    ("zh", (ZH_PIANO, ZH_BF), "车尔尼599练到第几首可以开始弹流行曲"),
    ("zh", (ZH_TEAM, ZH_TEA), "今晚国安踢谁，几点开始"),
    ("zh", (ZH_BANK, ZH_TEA), "招行的朝朝宝收益怎么样"),
    ("zh", (ZH_TEA, ZH_HEALTH), "有没有低糖的奶茶推荐"),
    ("zh", (ZH_SHIFT, ZH_CAR), "夜班下来怎么快速补觉"),
    ("zh", (ZH_HEALTH, ZH_TEA), "胃不好早餐吃什么比较好"),
    ("zh", (ZH_JAPANESE, ZH_GYM), "日语的て形怎么记比较快"),
    ("zh", (ZH_TEACHER, ZH_CAT), "初中的函数怎么讲学生更容易懂"),
    ("zh", (ZH_GRAD, ZH_PIANO), "开题报告的文献综述怎么写"),
    ("zh", (ZH_TURTLE, ZH_DIET), "巴西龟冬天要不要开加热棒"),
    ("zh", (ZH_PARENTS, ZH_JOB), "周末想带爸妈出去吃饭，有什么适合老人的餐厅"),
    ("zh", (ZH_BAND, ZH_SUBWAY), "打鼓打久了手腕疼怎么办"),
    ("zh", (ZH_ALLERGY, ZH_SHIFT), "青霉素过敏的话，感冒发烧一般能吃什么药"),
], correcting=False)
