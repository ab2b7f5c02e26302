"""An eleventh held-out corpus for correcting a memory in the conversation, written blind in one
sitting and committed before anything ran on it; every case is held out.

CORRECTIONS (30 English, 30 Chinese) cover pushback openers invented for this file (each used
once), new values said plainly with no correction word, old versus new, a value that belongs to
someone else (a brother, a roommate, a daughter, a grandmother), life events that end the item
(quitting smoking, selling a car, closing a shop, leaving a club), partial corrections of one
detail (a day, a breed, a date, a major), corrections inside a long rambling message or after a
request, and very short replies, typed as people type in chat apps. The slots span home,
employer, shift, commute, car, phone, pets, partner, children's ages and school years, parents,
siblings, diet, allergies, medication, drinks, smoking, sport and day, gym, instruments,
languages, degree, university, bank, carrier, team, age, birthday, housing, wake-up time,
religion, side job, club and eyesight.

LOOK_ALIKES (30/30) use the same words and shapes but correct nothing: someone else's news, plans,
wishes and hypotheticals, questions, pushback on the assistant's answer or on a fact about the
world, passing moments, restatements and confirmations, quotes and texts to write or translate,
complaints about the thing the memory names, a company's news, past stories, plain verbs in their
ordinary sense, and hyperbole.

ORDINARY (25/25) is plain chat about a shown item's topic.
"""

from __future__ import annotations

from correction_phrasings import Case, held_out_cases

FRESH10 = "fresh10"

# English memories
OAKLAND = "Lives in Oakland"
STRIPE = "Works at Stripe as a data analyst"
MOCHI = "Has a cat named Mochi"
PENICILLIN = "Allergic to penicillin"
NIGHT_SHIFT = "Works night shifts at the hospital"
CAR = "Drives a 2015 Honda Civic"
PHONE = "Uses a Pixel 7"
PARTNER = "Partner is named Jordan"
KIDS = "Son Leo is 6"
SCHOOL = "Daughter Maya is in 3rd grade"
PARENTS = "Parents live in Ohio"
SIBLING = "Has an older brother, Sam"
DIET = "Vegetarian"
HEALTH = "Has type 2 diabetes"
MED = "Takes lisinopril for blood pressure"
COFFEE = "Drinks oat milk lattes"
SMOKING = "Smokes about half a pack a day"
TENNIS = "Plays tennis on Saturdays"
GYM = "Member of Planet Fitness"
HOBBY = "Into bouldering"
GUITAR = "Plays bass guitar"
SPANISH = "Learning Spanish"
DEGREE = "Has a master's in economics"
UNI = "Studied at the University of Michigan"
BANK = "Banks with Chase"
CARRIER = "Phone carrier is T-Mobile"
TEAM = "Supports Arsenal"
AGE = "Is 34"
BDAY = "Birthday is March 12"
RENTS = "Rents a one-bedroom apartment"
WAKE = "Wakes up at 5:30"
RELIGION = "Catholic"
SIDE = "Sells ceramics on Etsy as a side job"
BOOKCLUB = "In a book club that meets monthly"
DOG = "Has a golden retriever named Biscuit"
CONTACTS = "Wears contact lenses"
RUNNING = "Training for a half marathon"
VOLUNTEER = "Volunteers at the food bank on Sundays"

# Chinese memories
CHENGDU = "住在成都高新区"
DUODUO = "女儿叫朵朵，4岁"
BADMINTON = "每周三晚上打羽毛球"
HUAWEI_JOB = "在华为做测试工程师"
SUBWAY = "坐地铁2号线通勤"
CAR_ZH = "开一辆比亚迪秦"
PHONE_ZH = "用的是iPhone 13"
CAT_ZH = "养了一只橘猫叫大黄"
HUSBAND = "老公叫王磊"
SON_ZH = "儿子上初二"
PARENTS_ZH = "爸妈住在洛阳老家"
SISTER_ZH = "有个妹妹在深圳读大学"
VEG_ZH = "吃素"
ALLERGY_ZH = "对芒果过敏"
MED_ZH = "每天吃优甲乐"
TEA_ZH = "每天喝两杯美式"
SMOKE_ZH = "抽烟"
GYM_ZH = "在乐刻健身办了年卡"
GUZHENG = "在学古筝"
JAPANESE = "在学日语"
DEGREE_ZH = "本科学的是会计"
UNI_ZH = "毕业于武汉大学"
BANK_ZH = "工资卡是招商银行的"
CARRIER_ZH = "手机号是移动的"
TEAM_ZH = "支持广州队"
AGE_ZH = "今年28岁"
BDAY_ZH = "生日是10月5号"
RENT_ZH = "和朋友合租"
WAKE_ZH = "每天六点起床"
RELIGION_ZH = "信佛"
SIDE_ZH = "周末在小红书接修图的单子"
SHIFT_ZH = "在医院上三班倒"
HOUSE_ZH = "房子在还房贷"
DOG_ZH = "养了一只柯基叫豆豆"
NEAR = "近视600度"
FISHING = "喜欢钓鱼"
CLUB_ZH = "参加了公司的摄影社"

