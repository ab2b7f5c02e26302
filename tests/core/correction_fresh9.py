"""A tenth held-out corpus for correcting a memory in the conversation (core/correction.py), written
blind in one sitting and committed before the grammar, the update frames or anything else was run on
it: every case is held out. Nothing is tuned or trained on these sentences; bench/corrections.py
reports them as their own split ("fresh9"), once.

Every sentence is made up. Same shape as correction_phrasings.py: one user turn and the items
injected into the request just before it; CORRECTIONS name the item they correct (its index in
`shown`), LOOK_ALIKES and ORDINARY must correct nothing. `{h0}`, `{h1}` stand for the handles of
shown items.

The turns are written the way people type in a chat app: lowercase, typos, slang, emoji, very short
turns and long rambling ones, never one template.

CORRECTIONS (30 English, 30 Chinese) span many slots (city, neighbourhood, hometown, job, employer,
commute, car, phone, pets, partner, spouse's job, kids' ages and school year, diet, allergies,
drinks, sports and their day, languages, bank, health, smoking, hobbies, team, studies, housing,
age, birthday, weight goal) and mix: pushing back on what was shown ("where'd you get that",
"那是老黄历了", a rhetorical question), a new value said plainly with no correction word, the old
value contrasted with the new, a value that belongs to someone else, a life event that ends the
item (sold, died, quit, split up, graduated), and a partial correction of one detail (the day, the
number, the place, one character of a name). Targets are spread over the first, second and third
shown item.

LOOK_ALIKES (30 English, 30 Chinese) reuse the same words and shapes but correct nothing: someone
else's news, a plan or wish, a hypothetical, a question with and without a question mark, pushing
back on the assistant's answer or on a fact about the world, a passing moment, a restatement that
confirms the item, an addition, a quote, a request to write or translate text, a complaint, an
idiom, a thing's news (the company, the gym, the team, the bank), a past story that changes nothing
now, and plain verbs in their ordinary sense (moved the sofa, left my keys, switched to dark mode).

ORDINARY (25 English, 25 Chinese) turns are plain chat about the shown item's topic.
"""

from __future__ import annotations

from correction_phrasings import AGE, COFFEE, DOG, JOB, SH, SISTER, VEG, Case, held_out_cases

FRESH9 = "fresh9"

DENVER = "Lives in Denver"
NURSE = "Works as a nurse at St Mary's"
CIVIC = "Drives a 2014 Honda Civic"
IPHONE = "Uses an iPhone 12"
PARROT = "Has a parrot named Kiwi"
PRIYA = "Married to Priya"
TWINS = "Has twin boys, aged 5"
KETO = "Follows a keto diet"
SHELLFISH = "Allergic to shellfish"
OAT = "Drinks oat milk lattes"
TENNIS = "Plays tennis on Saturday mornings"
SPANISH = "Learning Spanish on Duolingo"
CHASE = "Banks with Chase"
ASTHMA = "Has asthma"
BOULDER = "Goes bouldering twice a week"
BASS = "Plays bass in a band"
CYCLES = "Cycles to work"
LAKERS = "Supports the Lakers"
LEEDS = "Studying law at Leeds"
FLATSHARE = "Rents a flat with two housemates"
SMOKES = "Smokes about half a pack a day"
MARATHON = "Training for the Chicago marathon"
JESS = "Girlfriend is called Jess"
MATHS = "Teaches maths at a secondary school"
BDAY14 = "Birthday is on March 14"
RABBIT = "Has a rabbit called Pancake"
SOBER = "Doesn't drink alcohol"
GLUTEN = "Is gluten intolerant"
EARLY = "Wakes up at 5am to go to the gym"
GERMAN = "Speaks German fluently"

