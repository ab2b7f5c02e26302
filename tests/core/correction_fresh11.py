"""A twelfth held-out corpus for correcting a memory in the conversation, written blind in one
sitting and committed before anything ran on it; every case is held out.

CORRECTIONS (30 English, 30 Chinese) replace one shown item: the new value dropped inside a request
(help me write / plan / compare), pushback with a different opener each time, a new value stated
with no correction word, old-versus-new ("used to ..., now ..."), the value belonging to someone
else (husband, sister, flatmate, cousin), a life event that ends the item (a pet died, a wedding
called off, a break-up), a partial correction of one detail (the day, the year, the city), and very
short replies. Slots range over blood type, shoe size, favourite author, therapist, commute line,
gym chain, coffee order, pronouns, visa status, car insurer, broadband, night class, birthday, age,
shift pattern, phone, car, sibling, parents' city, language learnt, exam, and more.

LOOK_ALIKES (30/30) reuse the same words and shapes but correct nothing: someone else's news, plans,
wishes and hypotheticals, questions, pushback on the assistant's answer or a fact about the world,
a passing moment (today only), restatements, additions (a second cat, another pill), texts written
for other people, fiction and role-play, complaints about the thing the memory names, news about
that thing, past stories, and plain verbs (moved, switched) in their ordinary senses.

ORDINARY (25/25) are plain requests and chat about a shown item's topic.
"""

from __future__ import annotations

from correction_phrasings import Case, held_out_cases

FRESH11 = "fresh11"

# English memory texts
CITY = "Lives in Leeds"
JOB = "Works as a dental hygienist"
DOG = "Has a beagle named Biscuit"
CAT = "Has a cat called Mochi"
BLOOD = "Blood type is O negative"
SHOES = "Wears a size 9 shoe"
AUTHOR = "Favourite author is Ursula K. Le Guin"
LANDLORD = "Landlord is a man named Gary"
THERAPIST = "Sees a therapist named Dr. Okafor"
COMMUTE = "Commutes on the Northern line"
GYM = "Member of PureGym"
COFFEE = "Orders an oat flat white"
PRONOUNS = "Uses she/her pronouns"
VISA = "On an H-1B visa"
SLEEP = "Goes to bed around 1am"
INSURER = "Car is insured with Geico"
DIET = "Trying to cut sugar"
BAND = "Big fan of Wet Leg"
NIGHTCLASS = "Takes a pottery night class on Tuesdays"
MED = "Takes levothyroxine"
PARTNER = "Partner is called Rosa"
CAR = "Drives a 2014 Honda Civic"
LANG = "Learning Portuguese"
ALLERGY = "Allergic to shellfish"
SIBLING = "Has an older brother, Tom"
PHONE = "Uses an iPhone 12"
KID = "Daughter Maya is in year 3"
HOBBY = "Plays bass in a covers band"
BANK = "Banks with Monzo"
TEAM = "Supports Everton"
VEG = "Vegetarian"
RUN = "Training for a half marathon in October"
AGE = "Is 34"
BIRTHDAY = "Birthday is 12 March"
EDITOR = "Writes code in VS Code"
STUDY = "Studying for the CPA exam"
DOCTOR = "GP is Dr. Hale"
PLANT = "Keeps a fiddle-leaf fig"
GAME = "Plays Final Fantasy XIV"
RENT = "Pays £950 a month in rent"
MOTHER = "Mum lives in Cork"
SCHOOL = "Son goes to Hillcrest Primary"
NIGHTS = "Works night shifts"
TEA = "Drinks green tea in the afternoon"
BROADBAND = "Broadband is with Virgin Media"
WEDDING = "Getting married in June"