_CORRECTIONS = [
    # (lang, shown, text, target)
    ("en", (OAKLAND, STRIPE), "lol where'd you get oakland from, i'm in sacramento", 0),
    ("en", (MOCHI, COFFEE, STRIPE), "fyi i left stripe in january, i'm at plaid now doing basically the same analyst stuff", 2),
    ("en", (CONTACTS, PENICILLIN), "nope, sulfa drugs are what i react to. penicillin's fine", 1),
    ("en", (DIET, TENNIS, BDAY), "tennis is sundays now, saturdays got eaten by my kid's soccer games", 1),
    ("en", (PARTNER, CAR, BDAY), "jordan's my brother 😂 my partner is alex", 0),
    ("en", (GYM, SMOKING), "quit smoking 3 months ago!! 🎉", 1),
    ("en", (PHONE, WAKE, BANK, CAR), "sold the civic last month, i just bike everywhere now", 3),
    ("en", (TEAM, DOG, AGE), "34?? i'm 29 lmao", 2),
    ("en", (RENTS, DOG, HOBBY), "biscuit's a lab not a golden", 1),
    (
        "en",
        (SPANISH, NIGHT_SHIFT, KIDS),
        "ok so i need help planning next week. monday dentist at 9, tuesday my sister's thing in the evening, "
        "wednesday i have to drop leo at practice, oh and btw i'm not on nights anymore, switched to days in march "
        "so early mornings are rough now, anyway can you make me a simple schedule",
        1,
    ),
    (
        "en",
        (GUITAR, MOCHI, WAKE, TEAM),
        "can you suggest a beginner walking bass line to practice? also small thing, i play upright bass now, "
        "not bass guitar, sold the electric last year",
        0,
    ),
    ("en", (AGE, HOBBY, SIBLING, BANK), "used to be with chase but moved everything to a credit union in 2022", 3),
    ("en", (SIBLING, CARRIER, GYM), "i'm on verizon", 1),
    ("en", (BDAY, SMOKING, OAKLAND, DEGREE), "bday's the 21st not the 12th", 0),
    ("en", (MOCHI, OAKLAND, RELIGION), "haven't been catholic in years tbh, i don't really practice anything now", 2),
    ("en", (SIDE, STRIPE, COFFEE), "the etsy shop's been closed since last summer, no time for potery", 0),
    ("en", (DIET, TENNIS, BOOKCLUB), "that's my roommate's book club, i've never been to one", 2),
    ("en", (CAR, WAKE, VOLUNTEER, SPANISH), "gave up on spanish, doing portuguese now 🇧🇷", 3),
    ("en", (BANK, KIDS, PARENTS, PHONE), "leo turned 7 in may", 1),
    ("en", (SCHOOL, GYM), "maya's in 4th now, school startd last week", 0),
    ("en", (WAKE, RELIGION, PARENTS), "my parents moved down to florida after dad retired", 2),
    ("en", (SIBLING, DOG), "wait sam's younger than me lol, he's 25", 0),
    ("en", (TEAM, MED, DIET, CAR), "i eat fish now so pescatarian i guess", 2),
    ("en", (MOCHI, PHONE, MED), "doc switched me off lisinopril onto amlodipine a few weeks ago", 2),
    ("en", (HOBBY, CARRIER, RUNNING, GYM), "cancelled planet fitness, i'm at the ymca now", 3),
    ("en", (UNI, DEGREE), "hmm not quite, my master's is in statistics", 1),
    ("en", (PARTNER, WAKE, SIDE, RENTS), "eh that's outdated, i'm in a 2br with my gf now", 3),
    ("en", (VOLUNTEER, CARRIER, TEAM), "nah i'm a spurs fan, arsenal's my dad's team 🙄", 2),
    ("en", (STRIPE, SIDE, BDAY, CONTACTS), "got lasik in october so no more contacts 🙌", 3),
    ("en", (PHONE, DIET, UNI), "{h0}? that's ancient, been on an iphone since 2023", 0),
    ("zh", (CHENGDU, HUAWEI_JOB), "啥呀，我早就不住高新区了，去年搬到天府新区了", 0),
    ("zh", (BADMINTON, DUODUO), "朵朵都5岁啦，上个月刚过完生日🎂", 1),
    ("zh", (TEA_ZH, CAT_ZH, BADMINTON), "羽毛球改周四了哈，周三老加班", 2),
    ("zh", (HUAWEI_JOB, SUBWAY, AGE_ZH, BDAY_ZH), "我去年就从华为跳槽了，现在在小米，还是做测试", 0),
    ("zh", (CAR_ZH, SUBWAY), "现在都开车上班了，不挤2号线了", 1),
    ("zh", (FISHING, RENT_ZH, CAR_ZH), "秦早卖了，换了辆model 3", 2),
    ("zh", (HUSBAND, PHONE_ZH, WAKE_ZH, CAT_ZH), "大黄是我室友的猫啦，我自己没养", 3),
    ("zh", (HUSBAND, SON_ZH), "王磊是我表哥啊😂 我老公叫陈涛", 0),
    ("zh", (BANK_ZH, SON_ZH, NEAR), "儿子今年上初三了", 1),
    ("zh", (SISTER_ZH, RELIGION_ZH, PARENTS_ZH), "爸妈去年搬来郑州跟我们一起住了，老家房子空着", 2),
    ("zh", (GYM_ZH, TEA_ZH, HUSBAND, SISTER_ZH), "我妹已经毕业了，现在在广州上班呢", 3),
    ("zh", (DOG_ZH, TEA_ZH, DEGREE_ZH, VEG_ZH), "我现在不吃素了，去年体检贫血，医生让多吃点肉", 3),
    ("zh", (ALLERGY_ZH,), "不是芒果，是菠萝过敏", 0),
    ("zh", (CLUB_ZH, MED_ZH), "优甲乐停了呀，医生说指标都正常了", 1),
    ("zh", (SHIFT_ZH, SMOKE_ZH, TEA_ZH), "美式戒了，胃受不了，现在就喝点绿茶", 2),
    ("zh", (BDAY_ZH, CHENGDU, HOUSE_ZH, SMOKE_ZH), "烟戒了快半年啦哈哈", 3),
    ("zh", (GYM_ZH, FISHING), "乐刻的卡到期没续，现在在家跟着b站练", 0),
    ("zh", (JAPANESE, GUZHENG), "古筝是我闺女在学，我哪有那耐心😂", 1),
    ("zh", (AGE_ZH, CARRIER_ZH, JAPANESE), "日语早放弃了，现在改学韩语了", 2),
    ("zh", (UNI_ZH, DEGREE_ZH), "我本科是财务管理，不是会计哈", 1),
    ("zh", (UNI_ZH, DOG_ZH, BANK_ZH), "哪来的武大，我是华科毕业的", 0),
    ("zh", (WAKE_ZH, NEAR, CHENGDU, BANK_ZH), "工资卡换成建行了，公司统一办的", 3),
    ("zh", (CARRIER_ZH, HUSBAND), "我早携号转网到电信了", 0),
    ("zh", (SIDE_ZH, AGE_ZH), "我都31了好吧", 1),
    ("zh", (CAT_ZH, SUBWAY, BDAY_ZH), "生日是10月15，少了个1😅", 2),
    (
        "zh",
        (RENT_ZH, SHIFT_ZH, FISHING, CLUB_ZH),
        "帮我列个周末的购物清单吧，要买菜、纸巾、洗衣液，对了顺便说下，我已经退出摄影社了，年初就退了，"
        "所以相机配件那些就不用列了，还有记得加上酸奶",
        3,
    ),
    ("zh", (SIDE_ZH, NEAR, FISHING, WAKE_ZH), "六点？我现在七点半才起，换了个离家近的工作", 3),
    ("zh", (TEAM_ZH, HOUSE_ZH, RELIGION_ZH), "我不信佛的，信佛的是我奶奶", 2),
    ("zh", (SHIFT_ZH, DUODUO), "嗯……三班倒那是以前了，现在调到门诊上白班", 0),
    ("zh", (PHONE_ZH, TEAM_ZH, DOG_ZH, MED_ZH), "{h2}那条不对，豆豆是泰迪不是柯基", 2),
]