ZH_NANSHAN = "住在深圳南山"
ZH_QIN = "开一辆白色的比亚迪秦"
ZH_MATE = "用的是华为Mate 40"
ZH_MIMI = "我养了一只猫叫咪咪"
ZH_DOUDOU = "养了一条柯基叫豆豆"
ZH_AJIE = "男朋友叫阿杰"
ZH_HUSBAND = "老公是医生"
ZH_SON = "儿子今年上小学三年级"
ZH_DUODUO = "女儿叫朵朵，4岁"
ZH_SUSHI = "吃素"
ZH_MANGO = "对芒果过敏"
ZH_MILKTEA = "每天一杯奶茶"
ZH_BADMINTON = "每周三晚上打羽毛球"
ZH_JLPT = "在学日语，准备考N2"
ZH_PM = "在一家互联网公司做产品经理"
ZH_CHINESE_T = "是一名高中语文老师"
ZH_STOMACH = "有慢性胃炎"
ZH_YOGA = "每天早上练瑜伽"
ZH_PIANO = "在学钢琴"
ZH_LINE2 = "每天坐地铁2号线上班"
ZH_HZRENT = "在杭州租房住"
ZH_28 = "今年28岁"
ZH_SMOKE = "抽烟，一天大概一包"
ZH_WZRY = "喜欢玩王者荣耀"
ZH_AMERICANO = "每天早上喝一杯美式"
ZH_MIANYANG = "老家在四川绵阳"
ZH_DIET = "正在减肥，目标120斤"
ZH_ICBC = "工资卡是工商银行的"
ZH_GRAD = "在读研二，学计算机"
ZH_PARENTS = "和爸妈住在一起"
ZH_FISHING = "周末喜欢去水库钓鱼"

