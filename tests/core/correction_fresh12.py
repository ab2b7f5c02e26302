"""A thirteenth held-out corpus for correcting a memory in the conversation, written blind in one
sitting and committed before anything ran on it; every case is held out.

Every sentence is made up, typed the way people chat with an assistant (lowercase, typos, emoji,
网络用语, brand names inside Chinese). Each row is one user turn and the memories shown just before it.

- CORRECTIONS: the turn says that one shown memory is wrong or no longer true, and the row names it.
  The forms are spread out: pushback openers ("no,", "wrong", "nope", "where'd you get that",
  "不对", "哪有", "你记错了", "谁说的", "没有啊"), the new value tucked inside a request ("help me
  write a bio for the new place"), a new value stated flat with no correction word, old versus new,
  one detail fixed while the rest holds, the value belonging to someone else (sister, neighbour,
  husband, roommate), life events that end the memory (break-ups, a pet dying, a wedding called
  off), very short replies ("36 lol", "29了"), and fixes to a name, number or date.
- LOOK_ALIKES: turns with the same words and shapes that correct nothing: someone else's news,
  plans, wishes and hypotheticals, questions, pushback on the assistant's answer or a world fact,
  states true for now only, restatements that the memory still holds, additions (a second cat,
  another instrument), messages written for others, fiction and role-play, complaints, news about
  the thing, stories from the past, and ordinary uses of moved/switched/changed/quit (搬/换/退/戒).
- ORDINARY: plain requests and chat on a shown memory's topic, with no claim about it at all.
"""

from __future__ import annotations

from correction_phrasings import Case, held_out_cases

FRESH12 = "fresh12"

# English memories
HOME = "Lives in Dundee"
JOB = "Works as a dental hygienist"
EMPLOYER = "Works at Ocado"
CAT = "Has a cat named Pickle"
DOG = "Has a greyhound called Biscuit"
PARTNER = "Partner is named Tomasz"
KIDS = "Has two daughters, Ivy and June"
DIET = "Is pescatarian"
ALLERGY = "Allergic to sesame"
MED = "Takes sertraline 50mg"
PHONE = "Uses a Pixel 7"
LAPTOP = "Uses a ThinkPad X1 Carbon"
CAR = "Drives a 2014 Honda Jazz"
HOBBY = "Goes bouldering twice a week"
TEAM = "Supports Hibernian"
SCHOOL = "Studying nursing at Edinburgh Napier"
ROUTINE = "Runs at 6am before work"
BOOK = "Favourite book is Piranesi"
BANK = "Banks with Monzo"
CARRIER = "Phone carrier is Three"
LANG = "Learning Portuguese on Duolingo"
BIRTHDAY = "Birthday is 14 March"
AGE = "Is 35 years old"
SISTER = "Has a sister named Carys"
GYM = "Member at PureGym Leith"
COFFEE = "Drinks oat flat whites"
INSTRUMENT = "Plays the cello"
BAND = "Favourite band is Wet Leg"
SHIFT = "Works night shifts on weekends"
COMMUTE = "Cycles to work"
GAME = "Plays Stardew Valley"
RENT = "Rents a flat with two flatmates"
EDITOR = "Codes in Neovim"
TRAINING = "Training for the Berlin marathon"
MUM = "Mum lives in Cork"
NAME = "Goes by Sam"
WEDDING = "Getting married in September"
BIKE = "Rides a Brompton"
PLANT = "Grows chillies on the windowsill"