# Chinese memory texts
ZH_CITY = "住在成都高新区"
ZH_JOB = "在字节做产品经理"
ZH_DOG = "养了一只柯基叫豆豆"
ZH_CAT = "养了一只橘猫叫胖虎"
ZH_BLOOD = "血型是A型"
ZH_SHOES = "穿38码的鞋"
ZH_AUTHOR = "最喜欢的作家是余华"
ZH_LANDLORD = "房东是王阿姨"
ZH_THERAPIST = "心理咨询师是陈老师"
ZH_COMMUTE = "坐地铁2号线上班"
ZH_GYM = "在乐刻健身"
ZH_COFFEE = "咖啡只喝冰美式"
ZH_VISA = "在日本读研，拿的是留学签证"
ZH_SLEEP = "一般凌晨一点才睡"
ZH_INSURER = "车险买的平安"
ZH_DIET = "在减脂，晚饭不吃主食"
ZH_BAND = "喜欢五月天"
ZH_NIGHT = "周四晚上上日语夜校"
ZH_MED = "每天吃降压药"
ZH_BF = "男朋友叫阿杰"
ZH_CAR = "开一辆白色比亚迪秦"
ZH_ALLERGY = "对芒果过敏"
ZH_SISTER = "有个妹妹在武汉读大学"
ZH_KID = "女儿叫朵朵，上小学二年级"
ZH_BADMINTON = "每周日打羽毛球"
ZH_BANK = "工资卡是招商银行"
ZH_VEG = "吃素"
ZH_EXAM = "在准备考研"
ZH_AGE = "今年28岁"
ZH_BDAY = "生日是十月三号"
ZH_PLANT = "阳台养了一盆龟背竹"
ZH_GAME = "在玩原神"
ZH_RENT = "房租每月三千二"
ZH_PARENTS = "爸妈住在洛阳老家"
ZH_BROADBAND = "宽带用的电信"
ZH_WEDDING = "明年五月结婚"
ZH_GUITAR = "在学吉他"
ZH_NIGHTSHIFT = "在医院上夜班"
ZH_PHONE = "用的华为Mate 40"