_CORRECTIONS = [
    # English
    ("en", (COFFEE, SH), "lol where'd you get shanghai from, i've been in chengdu since 2022", 1),
    ("en", (IPHONE, CIVIC), "sold the civic last month btw. bike + bus everywhere now", 1),
    ("en", (PARROT,), "kiwi passed away in august 😢 so no birds in the house anymore", 0),
    ("en", (DENVER, NURSE), "not at st marys anymore, moved over to the children's hospital in april", 1),
    ("en", (PRIYA, TWINS), "priya and i split last year. divorce went through in jan", 0),
    ("en", (KETO, TWINS, OAT), "the boys are 7 now lol not 5, time flies", 1),
    ("en", (KETO,), "Gave up keto ages ago tbh, it made me miserable. I eat carbs like a normal person again", 0),
    ("en", (OAT, SHELLFISH), "its not shellfish im allergic to, its tree nuts!! shrimp is totally fine for me", 1),
    ("en", (TENNIS, CHASE, OAT), "switched to straight black coffee, oat milk was wrecking my stomach", 2),
    ("en", (SPANISH, TENNIS), "tennis is sundays now, the juniors took over the saturday courts", 1),
    ("en", (SPANISH,), "it's portuguese i'm learning, not spanish. my boyfriend's from recife", 0),
    ("en", (IPHONE, CHASE), "closed my chase account back in june, everything's at ally now", 1),
    ("en", (IPHONE,), "iphone 12?? bro that thing died two years ago, im on a pixel 8", 0),
    ("en", (SH, JOB), "quit acme in march. freelancing now, mostly django stuff", 1),
    ("en", (VEG, DOG), "Biscuit is my mom's dog, not mine! I don't have any pets, my building doesn't allow them", 1),
    ("en", (COFFEE, VEG, SISTER), "eh i eat fish again so not really vegetarian anymore, pescatarian i guess", 1),
    ("en", (COFFEE,), "down to one cup a day now, doctor's orders 😭", 0),
    ("en", (SISTER, AGE), "im 36 not 34 but thanks for the compliment", 1),
    ("en", (SISTER, SH), "my sister is lin. lan is my cousin, people mix them up constantly", 0),
    ("en", (BOULDER, ASTHMA), "so the asthma thing turned out to be a misdiagnosis, it was reflux the whole time. no inhaler for me anymore", 1),
    ("en", (BOULDER, BASS), "havent bouldered since i tore a finger pulley in feb, doing pilates instead now", 0),
    ("en", (LAKERS, BASS), "the band broke up in like 2021 and i mostly play keys these days anyway", 1),
    ("en", (NURSE, FLATSHARE, CYCLES), "i drive in now, we moved out past aurora and it's 20 miles each way, not doing that on a bike", 2),
    ("en", (LAKERS,), "who told you i support the lakers?? warriors fan since birth, respectfully", 0),
    ("en", (LEEDS, SMOKES), "finished at leeds in july!! trainee solicitor now, first seat is in litigation", 0),
    ("en", (CIVIC, FLATSHARE), "we bought a place in october so no more housemates 🎉🎉 finally my own fridge", 1),
    ("en", (COFFEE, SMOKES), "i quit smoking 8 months ago, havent touched one since", 1),
    ("en", (MARATHON, EARLY), "its berlin not chicago, didnt get a chicago bib this year", 0),
    ("en", (JESS, AGE), "jess is my ex. been seeing a girl called maya since the summer", 0),
    ("en", (MATHS, BDAY14, RABBIT), "my birthday's the 16th not the 14th. march is right tho", 1),
    # Chinese
    ("zh", (ZH_NANSHAN, ZH_QIN), "我早就不在南山了，去年搬到福田了", 0),
    ("zh", (ZH_MATE, ZH_QIN), "那是老黄历了，比亚迪前年就卖了，现在开的是model 3", 1),
    ("zh", (ZH_MIMI,), "咪咪上个月走了……家里现在没有猫了", 0),
    ("zh", (ZH_AJIE, ZH_DOUDOU), "豆豆是我闺蜜的狗啦 我自己没养", 1),
    ("zh", (ZH_AJIE,), "和阿杰分了，以后别提他", 0),
    ("zh", (ZH_DUODUO, ZH_SON, ZH_HUSBAND), "儿子都四年级了", 1),
    ("zh", (ZH_DUODUO,), "朵朵今年五岁啦，不是四岁", 0),
    ("zh", (ZH_MANGO, ZH_SUSHI), "我现在不吃素了 体检说蛋白质严重不够，医生让吃点肉", 1),
    ("zh", (ZH_MANGO,), "我是对菠萝过敏！！芒果随便吃的，你记反了吧", 0),
    ("zh", (ZH_BADMINTON, ZH_MILKTEA), "奶茶戒了快半年了，瘦了六斤", 1),
    ("zh", (ZH_YOGA, ZH_JLPT, ZH_BADMINTON), "羽毛球改到周四了，周三场地订不到", 2),
    ("zh", (ZH_JLPT,), "N2去年就过了 现在在啃N1", 0),
    ("zh", (ZH_PM, ZH_LINE2), "我已经离职了，现在在一家外企做运营", 0),
    ("zh", (ZH_CHINESE_T,), "谁说我是语文老师的？我教数学的好吗😂", 0),
    ("zh", (ZH_AMERICANO, ZH_STOMACH), "胃炎早好了，去年做胃镜复查一切正常", 1),
    ("zh", (ZH_YOGA,), "瑜伽没坚持下来，现在改成晚上夜跑了", 0),
    ("zh", (ZH_FISHING, ZH_PIANO), "钢琴学了半年就放弃了，手太笨", 1),
    ("zh", (ZH_LINE2, ZH_PM), "公司搬到滨江了，现在每天坐4号线", 0),
    ("zh", (ZH_28, ZH_HZRENT), "在杭州买房了，不用再租了，上个月刚拿钥匙", 1),
    ("zh", (ZH_28,), "我29了 上礼拜刚过完生日", 0),
    ("zh", (ZH_WZRY, ZH_SMOKE), "烟已经戒了一年多了💪", 1),
    ("zh", (ZH_WZRY,), "王者早卸了，现在只玩原神", 0),
    ("zh", (ZH_MIANYANG, ZH_DIET, ZH_AMERICANO), "美式喝不惯 现在早上都是燕麦拿铁", 2),
    ("zh", (ZH_MIANYANG,), "老家是绵竹不是绵阳哈哈，差一个字差老远了", 0),
    ("zh", (ZH_DIET, ZH_ICBC), "120早就到了，现在目标改成110", 0),
    ("zh", (ZH_ICBC,), "工资卡换成招行了，公司统一给办的", 0),
    ("zh", (ZH_PARENTS, ZH_GRAD), "我已经毕业啦 在上班了 还研二呢哪有那么年轻", 1),
    ("zh", (ZH_PARENTS,), "这都哪年的事了，我早搬出来自己住了", 0),
    ("zh", (ZH_DUODUO, ZH_HUSBAND), "我老公不是医生，他是药剂师，在医院药房上班", 1),
    ("zh", (ZH_MATE, ZH_NANSHAN), "{h0} 过时了 mate40摔坏了换了小米14", 0),
]