# Chinese memories
ZH_HOME = "住在苏州工业园区"
ZH_JOB = "在游戏公司做原画师"
ZH_EMPLOYER = "在美团上班"
ZH_CAT = "养了一只橘猫叫土豆"
ZH_DOG = "养了一只柯基叫可乐"
ZH_PARTNER = "男朋友叫阿杰"
ZH_KID = "儿子在上小学二年级"
ZH_DIET = "不吃牛肉"
ZH_ALLERGY = "对芒果过敏"
ZH_MED = "每天早上吃优甲乐"
ZH_PHONE = "用的是华为Mate 60"
ZH_LAPTOP = "用MacBook Air M2"
ZH_CAR = "开比亚迪秦PLUS"
ZH_HOBBY = "周末喜欢玩飞盘"
ZH_TEAM = "支持湖人"
ZH_SCHOOL = "在华中科技大学读研"
ZH_ROUTINE = "每天晚上十一点睡"
ZH_FOOD = "最喜欢吃螺蛳粉"
ZH_BANK = "工资卡是招商银行"
ZH_CARRIER = "手机号是中国移动的"
ZH_LANG = "在学日语"
ZH_BIRTHDAY = "生日是农历八月初三"
ZH_AGE = "今年28岁"
ZH_MOM = "妈妈住在洛阳"
ZH_GYM = "在超级猩猩上团课"
ZH_DRINK = "每天一杯瑞幸生椰拿铁"
ZH_INSTRUMENT = "在学尤克里里"
ZH_SINGER = "喜欢听周深"
ZH_COMMUTE = "坐地铁2号线通勤"
ZH_GAME = "在玩原神"
ZH_RENT = "和室友合租两居室"
ZH_NAME = "英文名叫Vivian"
ZH_WEDDING = "打算明年五一结婚"
ZH_BROTHER = "有个弟弟在深圳读大学"
ZH_EXAM = "在准备考公"
ZH_GLASSES = "近视600度"
ZH_HOMETOWN = "老家是湖南岳阳"
ZH_SHIFT = "在医院急诊科上夜班"
ZH_STREAMING = "开了B站大会员"
ZH_PLANT = "阳台上养了一排多肉"