_CORRECTIONS = [
    # English: the change inside a request
    ("en", (CITY, DOG, COFFEE),
     "can you help me write a message to my new neighbours in sheffield? we just moved in last week and i want to say hi + apologise for the van blocking the road",
     0),
    ("en", (BAND, JOB),
     "i need a cover letter for a practice manager role. for context i left hygiene work two years ago and i've been running the front desk at a vet clinic since",
     1),
    ("en", (SLEEP, INSURER, DIET, MED),
     "can you compare car insurance quotes for me? i'm with admiral now, switched from geico in the spring, and renewal is coming up",
     1),
    ("en", (PARTNER, AUTHOR, NIGHTCLASS, BANK),
     "what should i sign up for next term? i dropped pottery and do life drawing on tuesdays now, but i want something for weekends too",
     2),
    ("en", (VEG, TEAM, PHONE, COMMUTE),
     "make me a playlist for my commute pls, it's about 40 min on the elizabeth line every morning since the office moved",
     3),
    # English: pushback, each opener once
    ("en", (BLOOD, SHOES),
     "where did you get o negative from?? i'm b positive, it's literally on my donor card",
     0),
    ("en", (ALLERGY, CAT, SIBLING),
     "lol no, tom's my cousin. i don't have any brothers, just two sisters",
     2),
    ("en", (RENT, GAME, TEA, PRONOUNS),
     "hold on, i use they/them, not she/her. please fix that",
     3),
    ("en", (AGE, KID),
     "that's out of date — maya finished year 3 ages ago, she's in year 6 now",
     1),
    ("en", (EDITOR, STUDY, MOTHER),
     "nah mate, mum moved back to galway after she retired",
     2),
    ("en", (DOCTOR, PLANT, THERAPIST, WEDDING),
     "um, who's dr. okafor? my therapist is called jen lindqvist",
     2),
    # English: new values with no correction word
    ("en", (CAR, HOBBY),
     "driving a tesla model 3 these days, what's the best way to plan charging stops for a trip down to cornwall?",
     0),
    ("en", (HOBBY, PHONE),
     "got a pixel 8 now. how do i move my whatsapp chats over from the old phone",
     1),
    ("en", (LANG, SCHOOL, BIRTHDAY),
     "it's the 21st, not the 12th 🎂",
     2),
    ("en", (SLEEP, RUN, DOG, VISA),
     "i'm a green card holder now so i can finally change jobs without needing sponsorship 🎉 what paperwork should i update first",
     3),
    ("en", (NIGHTS, CAT),
     "on days now, 7 to 3. any tips for resetting my body clock",
     0),
    # English: old versus new
    ("en", (TEAM, LANG),
     "i used to learn portuguese but i've switched to italian. can you give me a 10 min daily routine",
     1),
    ("en", (GYM, COFFEE, PARTNER),
     "i was a puregym member until january, it's the gym group now. are their classes any good?",
     0),
    ("en", (RENT, AUTHOR, BAND, SLEEP),
     "le guin was my favourite for years but honestly it's octavia butler now. recommend me something like kindred",
     1),
    ("en", (MED, HOBBY, BROADBAND, DOCTOR),
     "we left virgin media for bt in the summer and now the wifi drops every evening, help",
     2),
    # English: the value belongs to someone else
    ("en", (ALLERGY, EDITOR),
     "the shellfish allergy is my husband's, not mine! i eat prawns all the time",
     0),
    ("en", (CITY, MOTHER, SCHOOL, DOG),
     "biscuit is my sister's beagle, i just walk him sometimes. i don't have a dog myself",
     3),
    ("en", (WEDDING, TEA, STUDY),
     "the cpa thing is my flatmate, i'm not studying for anything rn",
     2),
    # English: a life event ends the item
    ("en", (JOB, CAT),
     "mochi died last month. i'm still finding her fur on every jumper i own",
     1),
    ("en", (SHOES, WEDDING, EDITOR, PLANT),
     "we called the wedding off in february. can you help me word a note to the guests who'd already booked hotels",
     1),
    ("en", (SLEEP, RENT, TEA, PARTNER),
     "rosa and i broke up last month. can you help me plan a weekend away on my own so i'm not just moping",
     3),
    # English: partial correction of one detail
    ("en", (NIGHTCLASS, COFFEE),
     "it's still pottery but it moved to thursdays",
     0),
    ("en", (GAME, DIET, RUN),
     "the half marathon is in november, not october, they pushed the date back",
     2),
    ("en", (SIBLING, KID, HOBBY, CAR),
     "still the civic, but it's a 2017 not a 2014",
     3),
    # English: very short
    ("en", (TEAM,),
     "liverpool fan actually 😅",
     0),
    # Chinese: the change inside a request
    ("zh", (ZH_CITY, ZH_GUITAR, ZH_COFFEE),
     "帮我写个朋友圈文案吧，刚搬到重庆渝北，新家阳台能看到江🥹",
     0),
    ("zh", (ZH_BADMINTON, ZH_JOB),
     "帮我改下简历，我从字节出来了，现在在美团做运营，想投腾讯",
     1),
    ("zh", (ZH_SLEEP, ZH_INSURER, ZH_MED),
     "帮我看看车险哪家理赔快，我去年就从平安换到太平洋了，明年续保想再比比",
     1),
    ("zh", (ZH_BF, ZH_AUTHOR, ZH_NIGHT, ZH_BANK),
     "日语夜校我不上了，改学韩语，帮我找点零基础的入门资料",
     2),
    ("zh", (ZH_VEG, ZH_BAND, ZH_PHONE, ZH_COMMUTE),
     "公司搬到望京了，我现在每天坐14号线，帮我推荐点通勤听的播客",
     3),
    # Chinese: pushback, each opener once
    ("zh", (ZH_BLOOD, ZH_SHOES),
     "你从哪看到我是A型的？我是O型血啊",
     0),
    ("zh", (ZH_ALLERGY, ZH_CAT, ZH_SISTER),
     "哈？我没有妹妹啊，我是独生女",
     2),
    ("zh", (ZH_RENT, ZH_GAME, ZH_BROADBAND, ZH_AGE),
     "等下，我哪有28，我都31了😭",
     3),
    ("zh", (ZH_BDAY, ZH_KID),
     "这个早就过时了，朵朵都上四年级了",
     1),
    ("zh", (ZH_EXAM, ZH_PLANT, ZH_PARENTS),
     "搞错啦，爸妈前年就搬来郑州跟我一起住了",
     2),
    ("zh", (ZH_DIET, ZH_GYM, ZH_THERAPIST, ZH_WEDDING),
     "陈老师是谁？我的咨询师姓李啊",
     2),
    # Chinese: new values with no correction word
    ("zh", (ZH_CAR, ZH_GUITAR),
     "最近开的是理想L6，想自驾去川西，帮我规划下沿路哪里能充电",
     0),
    ("zh", (ZH_BADMINTON, ZH_PHONE),
     "现在用的iPhone 15，怎么把华为里的照片都导过来",
     1),
    ("zh", (ZH_BAND, ZH_EXAM, ZH_BDAY),
     "我生日是十月十三，帮我想想那天约朋友去哪玩",
     2),
    ("zh", (ZH_BANK, ZH_GUITAR, ZH_DOG, ZH_VISA),
     "拿到永住了🎉 终于不用每年跑入管局续签了，接下来还要办哪些手续",
     3),
    ("zh", (ZH_NIGHTSHIFT, ZH_CAT),
     "调白班了😮‍💨 生物钟怎么调回来",
     0),
    # Chinese: old versus new
    ("zh", (ZH_BAND, ZH_GUITAR),
     "以前学吉他，现在改学尤克里里了，帮我找几首简单的弹唱",
     1),
    ("zh", (ZH_GYM, ZH_COFFEE, ZH_BF),
     "之前在乐刻，现在办了超级猩猩的卡，团课一般怎么约",
     0),
    ("zh", (ZH_RENT, ZH_AUTHOR, ZH_BAND, ZH_SLEEP),
     "以前最爱余华，现在最喜欢的是刘慈欣了，推荐几本跟三体差不多的",
     1),
    ("zh", (ZH_MED, ZH_BADMINTON, ZH_BROADBAND, ZH_BANK),
     "宽带原来是电信，今年换成移动了，结果晚上老掉线怎么办",
     2),
    # Chinese: the value belongs to someone else
    ("zh", (ZH_ALLERGY, ZH_GAME),
     "对芒果过敏的是我老公，不是我，我芒果随便吃",
     0),
    ("zh", (ZH_CITY, ZH_PARENTS, ZH_KID, ZH_DOG),
     "豆豆是我表姐家的柯基，我只是帮她遛过几次，我自己没养狗",
     3),
    ("zh", (ZH_WEDDING, ZH_COFFEE, ZH_EXAM),
     "考研的是我室友，我早就工作了",
     2),
    # Chinese: a life event ends the item
    ("zh", (ZH_JOB, ZH_CAT),
     "胖虎上个月走了，家里一下子好安静",
     1),
    ("zh", (ZH_SHOES, ZH_WEDDING, ZH_GAME, ZH_PLANT),
     "婚不结了，我们分了。帮我想想怎么跟亲戚们说",
     1),
    ("zh", (ZH_SLEEP, ZH_RENT, ZH_COFFEE, ZH_BF),
     "跟阿杰分手了，帮我写条朋友圈，别太丧",
     3),
    # Chinese: partial correction of one detail
    ("zh", (ZH_NIGHT, ZH_COFFEE),
     "还是日语夜校，不过改到周三晚上了",
     0),
    ("zh", (ZH_GAME, ZH_DIET, ZH_SISTER),
     "妹妹还在读大学，不过是在长沙，不是武汉",
     2),
    ("zh", (ZH_AGE, ZH_KID, ZH_GUITAR, ZH_CAR),
     "还是那辆秦，不过是黑色的",
     3),
    # Chinese: very short
    ("zh", (ZH_COFFEE,),
     "现在喝热拿铁了",
     0),
]