_LOOK_ALIKES = [
    # English
    ("en", (SH,), "my sister just moved from shanghai to shenzhen and i'm low-key jealous"),
    ("en", (CIVIC, IPHONE), "thinking about selling the civic next year and getting something electric, thoughts?"),
    ("en", (DENVER,), "if i ever left denver where would i even go, seattle is too rainy"),
    ("en", (NURSE,), "do nurses at st mary's get paid more than the ones at private clinics?"),
    ("en", (IPHONE,), "should i upgrade from the 12 or is it still fine for another year"),
    ("en", (COFFEE,), "no thats wrong, a shot of espresso has less caffeine than a mug of drip coffee. look it up"),
    ("en", (VEG,), "not eating anything today ugh my stomach is killing me"),
    ("en", (DOG,), "yep still got biscuit, he's 9 now and grumpier than ever 🐶"),
    ("en", (TWINS,), "oh and the twins started swimming lessons this week, one loves it one screams"),
    ("en", (SMOKES,), "my doctor literally said 'you need to quit smoking' and i just nodded like an idiot"),
    ("en", (SH, JOB), "how do you say 'my friend moved to beijing' in mandarin"),
    ("en", (CHASE,), "chase charged me a $12 fee AGAIN for literally nothing. hate this bank"),
    ("en", (PARROT,), "my manager just parrots whatever the vp says, it's exhausting"),
    ("en", (JOB,), "acme just got acquired by some private equity firm, wild week at work"),
    ("en", (BOULDER,), "my bouldering gym is closing for two weeks for a reset 😩 what do i do with my life"),
    ("en", (FLATSHARE,), "moved the sofa under the window and the flat feels twice as big lol"),
    ("en", (CIVIC,), "left my keys in the civic again. locked. in the rain."),
    ("en", (SPANISH,), "quitting duolingo for tonight, the owl is being way too aggressive"),
    ("en", (IPHONE, CIVIC), "switched my phone to dark mode and now i can't find anything"),
    ("en", (PRIYA,), "priya's brother just got divorced, it's been a rough week for the whole family"),
    ("en", (DOG, VEG), "my neighbour's dog died yesterday and i keep hugging biscuit extra hard"),
    ("en", (MARATHON,), "no, the chicago marathon is in october not september, check again"),
    ("en", (AGE,), "if i were 25 again i'd have done so much differently honestly"),
    ("en", (SHELLFISH,), "is fish sauce safe with a shellfish allergy"),
    ("en", (JESS,), "planning to propose to jess in december!! help me pick a ring"),
    ("en", (LEEDS,), "back in first year i nearly dropped out of law, so glad i didn't"),
    ("en", (OAT,), "still oat milk, never going back to dairy"),
    ("en", (BDAY14,), "yeah march 14, you got it. any ideas for what to do this year"),
    ("en", (SISTER,), "lan changed her hair to bright pink lmaooo my mum is not coping"),
    ("en", (LAKERS,), "the lakers traded away half the roster, i don't even recognise this team"),
    # Chinese
    ("zh", (ZH_NANSHAN,), "我同事刚从南山搬去宝安，通勤省了一个小时，羡慕"),
    ("zh", (ZH_QIN,), "打算明年把比亚迪卖了换个大点的SUV，二胎要来了"),
    ("zh", (ZH_MIMI,), "要是咪咪哪天走丢了我真的会疯掉"),
    ("zh", (ZH_PM,), "产品经理转运营好转吗？"),
    ("zh", (ZH_MANGO,), "芒果过敏能吃芒果味的冰淇淋吗"),
    ("zh", (ZH_SUSHI,), "不对吧，豆腐的蛋白质没你说的那么低"),
    ("zh", (ZH_DIET,), "不对不对，一斤是500克，你刚才说成1000克了"),
    ("zh", (ZH_MILKTEA,), "今天不喝奶茶了 嗓子疼得要命"),
    ("zh", (ZH_BADMINTON,), "对 还是周三打，今晚就去，球拍刚穿好线"),
    ("zh", (ZH_DOUDOU,), "豆豆最近还学会了握手，聪明得很"),
    ("zh", (ZH_SMOKE,), "我妈天天念叨“你什么时候把烟戒了”，烦死了"),
    ("zh", (ZH_CHINESE_T,), "帮我写一封辞职信，我表姐要从学校辞职，她不太会写这种"),
    ("zh", (ZH_JLPT,), "帮我把“我已经不是学生了”翻译成日语，写小说用的"),
    ("zh", (ZH_ICBC,), "工行app又更新了，界面改得乱七八糟"),
    ("zh", (ZH_PIANO,), "跟我老板沟通就是对牛弹琴"),
    ("zh", (ZH_PM,), "我们公司刚宣布裁员20%，人心惶惶的"),
    ("zh", (ZH_HZRENT,), "今天把沙发挪到阳台那边了，客厅一下宽敞好多"),
    ("zh", (ZH_QIN,), "钥匙又落车里了，我真服了我自己"),
    ("zh", (ZH_MIMI,), "邻居家的猫昨天走了，我抱着咪咪哭了半天"),
    ("zh", (ZH_AJIE,), "阿杰他哥跟女朋友分手了 他这两天一直在安慰"),
    ("zh", (ZH_QIN,), "你说的那个政策是老黄历了吧，新能源车购置税现在已经减半征收了"),
    ("zh", (ZH_LINE2,), "2号线早高峰几点最挤"),
    ("zh", (ZH_GRAD,), "要是研二就退学会怎么样啊 纯好奇"),
    ("zh", (ZH_MATE,), "等mate70降价了再换吧，现在这个还能撑撑"),
    ("zh", (ZH_WZRY,), "大学的时候玩过一阵LOL，后来就没怎么碰了"),
    ("zh", (ZH_MIANYANG,), "不对啊，绵阳又不是省会，成都才是"),
    ("zh", (ZH_MATE,), "刚给手机换了个壳，粉色的哈哈哈"),
    ("zh", (ZH_NANSHAN,), "下周要离开深圳出差十天，家里的花谁浇啊"),
    ("zh", (ZH_HUSBAND,), "我老公他们科室主任辞职了，他最近压力好大"),
    ("zh", (ZH_SON,), "是啊三年级了，数学一下子难了好多"),
]