_LOOK_ALIKES = [
    # (lang, shown, text)
    ("en", (OAKLAND, STRIPE), "my sister just moved out of oakland to sacramento, kinda sad tbh"),
    ("en", (STRIPE, MOCHI, BDAY), "thinking about leaving stripe next year, is that crazy?"),
    ("en", (PENICILLIN, CONTACTS), "if i'm allergic to penicillin is amoxicillin off the table too?"),
    ("en", (DIET, TENNIS), "no tennis this saturday, it's supposed to pour all day"),
    ("en", (PARTNER, CAR, WAKE), "jordan keeps saying he wants to quit and move to portland lol, he says that every winter"),
    ("en", (SMOKING,), "i really want to quit smoking this year, what actually works?"),
    ("en", (PHONE, CAR), "the civic's making that grinding noise again ugh"),
    ("en", (AGE, BANK), "that's wrong, 34 times 3 is 102 not 112"),
    ("en", (DOG, RENTS, SIDE), "yep that's right, biscuit's still going strong at 11 🐶"),
    ("en", (NIGHT_SHIFT, KIDS), "nights again all week, i'm a zombie"),
    ("en", (GUITAR, TEAM), "how do you say 'i play bass guitar in a band' in french?"),
    ("en", (BANK, CARRIER, MOCHI), "chase just changed their overdraft fees, do you know the new amount?"),
    ("en", (CARRIER, PHONE), "t-mobile was down all morning, couldn't even send a text"),
    ("en", (BDAY, HOBBY), "if my birthday landed on a saturday this year i'd throw a party, but it's a wednesday"),
    ("en", (RELIGION, WAKE), "no, you're wrong, easter isn't always in april, it can be in march"),
    ("en", (SIDE, DIET, PARTNER, UNI), "the etsy shop had its best month ever 🎉 sold 40 mugs"),
    ("en", (MOCHI, BOOKCLUB), "my neighbor left a note saying 'your cat is not allowed in our yard anymore' lol, how do i respond politely?"),
    ("en", (SPANISH, SIBLING), "still learning spanish, slowly lol, the subjunctive is killing me"),
    ("en", (KIDS, GYM, PHONE), "leo asked me today if we can move to the moon when he's bigger"),
    ("en", (SCHOOL, PARENTS), "maya's best friend just got moved up to 4th grade mid-year, wild"),
    ("en", (PARENTS, AGE), "back when my parents lived in michigan we went ice fishing every winter"),
    ("en", (SIBLING, DOG, BANK, MED), "sam's older than me but honestly acts like a toddler"),
    ("en", (DIET, GYM), "my coworker says vegetarians can't build muscle, that's wrong right?"),
    ("en", (MED, HEALTH), "pharmacy ran out of lisinopril, have to wait till thursday for a refill"),
    ("en", (GYM, SMOKING, TEAM), "planet fitness is raising the monthly fee to $15, lame"),
    ("en", (DEGREE, STRIPE), "write me a linkedin headline: data analyst, master's in economics, likes messy data"),
    ("en", (UNI, RUNNING), "michigan lost AGAIN?? i'm literally dying 💀"),
    ("en", (TEAM, CAR, VOLUNTEER), "arsenal bottled it again, i'm done with this club forever (until saturday lol)"),
    ("en", (RENTS, OAKLAND), "landlord wants to raise the rent on my one-bedroom by 200 a month, can he even do that?"),
    ("en", (WAKE, CONTACTS, COFFEE, HOBBY), "slept in till 9 today, felt amazing"),
    ("zh", (CHENGDU, CAT_ZH), "我同事刚从高新区搬去天府新区了，天天跟我炫耀通勤多爽"),
    ("zh", (DUODUO, HUSBAND), "朵朵今天问我她什么时候能变成5岁😂 小孩子真好玩"),
    ("zh", (BADMINTON, TEA_ZH), "这周三球馆检修，羽毛球打不成了，好郁闷"),
    ("zh", (HUAWEI_JOB, SUBWAY, AGE_ZH), "要是明年从华为跳到小米，你觉得值不值"),
    ("zh", (SUBWAY, BANK_ZH), "2号线今天又故障了，堵了半小时，烦死了"),
    ("zh", (CAR_ZH, FISHING), "比亚迪又降价了，我买早了亏大发了"),
    ("zh", (CAT_ZH, PHONE_ZH, SIDE_ZH), "大黄今天把我刚买的绿萝啃秃了😤"),
    ("zh", (HUSBAND, SON_ZH), "王磊说他想换工作，我有点担心他压力太大"),
    ("zh", (SON_ZH, NEAR, GYM_ZH, WAKE_ZH), "儿子说初二数学太难了，想给他报个班"),
    ("zh", (PARENTS_ZH, DUODUO), "想把爸妈从洛阳接过来住，可他们不愿意离开老家"),
    ("zh", (SISTER_ZH, JAPANESE), "对，我妹还在深圳读大三呢，明年才毕业"),
    ("zh", (VEG_ZH, ALLERGY_ZH), "我朋友说吃素会缺维生素B12，真的假的？"),
    ("zh", (ALLERGY_ZH, CHENGDU, CAR_ZH), "对芒果过敏的人能吃腰果吗？听说是一个科的"),
    ("zh", (NEAR, MED_ZH), "上学那会儿我才近视200度，工作几年涨到600了"),
    ("zh", (TEA_ZH, SHIFT_ZH), "今天困成狗，喝了三杯美式还是想睡"),
    ("zh", (SMOKE_ZH, HOUSE_ZH), "真想把烟戒了，每次爬五楼都喘"),
    ("zh", (GYM_ZH, CLUB_ZH, DEGREE_ZH), "乐刻最近涨价了，还好我年卡是去年办的"),
    ("zh", (GUZHENG, DUODUO), "帮我翻译成英文：我在学古筝，已经学了一年多了"),
    ("zh", (JAPANESE, BDAY_ZH), "不对，'谢谢'的日语不是这么写的，你写错了"),
    ("zh", (DEGREE_ZH, BANK_ZH, UNI_ZH, CARRIER_ZH), "当年要是没选会计就好了，现在天天对账对到吐"),
    ("zh", (UNI_ZH, FISHING), "武大今年樱花开得好早，同学群里都在晒照片"),
    ("zh", (BANK_ZH, RENT_ZH), "招行app又改版了，找个转账找半天"),
    ("zh", (CARRIER_ZH, PHONE_ZH, SMOKE_ZH), "移动的信号在地下车库真是一格都没有"),
    ("zh", (AGE_ZH, SIDE_ZH), "28了还一事无成，感觉自己已经80了😭"),
    ("zh", (BDAY_ZH, CHENGDU), "今年生日刚好在国庆假期里，想出去玩两天"),
    ("zh", (RENT_ZH, SUBWAY, DOG_ZH), "合租的室友下个月要搬走了，得再找个人"),
    ("zh", (WAKE_ZH, HUAWEI_JOB), "今天睡过头了，八点才醒，差点迟到"),
    ("zh", (RELIGION_ZH, VEG_ZH, MED_ZH, NEAR), "你说错了吧，佛教不是起源于中国的，是印度"),
    ("zh", (SHIFT_ZH, TEAM_ZH), "下周又轮到夜班了，先囤点咖啡"),
    ("zh", (TEAM_ZH, HOUSE_ZH, FISHING), "广州队又输了，我再也不看了！（下周照看😂）"),
]

