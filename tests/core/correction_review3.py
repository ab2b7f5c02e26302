"""A third review's corpus for correcting a memory in the conversation (2026-12-06): a reviewer who
had read the three deciders (core/correction.py, core/update.py, core/changed.py) wrote ordinary turns
aimed at the gaps in their guards, and true corrections phrased in varied ways. White-box, so not a
held-out set: the grammar's markers were narrowed against it the same day, and bench/corrections.py
reports it as its own split ("review3") for what is still taken.

Every sentence is made up. Same shape as correction_phrasings.py: one user turn and the items
injected just before it; CORRECTIONS name the item they correct (its index in `shown`); LOOK_ALIKES
must correct nothing. Each row ends with what the turn is, in a few words.
"""

from __future__ import annotations

from correction_phrasings import Case, held_out_cases

REVIEW3 = "review3"

# --- memories of the kind Amber stores -------------------------------------------------------------
SH = "Lives in Shanghai"
BD = "Works at ByteDance as a product manager"
CIVIC = "Drives a white Honda Civic"
MIA = "Has a daughter named Mia, age 9"
MIA_SCH = "Mia is in Year 4 at Greenfield Primary"
PEANUT = "Allergic to peanuts"
OAT = "Prefers oat milk in coffee"
COFFEE = "Drinks three cups of coffee a day"
BLACK = "Takes coffee black, no sugar"
DOG = "Has a golden retriever named Biscuit"
GYM = "Goes to the gym on weekday mornings"
VEG = "Is vegetarian"
WIFE = "Wife is called Anna"
AGE = "Is 34 years old"
BDAY = "Birthday is March 14"
IPHONE = "Uses an iPhone 15"
TENNIS = "Plays tennis on Sundays"
SPAN = "Is learning Spanish"
LONDON = "Lives in London"
NURSE = "Works as a nurse at St Mary's Hospital"
MONZO = "Banks with Monzo"
SON = "Son Leo is in Year 4"
SON_NAME = "Son is called Leo"
GUITAR = "Plays the guitar"
RENT = "Rents a one-bedroom flat in Hackney"
BIKE = "Cycles to work"
ACME = "Works as a software engineer at Acme"
DIVORCED = "Divorced, has a son named Leo"
CAT_EN = "Has a cat named Pepper"

ZH_CAT = "我养了一只猫叫咪咪"
ZH_HZ = "在杭州工作"
ZH_HOME = "我住在北京朝阳区"
ZH_BD = "我在字节跳动工作"
ZH_MT = "在美团做产品经理"
ZH_SPICY = "我不吃辣"
ZH_CAR = "我开一辆白色的丰田"
ZH_PHONE = "用的是华为手机"
ZH_DAUGHTER = "女儿在实验小学上三年级"
ZH_GYM = "每周去三次健身房"
ZH_COFFEE = "每天早上喝一杯咖啡"
ZH_AGE = "我今年30岁"
ZH_SON = "儿子叫乐乐"
ZH_HZHOME = "我住在杭州滨江"
ZH_MILKTEA = "每天喝一杯奶茶"
ZH_BF = "男朋友叫阿杰"
ZH_HUSBAND = "老公叫大伟"
ZH_DOG = "我养了一条柯基叫豆豆"
ZH_UNI = "在浙江大学读的本科"
ZH_LATTE = "每天喝星巴克的拿铁"