_ORDINARY = [
    # English
    ("en", (DENVER,), "any good hikes within an hour of denver that aren't packed on weekends"),
    ("en", (NURSE,), "12 hour shift done, feet are destroyed. best compression socks?"),
    ("en", (CIVIC,), "civic is making a weird clicking noise when i turn left, what could that be"),
    ("en", (IPHONE,), "how do i free up storage on my iphone without deleting photos"),
    ("en", (PARROT,), "what fruits are safe for parrots? kiwi keeps stealing my grapes"),
    ("en", (PRIYA,), "anniversary dinner ideas for priya, she hates fancy places"),
    ("en", (TWINS,), "how do you stop 5 year old twins fighting over literally everything"),
    ("en", (KETO,), "give me a keto breakfast that isn't eggs, i'm so sick of eggs"),
    ("en", (SHELLFISH,), "what should i tell the waiter about my shellfish allergy at a thai place"),
    ("en", (TENNIS,), "my backhand is garbage, any drills i can do alone"),
    ("en", (SPANISH,), "whats the difference between ser and estar, i keep mixing them"),
    ("en", (ASTHMA,), "is running in cold air bad for asthma"),
    ("en", (BOULDER,), "how do i get better at heel hooks"),
    ("en", (BASS,), "recommend a cheap bass amp for practicing at home"),
    ("en", (CYCLES,), "best rain jacket for cycling commute that doesn't make me sweat buckets"),
    ("en", (LEEDS,), "how do i structure a problem question answer in contract law"),
    ("en", (FLATSHARE,), "one of my housemates never does the dishes, how do i bring it up without drama"),
    ("en", (MARATHON,), "how many long runs should i do before race day"),
    ("en", (MATHS,), "fun way to teach simultaneous equations to year 10s"),
    ("en", (RABBIT,), "pancake keeps chewing the cables lol how do i bunny proof a room"),
    ("en", (SOBER,), "good non alcoholic drinks to bring to a party"),
    ("en", (GLUTEN,), "is soy sauce gluten free"),
    ("en", (EARLY,), "what should i eat before a 5am workout"),
    ("en", (GERMAN,), "recommend some german podcasts that aren't for beginners"),
    ("en", (COFFEE,), "pour over vs french press, which one actually tastes better"),
    # Chinese
    ("zh", (ZH_NANSHAN,), "南山有什么好吃的潮汕牛肉火锅推荐"),
    ("zh", (ZH_QIN,), "比亚迪秦多久做一次保养"),
    ("zh", (ZH_MATE,), "华为手机怎么把微信聊天记录备份到电脑"),
    ("zh", (ZH_MIMI,), "猫咪总是半夜跑酷怎么办，咪咪吵得我睡不着"),
    ("zh", (ZH_DOUDOU,), "柯基一天该遛几次"),
    ("zh", (ZH_AJIE,), "阿杰生日快到了 送什么礼物比较好"),
    ("zh", (ZH_SON,), "三年级的孩子作文怎么提高"),
    ("zh", (ZH_DUODUO,), "四岁小孩挑食怎么办"),
    ("zh", (ZH_SUSHI,), "推荐几道家常素菜，要下饭的"),
    ("zh", (ZH_MANGO,), "过敏了吃氯雷他定还是西替利嗪好"),
    ("zh", (ZH_BADMINTON,), "羽毛球反手高远球总是打不到底线"),
    ("zh", (ZH_JLPT,), "N2听力怎么练"),
    ("zh", (ZH_PM,), "怎么写一份好的PRD"),
    ("zh", (ZH_CHINESE_T,), "高三作文素材有什么新鲜一点的"),
    ("zh", (ZH_STOMACH,), "胃炎的人早餐吃什么比较好"),
    ("zh", (ZH_YOGA,), "瑜伽下犬式手腕疼是姿势不对吗"),
    ("zh", (ZH_PIANO,), "车尔尼599练到第几首了才算入门"),
    ("zh", (ZH_HZRENT,), "杭州租房押一付三正常吗"),
    ("zh", (ZH_WZRY,), "这赛季打野玩谁比较强"),
    ("zh", (ZH_AMERICANO,), "美式加点什么好喝又不胖"),
    ("zh", (ZH_DIET,), "减肥期间晚上饿了可以吃点什么"),
    ("zh", (ZH_ICBC,), "工行信用卡怎么提额"),
    ("zh", (ZH_GRAD,), "研二了论文还没头绪 好慌"),
    ("zh", (ZH_FISHING,), "冬天水库钓鲫鱼用什么饵"),
    ("zh", (ZH_PARENTS,), "和爸妈住一起总因为作息吵架怎么办"),
]


def _cases(rows: list[tuple], correcting: bool) -> list[Case]:
    return held_out_cases(rows, correcting, FRESH9)


CORRECTIONS = _cases(_CORRECTIONS, True)
LOOK_ALIKES = _cases(_LOOK_ALIKES, False)
ORDINARY = _cases(_ORDINARY, False)