_LOOK_ALIKES = [
    # English: someone else's news
    ("en", (CITY, JOB),
     "my best mate just moved to sheffield, what's a good housewarming gift under £30?"),
    ("en", (PARTNER, WEDDING, TEA),
     "my sister called off her wedding yesterday and i honestly don't know what to say to her"),
    ("en", (CAT, DOG),
     "my neighbour's cat died and her kids are gutted, how do i explain pet loss to a 6 year old"),
    # English: plans, wishes, hypotheticals
    ("en", (COMMUTE, GYM),
     "if the office ever moves to canary wharf i'd switch to the elizabeth line, would that be quicker from camden?"),
    ("en", (CAR,),
     "thinking about maybe trading the civic in for an ev next year. pros and cons?"),
    ("en", (VISA, JOB, SLEEP),
     "what would happen to my h-1b if i got laid off? not happening yet, just want to know my options"),
    # English: questions
    ("en", (BLOOD, DOCTOR),
     "can someone who's o negative get blood from anyone or only from o neg donors?"),
    ("en", (PRONOUNS, PARTNER),
     "how do i politely correct a coworker who keeps getting my pronouns wrong?"),
    # English: pushback on the assistant's answer or a fact about the world
    ("en", (TEAM, AGE),
     "no that's wrong, everton didn't win the league in 1995, it was the fa cup"),
    ("en", (RENT, BANK),
     "that's not right, 950 times 12 is 11,400 not 11,800"),
    ("en", (AUTHOR, BAND, KID),
     "nope, le guin didn't write dune, that was frank herbert 🙄"),
    # English: a passing moment
    ("en", (COFFEE, SLEEP),
     "they were out of oat milk so it's a plain black americano this morning, not great"),
    ("en", (SLEEP, JOB),
     "up at 6 today for a flight, gonna be a zombie. what should i eat to stay awake"),
    # English: restatements
    ("en", (VEG, ALLERGY),
     "at my in-laws tonight and they made a veggie lasagne just for me, what wine goes with it?"),
    ("en", (THERAPIST, PLANT),
     "dr. okafor suggested i journal before bed, can you give me some prompts?"),
    ("en", (SHOES,),
     "still a 9 in most brands, but do nike run small? buying trainers online"),
    # English: additions
    ("en", (CAT, CITY, HOBBY),
     "we adopted a second cat, a grey kitten called pip. how do i introduce him to mochi?"),
    ("en", (MED, DIET),
     "my doctor added vitamin d on top of the levothyroxine, can i take them at the same time?"),
    # English: texts for others
    ("en", (JOB, CITY),
     "can you write a farewell card for a coworker who's quitting to move to glasgow? something warm but short"),
    ("en", (INSURER, CAR, PHONE),
     "help me write a text to my dad telling him to switch from geico to admiral, his premium's gone way up"),
    # English: fiction and role-play
    ("en", (PARTNER, DOG),
     "write a short story where a woman named rosa leaves her partner and takes the beagle with her"),
    ("en", (CITY, AGE),
     "let's role-play: you're a letting agent in sheffield and i'm a 22 year old student looking for a flat. go"),
    # English: complaints about the thing the memory names
    ("en", (COMMUTE, CITY, GAME, TEAM),
     "the northern line was rammed again this morning, had my face in someone's armpit for 20 minutes"),
    ("en", (BANK, PHONE),
     "monzo's app keeps logging me out, so annoying. is there a fix?"),
    ("en", (LANDLORD, RENT, TEA),
     "gary still hasn't fixed the boiler. how do i write a firm but polite message?"),
    # English: a thing's news
    ("en", (BAND, NIGHTCLASS),
     "wet leg just announced a new album!! help me plan a listening party"),
    ("en", (GAME, PHONE, DIET, KID),
     "ffxiv patch notes just dropped, what changed for dark knight?"),
    # English: past stories
    ("en", (CITY, JOB),
     "when i was a kid in dublin we'd go to the seaside every sunday, any beaches near leeds with the same vibe?"),
    # English: plain verbs in ordinary senses
    ("en", (DOG, RENT),
     "moved biscuit's crate into the bedroom and he's finally sleeping through the night"),
    ("en", (EDITOR, STUDY, MOTHER),
     "switched my vs code theme to solarized and now i can't read anything lol, how do i go back"),
    # Chinese: someone else's news
    ("zh", (ZH_CITY, ZH_JOB),
     "我闺蜜刚搬去重庆了，送什么乔迁礼物好？"),
    ("zh", (ZH_BF, ZH_WEDDING, ZH_COFFEE),
     "我表哥婚礼取消了，红包都准备好了，现在咋办😂"),
    ("zh", (ZH_CAT, ZH_DOG),
     "邻居家的猫走丢了，帮我写个寻猫启事"),
    # Chinese: plans, wishes, hypotheticals
    ("zh", (ZH_COMMUTE, ZH_GYM),
     "要是公司以后搬到望京，我是不是就得坐14号线了？会不会更挤"),
    ("zh", (ZH_CAR,),
     "明年想把秦换成电车，纯电好还是混动好？"),
    ("zh", (ZH_VISA, ZH_SLEEP, ZH_BAND),
     "毕业后如果想留在日本工作，留学签证要怎么转工作签？"),
    # Chinese: questions
    ("zh", (ZH_BLOOD, ZH_MED),
     "A型血的人能给O型的人输血吗？"),
    ("zh", (ZH_KID, ZH_BDAY),
     "朵朵的好朋友下学期要转学，她哭了一晚上，怎么安慰小孩比较好"),
    # Chinese: pushback on the assistant's answer or a fact about the world
    ("zh", (ZH_AUTHOR, ZH_BAND),
     "不对吧，《活着》不是莫言写的，是余华写的"),
    ("zh", (ZH_RENT, ZH_BANK),
     "你算错了，三千二乘十二是三万八千四，不是三万六"),
    ("zh", (ZH_BAND, ZH_AGE, ZH_PLANT),
     "不是啦，五月天是1997年成立的，你说的年份不对"),
    # Chinese: a passing moment
    ("zh", (ZH_COFFEE, ZH_SLEEP),
     "今天店里冰块用完了，只能喝热美式，有点不习惯"),
    ("zh", (ZH_DIET, ZH_BF),
     "今天阿杰生日，晚上破例吃了碗长寿面，明天再继续"),
    # Chinese: restatements
    ("zh", (ZH_VEG, ZH_ALLERGY),
     "婆婆今天专门给我包了素饺子，怎么夸她比较自然"),
    ("zh", (ZH_THERAPIST, ZH_PLANT),
     "陈老师让我每天写三件好事，你能给我举几个例子吗"),
    ("zh", (ZH_SHOES,),
     "还是穿38码，但是耐克的会不会偏小？网上买鞋好纠结"),
    # Chinese: additions
    ("zh", (ZH_CAT, ZH_CITY, ZH_EXAM),
     "又领养了一只小黑猫叫煤球，怎么让它和胖虎好好相处"),
    ("zh", (ZH_MED, ZH_DIET),
     "医生又给我加了一种降脂药，跟降压药能一起吃吗"),
    # Chinese: texts for others
    ("zh", (ZH_JOB, ZH_CITY),
     "帮我给离职的同事写张告别卡片，她要去杭州发展了"),
    ("zh", (ZH_INSURER, ZH_CAR, ZH_PHONE),
     "帮我给我爸发条微信，劝他车险别续平安了，换家便宜点的"),
    # Chinese: fiction and role-play
    ("zh", (ZH_BF, ZH_DOG),
     "写个小故事：一个叫阿杰的男生和女朋友分手后，一个人带着柯基去大理旅行"),
    ("zh", (ZH_CITY, ZH_AGE),
     "我们来角色扮演吧，你是重庆的房产中介，我是刚毕业22岁找房子的学生"),
    # Chinese: complaints about the thing the memory names
    ("zh", (ZH_COMMUTE, ZH_RENT, ZH_GAME, ZH_KID),
     "今天2号线又挤爆了，脸贴在别人背包上半小时，崩溃"),
    ("zh", (ZH_BANK, ZH_PHONE),
     "招行app又闪退了，烦死，有啥办法吗"),
    ("zh", (ZH_LANDLORD, ZH_RENT, ZH_SLEEP),
     "王阿姨热水器还没修，我该怎么跟她说才硬气又不撕破脸"),
    # Chinese: a thing's news
    ("zh", (ZH_BAND, ZH_NIGHT),
     "五月天要出新专辑了！！帮我策划个听歌派对"),
    ("zh", (ZH_GAME, ZH_PHONE, ZH_DIET, ZH_BADMINTON),
     "原神新版本出了，新角色值得抽吗"),
    # Chinese: past stories
    ("zh", (ZH_CITY, ZH_PARENTS),
     "小时候在洛阳，每年春天都去看牡丹，成都有类似的赏花地方吗"),
    # Chinese: plain verbs in ordinary senses
    ("zh", (ZH_DOG, ZH_RENT),
     "把豆豆的窝挪到卧室以后，它晚上终于不叫了"),
    ("zh", (ZH_PHONE, ZH_GUITAR, ZH_BDAY),
     "手机换了个主题，字变得好小，怎么调回去"),
]