_LOOK_ALIKES = [
    ('en', ('Works at ByteDance as a product manager', 'Lives in Shanghai',), 'I left my laptop charger at the office again, so annoying'),  # left = forgot something
    ('en', ('Has a daughter named Mia, age 9', 'Works at ByteDance as a product manager',), 'I left early to pick Mia up from her piano lesson'),  # left = departed
    ('en', ('Lives in Shanghai', 'Drives a white Honda Civic',), 'We left Shanghai at 6am to beat the traffic to Hangzhou for the weekend'),  # a weekend away
    ('en', ('Has a golden retriever named Biscuit',), 'It stopped raining so I finally took Biscuit out'),  # it stopped raining
    ('en', ('Has a golden retriever named Biscuit',), 'I gave up trying to teach Biscuit to roll over, he just stares at me'),  # gave up a trick
    ('en', ('Uses an iPhone 15',), 'I switched off my phone for the whole weekend and it was bliss'),  # switched off
    ('en', ('Works at ByteDance as a product manager',), 'We moved desks at work, I sit by the window next to my manager now'),  # moved desks
    ('en', ('Has a golden retriever named Biscuit',), "I moved Biscuit's bed upstairs so he stops whining at night"),  # moved an object
    ('en', ('Has a golden retriever named Biscuit',), 'i moved teh couch and found biscuits old squeaky toy lol'),  # typo defeats the literal-verb guard
    ('en', ('Drives a white Honda Civic',), 'i sold teh old bike, the civic is enough for us'),  # sold something else (typo)
    ('en', ('Prefers oat milk in coffee', 'Drinks three cups of coffee a day',), "I quit sugar in my coffee, that's the only change"),  # quit something beside the item
    ('en', ('Works at ByteDance as a product manager',), "I nearly quit my job last month over this, glad I didn't"),  # nearly quit
    ('en', ('Works at ByteDance as a product manager',), "Half my team quit, I'm swamped"),  # other people quitting
    ('en', ('Mia is in Year 4 at Greenfield Primary',), 'Dropped Mia off at Greenfield, she was grumpy the whole way lol'),  # errand: dropped off
    ('en', ('Drives a white Honda Civic',), 'Replaced the battery in the Civic myself, saved like 80 quid'),  # maintenance: replaced
    ('en', ('Drives a white Honda Civic',), 'Swapped the tyres on the Civic for winter ones'),  # maintenance: swapped
    ('en', ('Uses an iPhone 15',), 'Switched my phone to dark mode and my eyes thank me'),  # a setting switched
    ('en', ('Has a golden retriever named Biscuit',), 'I put it down and Biscuit ran off with my sock'),  # put it down (idiom)
    ('en', ('Works at ByteDance as a product manager',), 'Our CEO got replaced, total chaos at ByteDance'),  # the company's news
    ('en', ('Works at ByteDance as a product manager',), 'No more meetings on Fridays at ByteDance, finally someone listened'),  # a company policy
    ('en', ('Works at ByteDance as a product manager',), "Honestly work has been a lot, ByteDance restructured again and my manager changed twice in six months, I'm still a PM but on the ads team now, which I kind of hate"),  # long ramble, job unchanged
    ('en', ('Drives a white Honda Civic', 'Has a daughter named Mia, age 9',), "No worries, I'll take the Civic, it has more boot space"),  # 'No worries' opener
    ('en', ('Has a daughter named Mia, age 9', 'Is vegetarian',), 'No problem at all, Mia loves helping in the kitchen'),  # 'No problem' opener
    ('en', ('Has a golden retriever named Biscuit',), "Nah it's fine, Biscuit can stay with the neighbours that day"),  # 'Nah it's fine' opener
    ('en', ('Son Leo is in Year 4', 'Son is called Leo',), 'Wait, no, the dentist is Thursday for Leo'),  # self-correction about an appointment
    ('en', ('Son Leo is in Year 4',), 'Leo needs size 34 shoes, not 33'),  # a 'not X' about something else
    ('en', ('Wife is called Anna',), "Book the table for 7, not 8, Anna's running late"),  # a 'not X' about a booking
    ('en', ('Has a daughter named Mia, age 9',), "FYI Mia's recital is on Friday, not Saturday like the school email said"),  # a 'not X' about an event
    ('en', ('Has a daughter named Mia, age 9',), 'Actually, Mia wants pancakes now, not waffles'),  # a passing preference
    ('en', ('Works at ByteDance as a product manager',), 'Actually my manager wants the roadmap by Friday now, not end of month'),  # a deadline moved
    ('en', ('Has a golden retriever named Biscuit', 'Wife is called Anna',), 'For the record, Anna picked the name Biscuit, not me'),  # for the record, a story
    ('en', ('Has a golden retriever named Biscuit',), "Heads up, Biscuit's vet appointment moved to Thursday"),  # heads up: appointment moved
    ('en', ('Drives a white Honda Civic',), 'Update: the Civic passed its MOT!'),  # 'Update:' status report
    ('en', ('Has a daughter named Mia, age 9',), 'Quick update: Mia got the lead role in the school play'),  # 'update:' news of the child
    ('en', ('Goes to the gym on weekday mornings',), "Just so you know, I'm not a morning person at all, the gym at 7 is pure willpower"),  # just so you know, restatement
    ('en', ('Goes to the gym on weekday mornings',), "I'm not exactly a morning person, but the gym at 7 works for me"),  # not exactly, restatement
    ('en', ('Allergic to peanuts',), "Oh and I'm allergic to shellfish, not just peanuts"),  # an addition: 'not just X'
    ('en', ("Works as a nurse at St Mary's Hospital",), "I'm a nurse, not a doctor, people always assume"),  # restatement with 'not X'
    ('en', ('Lives in Shanghai',), "I'm finally used to the Shanghai humidity after three summers"),  # used to = accustomed
    ('en', ('Drives a white Honda Civic',), 'Still getting used to driving the Civic in the snow'),  # used to = accustomed
    ('en', ('Drinks three cups of coffee a day',), "I used to hate coffee, now I can't function without my three cups"),  # used to, then restated
    ('en', ('Has a daughter named Mia, age 9',), 'Mia used to be scared of dogs, now she begs me for a puppy'),  # a child's story
    ('en', ('Has a golden retriever named Biscuit',), "Biscuit doesn't fit in his old bed anymore, he's massive"),  # anymore: a pet grew
    ('en', ('Works at ByteDance as a product manager',), "I don't know what ByteDance wants from us anymore, the goals change every week"),  # anymore: frustration
    ('en', ('Works at ByteDance as a product manager',), 'I no longer care what my boss thinks of my outfits lol'),  # no longer: a feeling
    ('en', ('Has a golden retriever named Biscuit',), 'Biscuit is no longer allowed on the sofa after the cushion incident'),  # no longer: a house rule
    ('en', ('Lives in Shanghai',), 'I never lived anywhere as humid as Shanghai'),  # never lived: restatement
    ('en', ('Drives a white Honda Civic',), 'I never had a car before the Civic, it was a big step'),  # never had: restatement
    ('en', ('Has a daughter named Mia, age 9',), "Honestly that was years ago, Mia doesn't even remember the hospital stay"),  # that was years ago
    ('en', ('Prefers oat milk in coffee',), 'I mixed up the oat milk and the almond milk, my coffee tasted weird lol'),  # mixed up (literal)
    ('en', ('Son Leo is in Year 4',), "I always mix up Leo's PE days, Tuesday or Thursday, every single week"),  # mix up (literal)
    ('en', ('Rents a one-bedroom flat in Hackney',), 'The days of cheap rent in Hackney are long gone'),  # long gone: prices
    ('en', ('Works at ByteDance as a product manager',), "You're behind on the news, ByteDance just launched another AI app"),  # the assistant is behind
    ('en', ('Lives in Shanghai',), "That's wrong, Shanghai Disney opened in 2016"),  # the assistant's fact about a place
    ('en', ('Rents a one-bedroom flat in Hackney',), "You've got the bus times wrong, the 73 doesn't go to Hackney anymore"),  # the assistant's bus times
    ('en', ('Is vegetarian',), "That's outdated advice, nobody peels tomatoes anymore"),  # outdated advice
    ('en', ('Drinks three cups of coffee a day',), 'Please fix it, the spreadsheet you made for my coffee budget has the wrong totals'),  # fix the assistant's work
    ('en', ('Has a daughter named Mia, age 9',), "I died laughing at Mia's school play, she forgot every line"),  # died laughing
    ('en', ('Has a golden retriever named Biscuit', 'Wife is called Anna',), 'Biscuit nearly died of excitement when Anna came home'),  # nearly died (hyperbole)
    ('en', ('Has a daughter named Mia, age 9',), "Mia passed her grade 3 piano exam, she's practising grade 4 now"),  # passed an exam
    ('en', ('Has a golden retriever named Biscuit',), "Biscuit passed his obedience class, he's a very good boy now"),  # passed a class
    ('en', ('Has a daughter named Mia, age 9',), 'Mia broke up with her best friend at recess, drama at 9 years old'),  # a child's friendship
    ('en', ('Uses an iPhone 15',), 'My phone died halfway through the call with the landlord'),  # battery died
    ('en', ('Drives a white Honda Civic',), 'Civic died on me on the M25, AA on the way'),  # breakdown
    ('en', ('Prefers oat milk in coffee',), 'The café was out of oat milk so I got almond instead'),  # one-off substitution
    ('en', ('Goes to the gym on weekday mornings',), 'Went to the gym in the evening instead, the 7am class was full'),  # one-off
    ('en', ('Works at ByteDance as a product manager',), 'Back to work after the holidays, ugh'),  # back to work
    ('en', ('Lives in Shanghai',), 'Back to Shanghai after two weeks in Japan, the jet lag is brutal'),  # back home
    ('en', ('Drives a white Honda Civic',), 'Down to one car payment left on the Civic!'),  # a milestone
    ('en', ('Works at ByteDance as a product manager',), "I've worked from home since the pandemic, ByteDance is pretty flexible about it"),  # an addition with 'since'
    ('en', ('Is vegetarian',), "I've been vegetarian for 5 years now and honestly don't miss meat"),  # duration restated (non-name value)
    ('en', ('Drinks three cups of coffee a day',), "I've loved coffee since uni"),  # since uni (restatement)
    ('en', ('Prefers oat milk in coffee', 'Drinks three cups of coffee a day',), "You've got my coffee order down now haha, oat latte, extra hot"),  # praise to the assistant
    ('en', ('Drives a white Honda Civic',), "I'm finally comfortable driving the Civic on the motorway now"),  # a feeling now
    ('en', ('Drinks three cups of coffee a day',), 'I know how to make proper pour-over coffee now, my barista friend taught me'),  # a skill now
    ('en', ('Takes coffee black, no sugar',), "I haven't changed how I take my coffee in ten years, black, no sugar"),  # negated change
    ('en', ('Drinks three cups of coffee a day', 'Has a daughter named Mia, age 9',), 'The kids are finally asleep, now I can enjoy my coffee in peace'),  # 'now' sequencing
    ('en', ('Lives in Shanghai', 'Is vegetarian',), 'I eat way more dumplings now that I live in Shanghai'),  # 'now that' consequence
    ('en', ('Prefers oat milk in coffee',), 'Everything costs more these days, even my oat milk'),  # price complaint
    ('en', ('Drives a white Honda Civic',), "I'm on crutches for a month, taking the bus now"),  # temporary for a month
    ('en', ('Drives a white Honda Civic',), 'Stuck in traffic in the Civic now, 40 minutes and counting'),  # a passing moment
    ('en', ('Drinks three cups of coffee a day',), "Having my second coffee now, don't judge"),  # a passing moment
    ('en', ('Lives in Shanghai', 'Works at ByteDance as a product manager',), 'Sitting in the Shanghai office now waiting for the all-hands'),  # a passing moment
    ('en', ('Has a golden retriever named Biscuit',), 'At the vet with Biscuit now, just a checkup'),  # a passing moment
    ('en', ('Lives in Shanghai',), 'My mate Jake moved to Berlin, the flat feels empty'),  # my mate's news
    ('en', ('Works at ByteDance as a product manager',), 'My buddy got promoted to director at Google, drinks on him'),  # my buddy's news
    ('en', ('Divorced, has a son named Leo',), 'My ex got married, weird feeling'),  # my ex's news
    ('en', ('Rents a one-bedroom flat in Hackney',), 'My landlord sold the building, new owners are taking over'),  # my landlord's news
    ('en', ('Lives in Shanghai',), 'My grandma moved into a care home near us'),  # my grandma's news
    ('en', ('Lives in Shanghai',), "Jake moved to Berlin, I'm so jealous"),  # a named friend's news
    ('en', ('Is vegetarian', 'Works at ByteDance as a product manager',), "In a parallel universe I'm a vegan chef in Bali"),  # hypothetical (parallel universe)
    ('en', ('Lives in London',), 'Five-year goal: I live in Lisbon and work remotely'),  # a goal
    ('en', ('Works at ByteDance as a product manager',), 'Tweet idea: I quit my job to raise alpacas'),  # text for elsewhere (tweet)
    ('en', ('Lives in London',), "Toast for my brother's wedding: I moved to London with nothing but a suitcase and he let me crash on his sofa"),  # text for elsewhere (toast)
    ('en', ('Lives in London',), "Sure, and I'm the Queen of England now"),  # sarcasm
    ('en', ('Drives a white Honda Civic',), 'Oh yeah, I totally sold the Civic and bought a Lamborghini, obviously'),  # sarcasm
    ('en', ('Has a golden retriever named Biscuit', 'Wife is called Anna',), "Biscuit has officially replaced me as Anna's favourite"),  # a joke
    ('en', ('Is 34 years old',), "I'm 80 years old at heart, in bed by nine"),  # figurative age
    ('en', ('Is 34 years old',), "I'm 12, emotionally, when it comes to fart jokes"),  # figurative age
    ('en', ('Works at ByteDance as a product manager',), "I'm a student of life, what can I say"),  # figurative role
    ('en', ('Works at ByteDance as a product manager',), "I'm a writer at heart, the PM job pays the bills"),  # figurative role
    ('en', ('Lives in Shanghai',), 'Home is Anna and Biscuit, wherever we are'),  # sentimental 'home is'
    ('en', ('Lives in Shanghai',), "I'm living in Figma these days, three launches in a month"),  # 'living in' a tool
    ('en', ('Lives in London',), 'I live in Notion honestly, every thought goes there'),  # 'live in' a tool
    ('en', ('Lives in Shanghai', 'Works at ByteDance as a product manager',), 'We moved to Slack from Teams at work'),  # moved = tool migration
    ('en', ('Works at ByteDance as a product manager', 'Wife is called Anna',), "I work for Anna basically, she's the boss at home lol"),  # a joke about the boss
    ('en', ('Works at ByteDance as a product manager', 'Uses an iPhone 15',), "I'm with Vodafone these days for my phone plan"),  # a provider, not an employer
    ('en', ('Works at ByteDance as a product manager',), "I'm at Costa these days most mornings, their flat white is better"),  # a hangout, not an employer
    ('en', ('Has a golden retriever named Biscuit',), 'My dog is Houdini reincarnated, he escaped again'),  # figurative name
    ('en', ('Wife is called Anna',), "My wife is Team Edward, don't ask"),  # not a name
    ('en', ('Son is called Leo',), 'My son is Spider-Man for Halloween'),  # a costume
    ('en', ('Has a daughter named Mia, age 9',), 'My daughter is Harry Potter obsessed right now'),  # not a name
    ('en', ('Drives a white Honda Civic',), 'My car is a Tardis inside, so much room'),  # figurative car
    ('en', ('Drives a white Honda Civic',), 'I drive a Ferrari in Gran Turismo lol'),  # a video game
    ('en', ('Drives a white Honda Civic',), 'I drive a Tesla for Uber on weekends to make extra money'),  # driving for work
    ('en', ('Plays tennis on Sundays',), "I'm really into padel these days, watching it on TV"),  # watching a sport
    ('en', ('Is learning Spanish',), "I'm studying French cooking now, the sauces are brutal"),  # French cooking, not French
    ('en', ('Works at ByteDance as a product manager',), 'I work at Starbucks on weekends for extra cash'),  # a side job
    ('en', ("Works as a nurse at St Mary's Hospital",), 'Took a job at Tesco on Saturdays, Christmas is expensive'),  # a side job
    ('en', ('Lives in Shanghai',), 'I live in Pudong, near Century Park'),  # a finer location
    ('en', ('Rents a one-bedroom flat in Hackney',), 'My place is in Hackney Wick actually, right by the canal'),  # a finer location
    ('en', ('Works as a software engineer at Acme',), "I'm an acting manager while my boss is on leave"),  # an acting role
    ('en', ('Drinks three cups of coffee a day',), 'I drink water instead of soda at lunch'),  # another drink, another context
    ('en', ('Birthday is March 14',), 'My birthday is in 3 weeks!'),  # a countdown
    ('en', ('Lives in Shanghai',), 'any good ramen spots near my place in Shanghai now'),  # a question without '?'
    ('en', ('Goes to the gym on weekday mornings',), 'recommendations for a quieter gym near my office now that mine is packed'),  # a question without '?'
    ('en', ('Lives in Shanghai',), 'Not a fan of Shanghai winters'),  # 'not a fan of X'
    ('en', ('Banks with Monzo',), "Not loving Monzo's new app"),  # 'not loving X'
    ('en', ('Has a golden retriever named Biscuit',), "Not Biscuit's fault, the neighbour's cat started it"),  # 'not X's fault'
    ('en', ('Drinks three cups of coffee a day',), 'You said I drink three cups a day, yeah that sounds about right'),  # confirmation
    ('en', ('Has a golden retriever named Biscuit',), "Haven't seen Biscuit this excited since the beach trip"),  # a story
    ('en', ('Drives a white Honda Civic', 'Has a golden retriever named Biscuit',), 'ok so long story but basically my sister-in-law visited, we took the Civic to the coast, Biscuit threw up in the back seat twice, and now the whole car smells like dog, any tips for getting that out'),  # long ramble with a request
    ('en', ('Has a daughter named Mia, age 9', 'Wife is called Anna',), "So the plan for Saturday: drop Mia at her swim class at 9, then I'm meeting Anna for brunch"),  # a plan
    ('en', ('Has a golden retriever named Biscuit', 'Uses an iPhone 15',), 'lol my iphone autocorrected Biscuit to Biscotti again'),  # a joke
    ('en', ('Is vegetarian', 'Has a daughter named Mia, age 9',), "Mia asked why we don't eat meat and I had no good answer lol, she's 9 and already a philosopher"),  # a story
    ('en', ('Lives in Shanghai', 'Works at ByteDance as a product manager',), 'Forwarding this from HR: employees who moved to the new Minhang campus should update their address'),  # forwarded text
    ('en', ('Son Leo is in Year 4',), 'From the school newsletter: Year 4 moved to the new building'),  # forwarded text
    ('en', ('Lives in Shanghai',), "I'm settled in Shanghai for good, no more moving"),  # restatement
    ('en', ('Wife is called Anna',), "Anna's been on a Korean drama binge, I've lost my wife to Netflix now"),  # a joke
    ('en', ('Drives a white Honda Civic',), 'Yep, the white Civic, 2016 model, 120k miles'),  # restatement
    ('en', ('Has a golden retriever named Biscuit',), 'Biscuit is scared of the hoover, always has been'),  # plain chat
    ('en', ('Allergic to peanuts', 'Has a daughter named Mia, age 9',), "Can you suggest a peanut-free satay sauce for Mia's party"),  # a request
    ('en', ('Prefers oat milk in coffee',), 'Is it weird that I like my coffee with oat milk and a pinch of salt'),  # a question
    ('en', ('Drives a white Honda Civic',), 'My Civic is basically family now'),  # affection
    ('en', ('Son Leo is in Year 4',), "Leo's class is doing a project on the Romans, he's obsessed"),  # plain chat
    ('en', ('Is 34 years old',), "I'm 34 and still can't cook rice"),  # restatement
    ('zh', ('Works at ByteDance as a product manager',), 'bytedance现在卷得要死'),  # mixed-language opinion
    ('en', ('Works at ByteDance as a product manager',), "today's standup was 90 mins, bytedance culture smh"),  # complaint
    ('en', ('Lives in Shanghai',), "```python\ncity = 'Hangzhou'  # I live in Hangzhou now\n```"),  # code
    ('en', ('Lives in Shanghai',), 'She texted me "I moved to Berlin now, come visit!" so maybe in spring'),  # quoted text
    ('zh', ('我养了一只猫叫咪咪',), '我给咪咪买了个猫爬架，她超喜欢'),  # 给…买了 (bought for)
    ('zh', ('我养了一只猫叫咪咪',), '我送给咪咪一个新玩具，她玩了一下午'),  # 送给 (a gift)
    ('zh', ('女儿在实验小学上三年级',), '我给了女儿一百块零花钱'),  # 给了 (gave)
    ('zh', ('我住在杭州滨江',), '不是我说，杭州的房价真离谱'),  # 不是我说 (discourse)
    ('zh', ('在杭州工作',), '杭州并不是我想象的那样，节奏其实挺快的'),  # 并不是 (opinion)
    ('zh', ('我养了一只猫叫咪咪',), '我家咪咪不是一般的粘人'),  # 不是一般的 (intensifier)
    ('zh', ('我开一辆白色的丰田',), '好久没开那辆丰田出去兜风了'),  # 好久没开 (haven't in a while)
    ('zh', ('每周去三次健身房',), '我哪有时间健身啊，天天加班'),  # 哪有时间 (rhetorical complaint)
    ('zh', ('我在字节跳动工作',), '帮我把简历改一下，突出我在字节的项目经验'),  # 改一下 (edit request)
    ('zh', ('我在字节跳动工作',), '组里又有人离职了，我压力好大'),  # 有人离职 (others quit)
    ('zh', ('我住在北京朝阳区',), '我发小搬到深圳了，以后见面难了'),  # 发小's news
    ('zh', ('我住在北京朝阳区',), '我舅舅把老房子卖了，搬去跟表哥住'),  # 舅舅's news
    ('zh', ('我住在北京朝阳区',), '我奶奶搬到养老院了'),  # 奶奶's news
    ('zh', ('我养了一只猫叫咪咪',), '咪咪已经不怕生了，客人来了也不躲'),  # 已经不 (a pet's behaviour)
    ('zh', ('女儿在实验小学上三年级',), '女儿已经不用我接送了，自己坐公交上学'),  # a child's independence
    ('zh', ('在杭州工作',), '我记错了上班时间，差点迟到'),  # 记错 (own slip)
    ('zh', ('我在字节跳动工作',), '刚才在公司开会我说错话了，好尴尬'),  # 说错话 (own slip)
    ('zh', ('我住在北京朝阳区',), '快递把我的地址搞错了，寄到朝阳公园那边去了'),  # 搞错 (a courier's slip)
    ('zh', ('我开一辆白色的丰田',), '我把闲置的婴儿车卖了，才卖了一百块'),  # sold a pram (婴儿车)
    ('zh', ('我开一辆白色的丰田',), '我换了个车载支架，导航方便多了'),  # an accessory changed
    ('zh', ('我在字节跳动工作',), '我不在公司，在家办公'),  # 不在 (whereabouts)
    ('zh', ('我住在北京朝阳区',), '我没住过这么差的酒店'),  # 没住过 (never stayed)
    ('zh', ('我住在杭州滨江',), '我从没在杭州见过这么大的雪'),  # 从没 (never seen)
    ('zh', ('我开一辆白色的丰田',), '我的车险过期了，得赶紧续'),  # 过期 (insurance)
    ('zh', ('用的是华为手机',), '我的手机系统太过时了，好多app装不了'),  # 过时 (phone OS)
    ('zh', ('每周去三次健身房',), '我把闹钟改成六点了，好早起去健身'),  # 改成 (alarm)
    ('zh', ('每天早上喝一杯咖啡',), '早上喝咖啡才对，下午喝会睡不着'),  # 才对 (opinion)
    ('zh', ('用的是华为手机',), '我没用过华为的折叠屏，价格劝退'),  # 没用过 (never used a model)
    ('zh', ('用的是华为手机',), '我的华为手机定位不准，导航老是偏'),  # 不准 (inaccurate GPS)
    ('zh', ('在美团做产品经理',), '我们公司的技术落后了，领导还不着急'),  # 落后了 (company)
    ('zh', ('我在字节跳动工作',), '其实我在字节过得还行，就是加班多'),  # 其实 restatement
    ('zh', ('在杭州工作',), '我现在每天都是八点到公司'),  # 现在 routine
    ('zh', ('我住在北京朝阳区',), '我搬到了一座没有你的城市 —— 这句歌词写得真好'),  # lyrics
    ('zh', ('我住在北京朝阳区',), '这句怎么翻译成英文：我已经搬到上海了'),  # translation request
    ('zh', ('我在字节跳动工作',), '帮我写个朋友圈文案：终于离职啦，开启新生活'),  # text for elsewhere (WeChat post)
    ('zh', ('我养了一只猫叫咪咪',), '咪咪换了新猫粮之后不挑食了'),  # a pet's food changed
    ('zh', ('我养了一只猫叫咪咪',), '我家猫叫声特别大，邻居都投诉了'),  # 叫声 (a cat's cry)
    ('zh', ('儿子叫乐乐',), '我儿子叫爷爷帮他拼乐高'),  # 叫 = asked someone
    ('zh', ('老公叫大伟',), '我老公叫滴滴去机场了'),  # 叫 = called a cab
    ('zh', ('我住在北京朝阳区',), '我住二楼，楼上天天装修吵死了'),  # a floor, not a district
    ('zh', ('我住在北京朝阳区',), '我家在五楼，没电梯，每天爬得腿软'),  # a floor, not a district
    ('zh', ('在杭州工作',), '我在星巴克工作了一下午，效率还挺高'),  # worked from a café
    ('zh', ('在杭州工作',), '我在沙发上工作，腰要断了'),  # worked from the sofa
    ('zh', ('在杭州工作',), '说到底都是给资本家打工'),  # idiom 给资本家打工
    ('zh', ('我开一辆白色的丰田',), '周末我开朋友的奔驰去郊游，感觉不一样'),  # a borrowed car
    ('zh', ('我开一辆白色的丰田',), '我开过一次奔驰，油耗真高'),  # 开过一次 (drove once)
    ('zh', ('我开一辆白色的丰田',), '我现在在开车，等会儿聊'),  # a passing moment (driving)
    ('zh', ('在杭州工作',), '我已经到公司了，刚打完卡'),  # a passing moment (arrived)
    ('zh', ('我不吃辣',), '我已经吃过饭了，你别管我'),  # a passing moment (ate)
    ('zh', ('在杭州工作',), '周五不用上班了，公司放假'),  # a day off
    ('zh', ('在杭州工作',), '公司搬到滨江了，离我家更近了'),  # the company moved within the city
    ('zh', ('我住在杭州滨江',), '杭州的夏天我都习惯了'),  # 都…了 (got used to)
    ('zh', ('在杭州工作',), '上班太累了，我快受不了了'),  # 不…了 (complaint)
    ('zh', ('在美团做产品经理',), '现在的工作挺好的，就是通勤远'),  # 现在的 (current job) restatement
    ('zh', ('在杭州工作',), '我现在每天坐地铁上班，挺方便的'),  # a commute added
    ('zh', ('我住在杭州滨江',), '我已经习惯杭州的天气了'),  # 已经习惯 (got used to)
    ('zh', ('我在字节跳动工作',), '我早就知道字节会裁员'),  # 早就知道 (knew it)
    ('zh', ('每天早上喝一杯咖啡',), '我把网购的咖啡机退了，质量太差'),  # returned a purchase
    ('zh', ('我住在杭州滨江',), '杭州现在房价多少'),  # question without ？ (多少)
    ('zh', ('我住在北京朝阳区',), '我现在住的地方附近有啥好吃的'),  # question without ？ (啥)
    ('zh', ('我住在杭州滨江',), '现在去杭州哪里玩好'),  # question without ？ (哪里)
    ('zh', ('我在字节跳动工作',), '字节现在招不招人'),  # question without ？ (A不A)
    ('zh', ('每天早上喝一杯咖啡',), '这两周感冒，咖啡都停了'),  # temporary (这两周)
    ('zh', ('在浙江大学读的本科',), '毕业十年了，同学聚会好感慨'),  # a graduation anniversary
    ('zh', ('每天喝星巴克的拿铁',), '我自己做了杯咖啡，比外面买的好喝'),  # 我自己 (reflexive)
    ('zh', ('我住在北京朝阳区',), '我们小区的快递站搬到门口了，方便多了'),  # neighbourhood news
    ('zh', ('儿子叫乐乐',), '乐乐现在会自己系鞋带了'),  # a child's milestone
    ('zh', ('女儿在实验小学上三年级',), '女儿现在迷上了画画，天天画'),  # a child's hobby
    ('zh', ('在美团做产品经理',), '老板现在天天让我们在公司加班到十点'),  # the boss's rule
    ('zh', ('在杭州工作',), '我们公司领导升了，调去北京总部了'),  # a manager's news
    ('zh', ('我养了一条柯基叫豆豆',), '邻居家的狗去世了，小孩哭了一晚上'),  # a neighbour's dog
    ('zh', ('每天喝一杯奶茶',), '楼下新开的奶茶店我都喝腻了'),  # 都…腻了 (tired of a shop)
    ('zh', ('每天早上喝一杯咖啡',), '最近迷上了手冲咖啡，已经买了三套器具'),  # a hobby added
    ('zh', ('我开一辆白色的丰田',), '我的丰田开了八年了，一点毛病没有'),  # duration restated
    ('zh', ('我开一辆白色的丰田', '我住在北京朝阳区',), '这辆丰田陪我搬了三次家'),  # a story
    ('zh', ('我在字节跳动工作',), '我们公司换了新CEO，风格完全不一样'),  # the company's news
    ('zh', ('我在字节跳动工作',), '我们组搬到新楼了，食堂更好吃'),  # the team moved floors
    ('zh', ('我住在北京朝阳区',), '我现在在朝阳区了，马上到你家'),  # a passing moment (on the way)
    ('zh', ('我住在北京朝阳区', '我今年30岁',), '我25岁来的北京，一晃五年'),  # a past age in a story
    ('zh', ('我今年30岁',), '我都30了还被催婚'),  # restatement
    ('zh', ('我开一辆白色的丰田',), '我开一辆白色的丰田'),  # exact restatement
    ('zh', ('用的是华为手机',), '我用小米的充电器给华为手机充电'),  # another brand's charger
    ('zh', ('用的是华为手机',), '手机换了张卡，号码没变'),  # a SIM changed
    ('zh', ('用的是华为手机',), '我现在用iPad看书，眼睛舒服点'),  # another device
    ('zh', ('女儿在实验小学上三年级',), '女儿现在上三年级下学期了'),  # restatement
    ('zh', ('儿子叫乐乐',), '我儿子叫乐乐，小名叫豆丁'),  # a nickname added
    ('zh', ('每周去三次健身房',), '我在家楼下的健身房办了卡，终于不用跑远了'),  # a nearer gym, same habit
    ('zh', ('每天喝一杯奶茶',), '我戒了三天奶茶就破功了'),  # a failed attempt
    ('zh', ('在美团做产品经理',), '我辞职的念头每天都有，但房贷不允许'),  # thoughts of quitting
    ('zh', ('我在字节跳动工作',), '昨天梦到我离职了，醒来还得上班'),  # a dream
    ('zh', ('我在字节跳动工作',), '我在字节的工牌丢了'),  # lost a badge
    ('zh', ('我在字节跳动工作',), '字节的食堂现在收费了'),  # the company's canteen
    ('zh', ('每周去三次健身房',), '健身房换了老板，器械全换新了'),  # the gym's news
    ('zh', ('我住在北京朝阳区', '我开一辆白色的丰田',), '朝阳区最近改成单双号限行了'),  # a local traffic rule
    ('zh', ('我住在杭州滨江',), '不是每个杭州人都爱喝茶'),  # 不是每个 (generalisation)
    ('zh', ('妹妹叫小雨',), '我妹叫我周末去她家吃饭'),  # 叫 = asked me
    ('zh', ('我养了一只猫叫咪咪',), '咪咪三岁了，越来越懒'),  # plain chat
    ('zh', ('我不吃辣',), '我不吃辣，但我老公无辣不欢'),  # restatement
    ('zh', ('我住在北京朝阳区', '我养了一只猫叫咪咪',), '帮我查一下朝阳区附近的宠物医院'),  # a request
    ('zh', ('我养了一条柯基叫豆豆',), '豆豆今天打疫苗，乖得不行'),  # plain chat
    ('zh', ('我住在北京朝阳区',), '我住的小区停水了，烦死'),  # a passing problem
    ('zh', ('我在字节跳动工作',), '今天字节发年终奖了，开心'),  # news today
    ('zh', ('我住在杭州滨江',), '我在杭州东站等车，晚点到'),  # a passing moment
    ('zh', ('我在字节跳动工作',), '我以前的同事现在都在阿里'),  # former colleagues
    ('zh', ('我养了一只猫叫咪咪',), '这个周末带咪咪去打疫苗'),  # a plan
]