_CORRECTIONS = [
    # (lang, (shown memory texts in block order), turn text, index of the corrected memory in that tuple)
    # pushback openers
    ("en", (CAT, COFFEE, HOME), "no, i havent lived in dundee since 2022, i'm down in perth now", 2),
    ("en", (GYM, JOB), "wrong 😅 i'm a dental therapist not a hygienist, it's a different scope", 1),
    ("en", (BANK, SHIFT, LAPTOP, BAND), "nope, closed my monzo ages ago, everything's with starling now", 0),
    ("en", (CAR, MED, TEAM), "where'd you get hibs from?? i'm hearts, always have been", 2),
    ("en", (SISTER, ROUTINE, AGE, DIET), "hmm that's out of date, i went fully vegan in feb so no fish anymore", 3),
    ("en", (CARRIER,), "that's not right, i ported my number to giffgaff like 6 months ago", 0),
    # new value inside a request
    ("en", (GAME, DOG, EMPLOYER), "help me draft a short bio for the team page at deliveroo, i started there on monday", 2),
    ("en", (BOOK, LANG, BIKE), "can you make me a 4 week babbel plan for italian now that i've dropped portuguese", 1),
    ("en", (PHONE, HOME, CAR, ROUTINE), "whats a normal insurance quote for a 2021 kia niro ev? traded the jazz in last weekend", 2),
    ("en", (EDITOR, BOOK, CARRIER, HOBBY, MED), "can u explain mirtazapine side effects, my gp moved me off the sertraline onto it last week", 4),
    # new value, no correction word
    ("en", (DOG, KIDS), "our dog's a lurcher called mabel, we got her from the dogs trust", 0),
    ("en", (MUM, COFFEE, SCHOOL), "i'm doing midwifery at stirling, second year", 2),
    ("en", (INSTRUMENT, COMMUTE, TRAINING, BANK), "i get the 22 bus to work these days, my knees cant handle the bike", 1),
    ("en", (PLANT, RENT), "it's just me and my bf in the flat now, both flatmates moved out over the summer", 1),
    # old versus new
    ("en", (PHONE, BOOK), "not a pixel anymore, it's an iphone 15 since the pixel took a bath 🛁", 0),
    ("en", (EMPLOYER, SISTER, BAND, HOBBY, BIKE), "sold the brompton, i'm on a cheap gravel bike now", 4),
    ("en", (EDITOR,), "i used to live in neovim but i'm on vscode full time now, the vim extension is enough", 0),
    # one detail fixed
    ("en", (CAR, KIDS), "two girls yes but it's ivy and juno, not june", 1),
    ("en", (TRAINING, GYM, ROUTINE), "its the berlin half, not the full marathon lol i'm not insane", 0),
    ("en", (DIET, ROUTINE), "more like 5.30 than 6, i have to be out the door by quarter past", 1),
    # belongs to someone else
    ("en", (LANG, SISTER, ALLERGY), "the sesame thing is carys not me, i can eat anything", 2),
    ("en", (CAT, HOME), "pickle is my neighbour's cat, she just lets herself in a lot 😂", 0),
    ("en", (WEDDING, GYM, MUM, BIRTHDAY), "cork is my gran, mum's been in limerick for years", 2),
    # life events ending the memory
    ("en", (TEAM, PARTNER, BIRTHDAY), "tomasz and i broke up in june, it's fine, it's been a while", 1),
    ("en", (HOME, KIDS, WEDDING), "the wedding's off. we called it in march", 2),
    ("en", (COFFEE, BANK, CARRIER, SHIFT), "they put me on days permanently, no more weekend nights thank god", 3),
    # very short
    ("en", (GAME, COFFEE), "soy now", 1),
    ("en", (BAND, AGE), "36 lol", 1),
    # name / date
    ("en", (NAME, MUM), "it's sami, nobody calls me sam", 0),
    ("en", (AGE, BIRTHDAY, MUM), "my birthday's the 4th of march, not the 14th", 1),

    # 反驳开头
    ("zh", (ZH_CAT, ZH_DRINK, ZH_HOME), "不对，我去年就从园区搬到姑苏区了", 2),
    ("zh", (ZH_GAME, ZH_JOB), "哪有 我早就不画原画了，现在转UI了", 1),
    ("zh", (ZH_DIET, ZH_MOM, ZH_BANK), "你记错了吧，我不吃的是羊肉，牛肉我可太爱了🐮", 0),
    ("zh", (ZH_BIRTHDAY,), "错啦 是八月初八 不是初三", 0),
    ("zh", (ZH_PHONE, ZH_CAR, ZH_TEAM), "谁说我支持湖人的？？我勇士死忠好吧", 2),
    ("zh", (ZH_ROUTINE, ZH_CARRIER), "没有啊 我号早就携号转网到联通了", 1),
    # 请求里带新值
    ("zh", (ZH_SINGER, ZH_DOG, ZH_PLANT, ZH_EMPLOYER), "帮我写个自我介绍，发新公司群里的，我上周刚入职字节", 3),
    ("zh", (ZH_HOME, ZH_CAR), "帮我查下理想L6的保养周期，秦PLUS上个月已经出掉了", 1),
    ("zh", (ZH_INSTRUMENT, ZH_LANG), "推荐几个学韩语的app呗，日语学不下去放弃了😂", 1),
    ("zh", (ZH_MED, ZH_GLASSES), "医生让我把优甲乐换成雷替斯了，这俩到底有啥区别啊", 0),
    # 直接说新值
    ("zh", (ZH_PARTNER, ZH_DOG), "我家狗是只边牧，叫糯米，三岁了", 1),
    ("zh", (ZH_EXAM, ZH_SCHOOL, ZH_PLANT), "我在武大读研呢 研二了", 1),
    ("zh", (ZH_DRINK, ZH_GYM, ZH_COMMUTE), "我现在每天骑小电驴上班 二十分钟就到", 2),
    ("zh", (ZH_RENT, ZH_PLANT), "现在一个人住一室户，终于不用抢卫生间了yyds", 0),
    # 旧值对新值
    ("zh", (ZH_PHONE, ZH_LAPTOP), "华为那台给我爸用了，我现在拿的是小米14", 0),
    ("zh", (ZH_HOBBY, ZH_ROUTINE, ZH_GYM), "超猩的卡退了，现在在乐刻练", 2),
    ("zh", (ZH_FOOD, ZH_STREAMING, ZH_AGE, ZH_DRINK), "瑞幸喝腻了，现在天天库迪", 3),
    # 改一个细节
    ("zh", (ZH_MOM, ZH_KID), "是三年级了，今年九月刚升上去", 1),
    ("zh", (ZH_BIRTHDAY, ZH_GLASSES), "近视没那么高啦 左眼450右眼500", 1),
    ("zh", (ZH_HOMETOWN, ZH_BROTHER), "我弟是在深圳没错，但人家已经毕业上班了", 1),
    # 是别人的
    ("zh", (ZH_ALLERGY, ZH_DIET), "对芒果过敏的是我老公，不是我哈", 0),
    ("zh", (ZH_EXAM, ZH_LANG), "考公的是我室友，我是在准备考研", 0),
    ("zh", (ZH_MOM, ZH_SHIFT, ZH_NAME, ZH_BANK, ZH_HOMETOWN), "岳阳是我外婆家，我老家其实是常德的", 4),
    # 生活变故
    ("zh", (ZH_CAT, ZH_PARTNER), "和阿杰分了，上个月的事", 1),
    ("zh", (ZH_CAT, ZH_RENT, ZH_FOOD), "土豆今年夏天走了，13岁，也算寿终正寝吧😢", 0),
    ("zh", (ZH_SHIFT, ZH_ROUTINE), "已经调去门诊了，终于不用熬夜班了🙏", 0),
    # 很短的回复
    ("zh", (ZH_NAME, ZH_AGE), "29了", 1),
    ("zh", (ZH_STREAMING, ZH_GAME), "大会员没续哈", 0),
    # 名字 / 日期
    ("zh", (ZH_AGE, ZH_NAME), "是Vivien，e结尾的，老被写错", 1),
    ("zh", (ZH_BROTHER, ZH_PARTNER, ZH_WEDDING), "婚期提前到今年国庆了", 2),
]