_ORDINARY = [
    # (lang, shown, text)
    ("en", (OAKLAND, MOCHI), "any good brunch spots near lake merritt?"),
    ("en", (MOCHI,), "how often should i be trimming a cat's nails?"),
    ("en", (STRIPE, BDAY, TEAM), "can you help me write a sql query that finds duplicate customer ids?"),
    ("en", (TENNIS, DIET), "what's a good drill for a weak backhand?"),
    ("en", (DIET, GYM), "give me a high protein vegetarian dinner that takes 20 min"),
    ("en", (GUITAR, SPANISH, PHONE), "what are some easy bass lines from 70s funk to learn?"),
    ("en", (SPANISH,), "whats the difference between ser and estar again"),
    ("en", (CAR, WAKE), "how often should i change the oil on a civic?"),
    ("en", (DOG, RENTS, HEALTH, UNI), "biscuit's been scratching his ears a lot, should i worry?"),
    ("en", (HEALTH, COFFEE), "what are some low-glycemic snacks i can keep at my desk?"),
    ("en", (NIGHT_SHIFT, KIDS), "how do i sleep better during the day when the sun's up?"),
    ("en", (BANK, CARRIER), "how do i set up a recurring transfer to savings?"),
    ("en", (KIDS, SCHOOL, PARTNER), "what are good board games for a 6 year old?"),
    ("en", (RUNNING, SMOKING), "how many miles a week should i be running 8 weeks out?"),
    ("en", (TEAM,), "who's arsenal playing this weekend?"),
    ("en", (SIDE, OAKLAND, AGE), "how should i price handmade mugs?"),
    ("en", (BOOKCLUB, HOBBY), "suggest a short novel our group could finish in a month"),
    ("en", (COFFEE, STRIPE), "how do i froth oat milk at home without a steam wand?"),
    ("en", (GYM, DEGREE, SIBLING, CAR), "give me a 45 min full body routine"),
    ("en", (PARENTS, VOLUNTEER), "what's a nice gift to send my parents for their anniversary?"),
    ("en", (MED, HEALTH), "can i take ibuprofen with blood pressure meds?"),
    ("en", (BDAY, RELIGION), "ideas for a low-key birthday dinner for like 6 people?"),
    ("en", (SCHOOL, CONTACTS), "how can i help a 3rd grader with times tables?"),
    ("en", (PHONE,), "how do i take a screenshot on my pixel?"),
    ("en", (WAKE, NIGHT_SHIFT, TENNIS), "what's a good morning routine when you're up before 6?"),
    ("zh", (CHENGDU, DUODUO), "高新区周末有什么好玩的地方推荐吗"),
    ("zh", (DUODUO,), "4岁小孩适合看什么绘本呀"),
    ("zh", (BADMINTON, HUSBAND, CAR_ZH), "羽毛球反手总打不远，怎么练"),
    ("zh", (HUAWEI_JOB, SUBWAY), "帮我写个自动化测试的用例模板"),
    ("zh", (CAT_ZH, VEG_ZH), "橘猫一天喂多少猫粮合适"),
    ("zh", (VEG_ZH,), "推荐几道简单的素菜，下饭的那种"),
    ("zh", (ALLERGY_ZH, NEAR, BDAY_ZH), "过敏了吃氯雷他定还是西替利嗪好"),
    ("zh", (TEA_ZH, WAKE_ZH), "美式咖啡一天喝几杯算多？"),
    ("zh", (GUZHENG, JAPANESE, AGE_ZH, CHENGDU), "古筝摇指怎么练才不僵啊"),
    ("zh", (JAPANESE, UNI_ZH), "日语的て形变化有什么好记的方法吗"),
    ("zh", (SON_ZH, PARENTS_ZH), "初二物理怎么预习比较好"),
    ("zh", (PARENTS_ZH, SISTER_ZH, MED_ZH), "洛阳有什么特产适合寄给朋友"),
    ("zh", (CAR_ZH,), "秦的保养一般多久做一次"),
    ("zh", (GYM_ZH, SMOKE_ZH), "给我排个一周三练的健身计划"),
    ("zh", (DOG_ZH, RENT_ZH, CARRIER_ZH, FISHING), "柯基掉毛好严重，怎么办呀"),
    ("zh", (BANK_ZH, DEGREE_ZH), "招行信用卡怎么申请提额"),
    ("zh", (SIDE_ZH, PHONE_ZH), "修图接单一般怎么报价比较合理"),
    ("zh", (SHIFT_ZH, TEA_ZH, HOUSE_ZH), "上夜班怎么调作息才没那么累"),
    ("zh", (HOUSE_ZH, BANK_ZH), "提前还房贷划算吗，缩短年限还是减少月供好"),
    ("zh", (FISHING,), "秋天钓鲫鱼用什么饵比较好"),
    ("zh", (BDAY_ZH, HUAWEI_JOB, CAT_ZH), "生日想请同事吃饭，有啥不太贵的餐厅类型推荐"),
    ("zh", (NEAR, GYM_ZH), "高度近视平时要注意些什么"),
    ("zh", (RELIGION_ZH, VEG_ZH), "初一十五去寺庙上香有什么讲究吗"),
    ("zh", (CLUB_ZH, SIDE_ZH, DUODUO, TEAM_ZH), "风光摄影拍日出一般用什么参数"),
    ("zh", (SUBWAY, WAKE_ZH), "地铁通勤路上适合听什么播客"),
]


def _cases(rows: list[tuple], correcting: bool) -> list[Case]:
    return held_out_cases(rows, correcting, FRESH10)


CORRECTIONS = _cases(_CORRECTIONS, True)
LOOK_ALIKES = _cases(_LOOK_ALIKES, False)
ORDINARY = _cases(_ORDINARY, False)