_CORRECTIONS = [
    ('en', ('Lives in Shanghai', 'Works at ByteDance as a product manager',), "Ha, no, we left Shanghai last year, we're in Suzhou now", 0),  # pushback + new city
    ('en', ('Works at ByteDance as a product manager', 'Lives in Shanghai',), "I'm not at ByteDance anymore, I joined Meituan in June", 0),  # left employer
    ('en', ('Drives a white Honda Civic', 'Has a golden retriever named Biscuit',), "The Civic's gone, traded it in for a Model 3", 0),  # car gone
    ('en', ('Has a daughter named Mia, age 9', 'Is vegetarian',), "Mia's 10 now, she had her birthday last week", 0),  # age moved on
    ('en', ('Prefers oat milk in coffee', 'Drives a white Honda Civic',), "I've gone back to cow's milk, oat milk upset my stomach", 0),  # back to
    ('en', ('Drinks three cups of coffee a day', 'Has a golden retriever named Biscuit',), 'Down to one coffee a day since my heart palpitations', 0),  # down to
    ('en', ('Has a golden retriever named Biscuit', 'Lives in Shanghai',), 'Biscuit passed away in April, we really miss him', 0),  # pet died
    ('en', ('Goes to the gym on weekday mornings', 'Works at ByteDance as a product manager',), "I go to the gym after work now, mornings just don't work with the kids", 0),  # new time
    ('en', ('Is vegetarian', 'Lives in Shanghai',), 'I started eating fish again last year, so pescatarian really', 0),  # diet changed
    ('en', ('Wife is called Anna', 'Lives in Shanghai',), 'Anna and I split up in the spring', 0),  # separated
    ('en', ('Is 34 years old', 'Lives in Shanghai',), 'Turned 35 on Saturday', 0),  # birthday
    ('en', ('Uses an iPhone 15', 'Drives a white Honda Civic',), "I'm on a Pixel now, the iPhone died", 0),  # phone changed
    ('en', ('Plays tennis on Sundays', 'Lives in Shanghai',), "Haven't played tennis in months, I do padel on Sundays instead", 0),  # sport changed
    ('en', ('Is learning Spanish', 'Lives in Shanghai',), 'I gave up on Spanish, switched to Japanese', 0),  # language changed
    ('en', ('Lives in London', 'Works at ByteDance as a product manager',), "Moved out of London in January, we're in Bristol", 0),  # city changed
    ('en', ("Works as a nurse at St Mary's Hospital", 'Lives in Shanghai',), "Left St Mary's, I'm a school nurse at Hillcrest now", 0),  # employer changed
    ('en', ('Banks with Monzo', 'Lives in Shanghai',), 'I closed my Monzo account, everything is with Starling', 0),  # bank changed
    ('en', ('Son Leo is in Year 4', 'Lives in Shanghai',), "Leo's in Year 5 now", 0),  # school year
    ('en', ('Plays the guitar', 'Lives in Shanghai',), "Sold the guitar, I've been learning piano instead", 0),  # instrument changed
    ('en', ('Rents a one-bedroom flat in Hackney', 'Works at ByteDance as a product manager',), 'We bought a house in Walthamstow, no more renting!', 0),  # no longer renting
    ('en', ('Cycles to work', 'Lives in Shanghai',), 'I drive to work these days, the cycle lane got closed', 0),  # commute changed
    ('en', ('Has a daughter named Mia, age 9', 'Lives in Shanghai',), "my daughter's name is Maya btw, not Mia", 0),  # name wrong
    ('en', ('Allergic to peanuts', 'Lives in Shanghai',), 'Peanuts are fine for me now, it was actually tree nuts all along', 0),  # allergy wrong
    ('en', ('Works at ByteDance as a product manager', 'Lives in Shanghai',), "hm that's old, I'm at Tencent these days", 0),  # that's old
    ('en', ('Works at ByteDance as a product manager', 'Lives in Shanghai',), "I'm a team lead now, got promoted in March", 0),  # promoted
    ('en', ('Lives in Shanghai', 'Works at ByteDance as a product manager',), 'We live in Pudong now, moved over the summer', 0),  # district (arguably finer, but 'moved')
    ('en', ('Drinks three cups of coffee a day', 'Lives in Shanghai',), "I don't drink coffee any more, green tea only", 0),  # stopped coffee
    ('en', ('Drives a white Honda Civic', 'Lives in Shanghai',), "Where'd you get Civic from? I drive a Mazda", 0),  # rhetorical pushback
    ('en', ('Has a golden retriever named Biscuit', 'Lives in Shanghai',), "Biscuit lives with my parents now, our new flat doesn't allow dogs", 0),  # pet rehomed
    ('en', ('Birthday is March 14', 'Lives in Shanghai',), "my birthday's the 16th of March, not the 14th", 0),  # date wrong
    ('en', ('Is 34 years old', 'Lives in Shanghai',), "I'm 36 actually", 0),  # age wrong
    ('en', ('Prefers oat milk in coffee', 'Lives in Shanghai',), 'I switched to black coffee, no milk at all', 0),  # milk dropped
    ('en', ('Works at ByteDance as a product manager', 'Lives in Shanghai',), 'Quit ByteDance to freelance, best decision ever', 0),  # quit
    ('en', ('Goes to the gym on weekday mornings', 'Lives in Shanghai',), 'Gym is a thing of the past, I run outside every morning now', 0),  # thing of the past
    ('en', ('Lives in London', 'Works at ByteDance as a product manager',), "We're in Manchester now, London got too expensive", 0),  # city changed
    ('en', ('Is vegetarian', 'Lives in Shanghai',), 'I eat meat again, the vegetarian thing lasted two years', 0),  # diet ended
    ('zh', ('我养了一只猫叫咪咪', '我住在北京朝阳区',), '咪咪去年走了，现在家里没有猫了', 0),  # 猫去世
    ('zh', ('在杭州工作', '我养了一只猫叫咪咪',), '我已经不在杭州工作了，回老家成都了', 0),  # 已经不在
    ('zh', ('我住在北京朝阳区', '我养了一只猫叫咪咪',), '早就搬离朝阳了，现在住通州', 0),  # 搬离
    ('zh', ('我在字节跳动工作', '我住在北京朝阳区',), '字节我去年就离职了，现在在腾讯', 0),  # 离职
    ('zh', ('在美团做产品经理', '我住在北京朝阳区',), '美团那边我不干了，跳槽去了拼多多', 0),  # 不干了
    ('zh', ('我不吃辣', '我住在北京朝阳区',), '我现在能吃辣了，在四川待了两年练出来的', 0),  # 能吃辣了
    ('zh', ('我开一辆白色的丰田', '我住在北京朝阳区',), '丰田卖了，换了辆比亚迪', 0),  # 车换了
    ('zh', ('用的是华为手机', '我住在北京朝阳区',), '我换苹果了，华为那台给我妈了', 0),  # 手机换了
    ('zh', ('女儿在实验小学上三年级', '我住在北京朝阳区',), '女儿升四年级了', 0),  # 升年级
    ('zh', ('每周去三次健身房', '我住在北京朝阳区',), '健身房我不去了，改成在家跳操', 0),  # 不去了
    ('zh', ('每天早上喝一杯咖啡', '我住在北京朝阳区',), '咖啡戒了，现在早上喝豆浆', 0),  # 戒了
    ('zh', ('我今年30岁', '我住在北京朝阳区',), '我31了，你记的是去年的', 0),  # 年龄
    ('zh', ('儿子叫乐乐', '我住在北京朝阳区',), '儿子叫乐天，不叫乐乐', 0),  # 名字错
    ('zh', ('我住在杭州滨江', '我养了一只猫叫咪咪',), '滨江那套房子卖了，搬到西湖区了', 0),  # 搬家
    ('zh', ('每天喝一杯奶茶', '我住在北京朝阳区',), '奶茶早不喝了，太胖了', 0),  # 早不喝了
    ('zh', ('男朋友叫阿杰', '我住在北京朝阳区',), '我跟阿杰分手了', 0),  # 分手
    ('zh', ('我住在北京朝阳区', '我养了一只猫叫咪咪',), '不对，我住海淀，不是朝阳', 0),  # 不对
    ('zh', ('在杭州工作', '我养了一只猫叫咪咪',), '我现在在上海工作，杭州那边的工作辞了', 0),  # 换城市工作
    ('zh', ('我今年30岁', '我住在北京朝阳区',), '我今年32岁，不是30', 0),  # 年龄错
    ('zh', ('我开一辆白色的丰田', '我住在北京朝阳区',), '我现在开的是特斯拉', 0),  # 新车
    ('zh', ('女儿在实验小学上三年级', '我住在北京朝阳区',), '女儿转学了，现在在外国语学校', 0),  # 转学
    ('zh', ('男朋友叫阿杰', '我住在北京朝阳区',), '我男朋友现在叫小林，阿杰是前任', 0),  # 新男友
    ('zh', ('我在字节跳动工作', '我住在北京朝阳区',), '字节？那是以前了，现在自己创业', 0),  # 那是以前
    ('zh', ('每周去三次健身房', '我住在北京朝阳区',), '每周三次？现在一周能去一次就不错了', 0),  # 频率变了
]