_LOOK_ALIKES = [
    # (lang, (shown memory texts), turn text)
    ("en", (HOME, JOB), "my flatmate's moving to aberdeen next month, gutted tbh"),
    ("en", (PARTNER, KIDS), "my sister just broke up with her boyfriend, what do i even say to her"),
    ("en", (EMPLOYER,), "a mate left ocado for deliveroo and says the culture's way better, thoughts?"),
    ("en", (CAR, COMMUTE), "thinking about swapping the jazz for an ev next year, is that dumb"),
    ("en", (RENT, HOME), "honestly i wish i lived somewhere warmer than dundee ☀️"),
    ("en", (DIET, ALLERGY), "if i went fully vegan would i struggle to get enough b12?"),
    ("en", (LANG,), "is european portuguese actually that different from brazilian or is that a myth"),
    ("en", (MED, DIET), "can you drink on sertraline or is that a bad idea"),
    ("en", (TRAINING, ROUTINE), "no that's wrong, berlin is in september not october"),
    ("en", (PHONE, LAPTOP), "wrong, the pixel 7 doesnt have a headphone jack, you're thinking of the 3a"),
    ("en", (TEAM,), "no, hibs won the cup in 2016 not 2017, come on"),
    ("en", (COFFEE, ROUTINE), "no coffee for me this week, doing a caffeine reset before my bloods"),
    ("en", (BIKE, COMMUTE), "bike's in the shop so im getting the bus till friday 🙄"),
    ("en", (CAT, HOME), "yep still just pickle and me holding the fort"),
    ("en", (BANK, CARRIER), "right, monzo's still my main account, i just keep a nationwide one for savings"),
    ("en", (CAT, PARTNER), "we got a second cat!! tiny tabby called beans, pickle is NOT impressed"),
    ("en", (INSTRUMENT, HOBBY), "picked up the ukulele as well, the cello is a bit much to lug to the beach lol"),
    ("en", (PARTNER, WEDDING), "can you write a message to tomasz's mum saying we've moved the engagement drinks to saturday"),
    ("en", (JOB, SHIFT), "write a leaving card for my colleague who's quitting dentistry to go teach"),
    ("en", (PARTNER, CAT), "write me a short story where a woman leaves her partner and moves to lisbon with her cat"),
    ("en", (ALLERGY, DIET), "pretend ur a waiter and i've got a peanut allergy, i want to practise asking about ingredients"),
    ("en", (CARRIER, PHONE), "three's signal in my flat is absolute garbage again 😤"),
    ("en", (GYM, ROUTINE), "puregym leith is rammed every morning now, its unbearable"),
    ("en", (EMPLOYER, HOME), "did you see ocado's announcing more job cuts? kinda nervous ngl"),
    ("en", (BAND,), "wet leg just announced a new album!!!"),
    ("en", (HOME, SCHOOL), "when i was at uni in leeds i lived above a chippy, the smell never left my coats"),
    ("en", (DIET, PARTNER), "i was veggie for like two years as a teenager and then bacon happened"),
    ("en", (RENT, PLANT), "we moved the sofa to the other wall and the living room feels twice as big"),
    ("en", (EDITOR, LAPTOP), "switched my neovim colorscheme to catppuccin, looks so clean now"),
    ("en", (GAME, ROUTINE), "had to quit stardew at 2am cos i kept saying one more day 😭"),

    ("zh", (ZH_HOME, ZH_JOB), "我闺蜜下个月要搬去杭州了 好舍不得"),
    ("zh", (ZH_PARTNER,), "同事跟她男朋友分手了，今天在工位哭了一下午"),
    ("zh", (ZH_EMPLOYER,), "听说好多美团的人跳去京东了，真的假的"),
    ("zh", (ZH_CAR, ZH_COMMUTE), "想把秦PLUS换成SU7，家里人不同意😂"),
    ("zh", (ZH_HOME,), "好想搬去大理住啊 天天晒太阳"),
    ("zh", (ZH_JOB, ZH_SCHOOL), "如果我不做原画转行做策划，现在还来得及吗"),
    ("zh", (ZH_LANG,), "日语的て形到底咋变啊 背了又忘"),
    ("zh", (ZH_MED, ZH_DRINK), "吃完优甲乐多久能喝咖啡？"),
    ("zh", (ZH_TEAM,), "不对吧，湖人上次夺冠是2020年，不是2019"),
    ("zh", (ZH_PHONE,), "你说错了，Mate 60用的不是骁龙，是麒麟9000S"),
    ("zh", (ZH_SCHOOL,), "哪有，华科不在武昌区，在洪山区啊"),
    ("zh", (ZH_DRINK, ZH_ROUTINE), "这周先不喝咖啡了，胃不舒服养几天"),
    ("zh", (ZH_ROUTINE, ZH_GAME), "今晚估计得熬到两点，明天要交稿，救命"),
    ("zh", (ZH_CAT, ZH_HOME), "对，还是就土豆一只，一只就够我受的了"),
    ("zh", (ZH_BANK,), "嗯 工资还是发招行卡上，没变"),
    ("zh", (ZH_DOG,), "又领养了一只小土狗，可乐终于有伴了🐶"),
    ("zh", (ZH_INSTRUMENT, ZH_HOBBY), "除了尤克里里最近还在学吉他，手指头疼死了"),
    ("zh", (ZH_PARTNER, ZH_WEDDING), "帮我给阿杰妈妈发个消息，说订婚宴改到周六中午了"),
    ("zh", (ZH_EMPLOYER,), "帮我写段给离职同事的祝福，他要离开美团去读博了"),
    ("zh", (ZH_CAT, ZH_HOME), "写个小故事：一只橘猫离家出走，一路走到了上海"),
    ("zh", (ZH_ALLERGY,), "你扮演奶茶店店员，我练习一下怎么问饮品里有没有芒果"),
    ("zh", (ZH_CARRIER,), "移动信号在我家地下车库一格都没有，气死"),
    ("zh", (ZH_GYM,), "超猩的课越来越难抢了，每次一放出来就满"),
    ("zh", (ZH_SINGER,), "周深要来苏州开演唱会了！！求抢票攻略"),
    ("zh", (ZH_CAR,), "比亚迪又降价了，感觉去年买亏了好多"),
    ("zh", (ZH_JOB,), "刚毕业那会儿我在广告公司做过一年美工，天天改图改到想吐"),
    ("zh", (ZH_DIET,), "小时候我一顿能干一大碗牛肉面，现在想想都不可思议"),
    ("zh", (ZH_RENT, ZH_HOME), "今天把书桌搬到窗户边了，心情都变好了"),
    ("zh", (ZH_PHONE, ZH_CARRIER), "把输入法换成微信键盘了，好用多了"),
    ("zh", (ZH_DRINK, ZH_FOOD), "我在戒的是奶茶不是咖啡哈，瑞幸照喝"),
]