_ORDINARY = [
    # English
    ("en", (DOG,), "what's a good chew toy for a beagle that destroys everything in 5 min"),
    ("en", (CITY, TEA), "any decent brunch spots in leeds that aren't always packed?"),
    ("en", (MED, SLEEP), "does it matter what time of day i take levothyroxine?"),
    ("en", (GYM, RUN, DIET), "give me a 3 day a week gym plan that won't wreck my legs for long runs"),
    ("en", (COFFEE,), "how do i get oat milk to foam properly at home, mine always goes flat"),
    ("en", (KID, SCHOOL), "maya has a spelling test friday, can you make a fun quiz with year 3 words"),
    ("en", (AUTHOR, BAND), "what's the best order to read the earthsea books?"),
    ("en", (VISA,), "how long does an h-1b extension usually take to process?"),
    ("en", (INSURER, CAR), "is it worth adding roadside assistance to my car policy?"),
    ("en", (PLANT, CAT), "my fiddle leaf fig keeps dropping leaves, too much water?"),
    ("en", (HOBBY, TEAM), "need bass tabs for mr brightside, gig is saturday"),
    ("en", (LANG,), "explain ser vs estar in portuguese please, i keep mixing them up"),
    ("en", (STUDY, TEA), "make me a 10 week cpa study schedule, i can do 2 hrs on weeknights"),
    ("en", (PRONOUNS, JOB), "how do i add my pronouns to my email signature in outlook?"),
    ("en", (THERAPIST,), "what should i bring up in my first therapy session after a break? feeling nervous"),
    ("en", (RENT, LANDLORD), "is a 5% rent increase normal in the uk right now?"),
    ("en", (WEDDING, PARTNER), "help me and rosa pick a first dance song, we're into indie stuff"),
    ("en", (EDITOR,), "which vs code extensions are essential for python?"),
    ("en", (ALLERGY, VEG), "what should i ask at a thai place to be sure there's no shrimp paste in my food?"),
    ("en", (BLOOD,), "how often am i allowed to donate blood?"),
    ("en", (GAME, SLEEP), "what's a good healer job for a new ffxiv player"),
    ("en", (NIGHTCLASS,), "my bowls keep collapsing on the wheel, any tips before next class"),
    ("en", (BANK, RENT), "how do monzo pots work for putting bill money aside"),
    ("en", (COMMUTE, BAND), "what podcasts are good for a 25 min tube ride"),
    ("en", (SHOES, RUN), "what running shoes are good for wide feet?"),
    # Chinese
    ("zh", (ZH_DOG,), "柯基掉毛太厉害了，有什么好用的梳子推荐"),
    ("zh", (ZH_CITY, ZH_COFFEE), "高新区周末有什么适合一个人逛的地方"),
    ("zh", (ZH_MED, ZH_SLEEP), "降压药早上吃还是晚上吃好？"),
    ("zh", (ZH_GYM, ZH_DIET), "帮我排个一周练三次的减脂计划，晚饭吃啥也列一下"),
    ("zh", (ZH_COFFEE,), "冰美式怎么在家做才不会发酸"),
    ("zh", (ZH_KID, ZH_BDAY), "朵朵二年级口算老是粗心，有什么小游戏能练练"),
    ("zh", (ZH_AUTHOR,), "余华的书先看哪本比较好？"),
    ("zh", (ZH_VISA,), "留学签证打工每周最多能打多少小时？"),
    ("zh", (ZH_INSURER, ZH_CAR), "车险里的三者险买多少额度合适？"),
    ("zh", (ZH_PLANT, ZH_CAT), "龟背竹叶子发黄了，是不是浇水太多"),
    ("zh", (ZH_GUITAR, ZH_BAND), "F和弦按不响怎么办，手指好疼"),
    ("zh", (ZH_NIGHT,), "日语的て形变化有什么好记的口诀吗"),
    ("zh", (ZH_EXAM, ZH_SLEEP), "帮我做个考研英语的复习计划，每天只有三小时"),
    ("zh", (ZH_THERAPIST,), "下次咨询我想聊聊工作焦虑，该怎么开口"),
    ("zh", (ZH_RENT, ZH_LANDLORD), "房子快到期了，想跟房东谈降租，有什么话术"),
    ("zh", (ZH_WEDDING, ZH_BF), "帮我们列个婚礼筹备时间表，还有一年左右"),
    ("zh", (ZH_PHONE,), "华为手机怎么设置应用双开"),
    ("zh", (ZH_ALLERGY, ZH_VEG), "芒果过敏的话，哪些水果也要小心？"),
    ("zh", (ZH_BLOOD,), "献血前一天要注意什么"),
    ("zh", (ZH_GAME, ZH_SLEEP), "原神新手先练哪个角色比较好"),
    ("zh", (ZH_BADMINTON,), "打羽毛球老是手腕疼，是不是握拍姿势不对"),
    ("zh", (ZH_BANK, ZH_RENT), "招行的朝朝宝和活期有啥区别"),
    ("zh", (ZH_COMMUTE, ZH_BAND), "推荐几个适合地铁上听的播客，半小时左右的"),
    ("zh", (ZH_SHOES, ZH_BADMINTON), "脚背高的人买什么运动鞋比较好"),
    ("zh", (ZH_BROADBAND,), "电信宽带晚上网速慢，路由器要怎么设置"),
]


def _cases(rows: list[tuple], correcting: bool) -> list[Case]:
    return held_out_cases(rows, correcting, FRESH11)


CORRECTIONS = _cases(_CORRECTIONS, True)
LOOK_ALIKES = _cases(_LOOK_ALIKES, False)
ORDINARY = _cases(_ORDINARY, False)