LOOK_ALIKES: list[Case] = held_out_cases(_LOOK_ALIKES, False, REVIEW3)
CORRECTIONS: list[Case] = held_out_cases(_CORRECTIONS, True, REVIEW3)


# What the three deciders (grammar alone, as the tests run them) still get wrong on this corpus,
# 2026-12-06 after the narrowing: tests/core/test_review3.py checks the lists stay exactly these, so a
# fix or a regression shows. bench/corrections.py reports the same with the classifier.
STILL_TAKEN = frozenset({
    'We moved desks at work, I sit by the window next to my manager now',
    'i moved teh couch and found biscuits old squeaky toy lol',
    'i sold teh old bike, the civic is enough for us',
    "I quit sugar in my coffee, that's the only change",
    'I put it down and Biscuit ran off with my sock',
    'No more meetings on Fridays at ByteDance, finally someone listened',
    "Book the table for 7, not 8, Anna's running late",
    'Actually, Mia wants pancakes now, not waffles',
    'Actually my manager wants the roadmap by Friday now, not end of month',
    'For the record, Anna picked the name Biscuit, not me',
    "Just so you know, I'm not a morning person at all, the gym at 7 is pure willpower",
    "I'm not exactly a morning person, but the gym at 7 works for me",
    "I'm a nurse, not a doctor, people always assume",
    "I used to hate coffee, now I can't function without my three cups",
    'Mia used to be scared of dogs, now she begs me for a puppy',
    "Biscuit doesn't fit in his old bed anymore, he's massive",
    "I don't know what ByteDance wants from us anymore, the goals change every week",
    'Biscuit is no longer allowed on the sofa after the cushion incident',
    "Honestly that was years ago, Mia doesn't even remember the hospital stay",
    'Mia broke up with her best friend at recess, drama at 9 years old',
    'The café was out of oat milk so I got almond instead',
    'Went to the gym in the evening instead, the 7am class was full',
    "I've worked from home since the pandemic, ByteDance is pretty flexible about it",
    "I've loved coffee since uni",
    'I eat way more dumplings now that I live in Shanghai',
    'Tweet idea: I quit my job to raise alpacas',
    'Home is Anna and Biscuit, wherever we are',
    "I'm living in Figma these days, three launches in a month",
    'I live in Notion honestly, every thought goes there',
    'We moved to Slack from Teams at work',
    "I work for Anna basically, she's the boss at home lol",
    'My car is a Tardis inside, so much room',
    "I'm really into padel these days, watching it on TV",
    "I'm studying French cooking now, the sauces are brutal",
    'I live in Pudong, near Century Park',
    'My place is in Hackney Wick actually, right by the canal',
    'I drink water instead of soda at lunch',
    'ok so long story but basically my sister-in-law visited, we took the Civic to the coast, Biscuit threw up in the back seat twice, and now the whole car smells like dog, any tips for getting that out',
    'bytedance现在卷得要死',
    '组里又有人离职了，我压力好大',
    '咪咪已经不怕生了，客人来了也不躲',
    '女儿已经不用我接送了，自己坐公交上学',
    '我没用过华为的折叠屏，价格劝退',
    '我现在每天都是八点到公司',
    '我搬到了一座没有你的城市 —— 这句歌词写得真好',
    '公司搬到滨江了，离我家更近了',
    '我现在每天坐地铁上班，挺方便的',
    '我们小区的快递站搬到门口了，方便多了',
    '我们公司换了新CEO，风格完全不一样',
    '手机换了张卡，号码没变',
    '我辞职的念头每天都有，但房贷不允许',
    '健身房换了老板，器械全换新了',
    '朝阳区最近改成单双号限行了',
})
STILL_MISSED = frozenset({
    "The Civic's gone, traded it in for a Model 3",
    "Mia's 10 now, she had her birthday last week",
    "I go to the gym after work now, mornings just don't work with the kids",
    'I started eating fish again last year, so pescatarian really',
    'I closed my Monzo account, everything is with Starling',
    "Sold the guitar, I've been learning piano instead",
    "Biscuit lives with my parents now, our new flat doesn't allow dogs",
    "I'm 36 actually",
    'Gym is a thing of the past, I run outside every morning now',
    "We're in Manchester now, London got too expensive",
    '女儿升四年级了',
})