_ORDINARY = [
    # (lang, (shown memory texts), turn text)
    ("en", (HOME,), "any good brunch spots in dundee that aren't always heaving?"),
    ("en", (DOG, ROUTINE), "how long should i walk a greyhound when it's hot out"),
    ("en", (ALLERGY, DIET), "give me a quick pescatarian dinner thats sesame free"),
    ("en", (JOB,), "how do i explain to a nervous patient why their gums bleed when i scale"),
    ("en", (LANG,), "when do you use 'ser' vs 'estar' in portuguese again"),
    ("en", (CAR,), "the jazz squeaks when i brake, what could that be"),
    ("en", (PARTNER, BIRTHDAY), "tomasz's birthday is next week, gift ideas under £50?"),
    ("en", (TRAINING, ROUTINE), "what should i eat the night before a 30k long run"),
    ("en", (LAPTOP,), "how do i turn off the trackpoint on the thinkpad, keep bumping it"),
    ("en", (TEAM,), "who are hibs playing this weekend"),
    ("en", (KIDS,), "ivy wants a science themed party for her 7th, ideas pls"),
    ("en", (MED,), "is morning or evening better for taking sertraline"),
    ("en", (COFFEE,), "why does oat milk split in my coffee sometimes"),
    ("en", (SCHOOL,), "help me structure a reflective essay for my placement module"),
    ("en", (BANK, RENT), "how do i set up a shared pot in monzo for bills with the flatmates"),
    ("en", (INSTRUMENT,), "my cello's c string keeps going flat, is it the peg?"),
    ("en", (GAME,), "best crops for summer year 1 in stardew"),
    ("en", (CAT,), "pickle keeps shredding the arm of the sofa, how do i stop her"),
    ("en", (EDITOR,), "least painful way to set up python lsp in neovim these days?"),
    ("en", (BAND, HOBBY), "make me a bouldering playlist that kicks off with wet leg"),
    ("en", (BIKE,), "how often should i oil a brompton chain"),
    ("en", (GYM,), "give me a 45 min push day with the kit at puregym"),
    ("en", (WEDDING,), "what should be on my wedding checklist 4 months out"),
    ("en", (MUM,), "cheapest way to get from edinburgh to cork in december?"),
    ("en", (SHIFT, ROUTINE), "how do i actually sleep after a saturday night shift"),

    ("zh", (ZH_HOME,), "金鸡湖附近有啥好吃的苏帮菜推荐"),
    ("zh", (ZH_CAT,), "橘猫一天喂多少猫粮合适，土豆好像又胖了"),
    ("zh", (ZH_DOG,), "柯基掉毛太夸张了，有啥好用的除毛神器"),
    ("zh", (ZH_ALLERGY, ZH_DIET), "芒果过敏的人吃腰果会不会也有反应"),
    ("zh", (ZH_MED,), "优甲乐必须空腹吃吗，早饭要隔多久"),
    ("zh", (ZH_PHONE,), "Mate 60怎么关掉负一屏啊"),
    ("zh", (ZH_LAPTOP,), "MacBook Air M2能外接两个显示器吗"),
    ("zh", (ZH_CAR,), "秦PLUS冬天续航掉得厉害，有啥办法"),
    ("zh", (ZH_TEAM,), "湖人今天几点打，在哪能看直播"),
    ("zh", (ZH_SCHOOL,), "研究生开题报告的文献综述怎么写比较好"),
    ("zh", (ZH_BANK,), "招行的朝朝宝和活期到底有啥区别"),
    ("zh", (ZH_LANG,), "N3到N2词汇量大概要多背多少"),
    ("zh", (ZH_GYM,), "上完超猩的燃脂课晚上吃点啥比较好"),
    ("zh", (ZH_DRINK,), "生椰拿铁热量高吗 一天一杯会胖不"),
    ("zh", (ZH_INSTRUMENT,), "尤克里里入门先练哪几个和弦"),
    ("zh", (ZH_SINGER,), "推荐几首周深不那么火但很好听的歌"),
    ("zh", (ZH_COMMUTE,), "2号线早高峰哪节车厢人少点"),
    ("zh", (ZH_GAME,), "原神新版本深渊配队求推荐"),
    ("zh", (ZH_KID,), "二年级数学应用题孩子老读不懂题，咋办"),
    ("zh", (ZH_WEDDING, ZH_PARTNER), "五一办婚礼的话，酒店现在订会不会太晚了"),
    ("zh", (ZH_BIRTHDAY,), "农历八月初三今年是公历几号"),
    ("zh", (ZH_ROUTINE,), "每天十一点睡还总觉得困，是不是睡眠质量不行"),
    ("zh", (ZH_FOOD,), "在家煮螺蛳粉怎么才能不让整栋楼都闻到😂"),
    ("zh", (ZH_EXAM,), "行测资料分析有啥速算技巧"),
    ("zh", (ZH_SHIFT,), "下了夜班白天怎么补觉才能睡踏实"),
]


def _cases(rows: list[tuple], correcting: bool) -> list[Case]:
    return held_out_cases(rows, correcting, FRESH12)


CORRECTIONS = _cases(_CORRECTIONS, True)
LOOK_ALIKES = _cases(_LOOK_ALIKES, False)
ORDINARY = _cases(_ORDINARY, False)
