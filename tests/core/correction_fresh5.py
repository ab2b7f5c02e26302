"""A sixth held-out corpus for correcting a memory in the conversation (core/correction.py), written
blind in one sitting on 2026-12-05 and committed before the grammar, the update frames or anything
else was run on it: every case is held out. Nothing is tuned or trained on these sentences;
bench/corrections.py reports them as their own split ("fresh5"), once.

Every sentence is made up. Same shape as correction_phrasings.py: one user turn and the items
injected into the request just before it; CORRECTIONS name the item they correct (its index in
`shown`), LOOK_ALIKES and ORDINARY must correct nothing. `{h0}`, `{h1}` stand for the handles of
shown items.

CORRECTIONS mix three kinds: pushing back on what was shown in the many ways people do in chat
(sarcasm, a rhetorical question, "that's old", a mix-up with someone else), stating the new value
with no correction word at all, and contrasting the old value with the new one. LOOK_ALIKES reuse
the same words and shapes for someone else's news, a plan or wish, a hypothetical, a question,
pushing back on the assistant or on a fact about the world, a passing moment, a restatement,
a quote, a brand or place as a thing, or a memory with no change. ORDINARY turns are plain chat
about the shown item's topic.
"""

from __future__ import annotations

from correction_phrasings import AGE, BDAY, CAR, COFFEE, DOG, JOB, PARTNER, RUN, SH, SISTER, VEG, ZH_AGE, ZH_BRO, \
    ZH_CAT, ZH_CITY, ZH_DIET, ZH_JOB, ZH_PHONE, ZH_SCHOOL, Case, held_out_cases

FRESH5 = "fresh5"

SON = "Son Theo is in Year 4"
PHONE = "Uses an iPhone 12"
LANGS = "Speaks English and is learning Portuguese"
ALLERGY = "Allergic to shellfish"
DEGREE = "Has a master's in civil engineering"
COMMUTE = "Cycles to work every day"
HOUSING = "Rents a flat with two housemates"
CLIMB = "Goes bouldering on Tuesday and Thursday evenings"
ZH_WIFE = "我老婆叫小雪"
ZH_DOG = "家里养了一条柯基叫豆豆"
ZH_DRIVE = "我每天开车上班"
ZH_ALLERGY = "我对花生过敏"
ZH_RENT = "我在外面租房，和室友合租"
ZH_BADMINTON = "周末喜欢打羽毛球"
ZH_MAJOR = "我大学学的是会计"


def _cases(rows: list[tuple], correcting: bool) -> list[Case]:
    return held_out_cases(rows, correcting, FRESH5)


CORRECTIONS = _cases([
    # English, pushing back on what was shown
    ("en", (DOG, JOB), "Acme? Ha, that ship sailed ages ago. I do backend stuff for a freight startup called Fernway now.", 1),
    ("en", (CAR, AGE), "Where'd you dig that up? The Civic got written off in March, I'm driving a grey Mazda 3 now.", 0),
    ("en", (SH, VEG), "Bit behind the times there, I went back to eating meat over a year ago", 1),
    ("en", (RUN, PARTNER), "Oof, that's a throwback. Alex and I split up in 2023, I'm with Jordan now.", 1),
    ("en", (COFFEE, BDAY), "Three cups?? Not since the heart palpitations. One decaf in the morning, that's my lot.", 0),
    ("en", (SISTER, BDAY), "erm, march 3rd is my sisters birthday, mine's the 19th of november", 1),
    ("en", (DOG, RUN), "You really need to refresh your notes on me. Marathon's off the table, I'm training for a 50k trail race in May.", 1),
    ("en", (SON, LANGS), "Theo in Year 4?? He's starting secondary in September, he's in Year 6 now", 0),
    ("en", (JOB, PHONE), "Oh sure, and I also still have a Nokia brick. I've been on a Pixel 8 since the summer.", 1),
    ("en", (COFFEE, ALLERGY), "Pfft, shellfish hasn't bothered me in years, outgrew it. It's tree nuts I react to now.", 1),
    ("en", (HOUSING, CAR), "Someone hasn't been keeping up 😅 the housemates are gone, it's just me and my girlfriend in the flat", 0),
    ("en", (AGE, JOB), "{h0}'s from two birthdays ago. 36.", 0),
    ("en", (RUN, COMMUTE), "Cycle? In this weather? Gave that up in November, bus all the way now.", 1),
    ("en", (SISTER, PARTNER), "{h0} has a typo in it, she's Lian. L-I-A-N.", 0),
    ("en", (CLIMB, DOG), "Tuesdays and Thursdays was the old schedule, keep up! It's Mondays and Wednesdays since the gym changed its hours", 0),
    # English, the new value and no correction word
    ("en", (COFFEE, SH), "Home's Chengdu these days, been here about eight months.", 1),
    ("en", (DOG, CAR), "We've got a rescue greyhound called Pixie now, Biscuit went to live with my parents on their farm.", 0),
    ("en", (AGE, JOB), "I'm the engineering manager on the payments team now, so way less coding.", 1),
    ("en", (VEG, BDAY), "im fully vegan since january, even gave up honey", 0),
    ("en", (CAR, COFFEE), "Matcha every morning now, coffee makes me way too jittery.", 1),
    ("en", (PARTNER, SISTER), "Dana and I got married in June, so she's officially the wife now!", 0),
    ("en", (SH, RUN), "My marathon's in September, they moved the race date up this year.", 1),
    ("en", (LANGS, JOB), "Dropped Portuguese after a month lol. Spanish with a tutor twice a week now.", 0),
    ("en", (HOUSING, COMMUTE), "I get the train in every day now that we're out in the suburbs.", 1),
    ("en", (SON, AGE), "Theo's in Year 5 this term and he's obsessed with fractions", 0),
    ("en", (DOG, BDAY), "My birthday's March 13th btw, in case you're planning anything 😉", 1),
    ("en", (CLIMB, VEG), "I only climb Saturday mornings now, weeknights are too busy with the baby.", 0),
    ("en", (COMMUTE, HOUSING), "We bought a little terraced house in October, first time not renting!", 1),
    ("en", (PHONE, CAR, DOG), "Got a Galaxy S24 for Christmas and I'm never going back to Apple", 0),
    ("en", (SH, AGE), "Forty next week, send help", 1),
    # English, the old value against the new
    ("en", (DEGREE, PHONE), "The master's is in transport planning, not civil engineering.", 0),
    ("en", (SISTER, ALLERGY), "I'm no longer allergic to shellfish after the immunotherapy, prawns are back on the menu.", 1),
    ("en", (COFFEE, JOB), "It's tea instead of coffee for me now, two mugs of Earl Grey a day.", 0),
    ("en", (DOG, SISTER), "Lan is my cousin; my sister is called Mei.", 1),
    ("en", (CAR, PARTNER, SH), "I don't drive anymore, sold the Civic when we moved into town.", 0),
    ("en", (SH, JOB), "I work at Globex rather than Acme, same backend role though.", 1),
    # Chinese, pushing back on what was shown
    ("zh", (ZH_CAT, ZH_JOB), "字节？那都是前年的事了，我现在在美团做产品。", 1),
    ("zh", (ZH_CITY, ZH_DIET), "哪儿跟哪儿啊，我早搬去杭州了", 0),
    ("zh", (ZH_AGE, ZH_CAT), "咪咪？它去年就送我妈那儿养了，我现在养的是一只兔子，叫糯米", 1),
    ("zh", (ZH_AGE, ZH_BRO), "28？你这资料也太老了吧，我都31了", 0),
    ("zh", (ZH_PHONE, ZH_DIET), "谁说我不吃辣的😂 在成都待了两年，现在无辣不欢", 1),
    ("zh", (ZH_BRO, ZH_SCHOOL), "记错人了吧，王强是我表哥，我亲哥叫王磊", 0),
    ("zh", (ZH_CITY, ZH_SCHOOL), "三年级？孩子都上五年级了好吗", 1),
    ("zh", (ZH_PHONE, ZH_JOB), "{h0}那条得改改，华为早送人了，现在用的小米14", 0),
    ("zh", (ZH_CAT, ZH_WIFE), "哈？小雪是我妹妹，我老婆叫晓琳", 1),
    ("zh", (ZH_ALLERGY, ZH_DRIVE), "嗐，这条早过时了，花生脱敏做完了，现在吃花生酱都没事", 0),
    # Chinese, the new value and no correction word
    ("zh", (ZH_JOB, ZH_CITY), "现在住深圳南山，离公司走路十分钟", 1),
    ("zh", (ZH_JOB, ZH_BRO), "上个月入职了腾讯，还是做后端", 0),
    ("zh", (ZH_DIET, ZH_AGE), "三十二了，时间过得真快", 1),
    ("zh", (ZH_CAT, ZH_PHONE), "家里现在是两只布偶，一只叫奶茶一只叫可可", 0),
    ("zh", (ZH_PHONE, ZH_SCHOOL), "女儿今年转到外国语学校了，读四年级", 1),
    ("zh", (ZH_DOG, ZH_AGE), "豆豆去年走了，家里现在没养狗", 0),
    ("zh", (ZH_CITY, ZH_RENT), "我们去年贷款买了套两居，总算不用跟人合租了", 1),
    ("zh", (ZH_BADMINTON, ZH_JOB), "最近周末都去游泳，羽毛球拍都落灰了", 0),
    ("zh", (ZH_JOB, ZH_MAJOR), "我本科读的是金融哈", 1),
    ("zh", (ZH_WIFE, ZH_CAT), "我跟小雪今年分开了，现在一个人住", 0),
    # Chinese, the old value against the new
    ("zh", (ZH_CITY, ZH_DIET), "胃养好了，现在不再忌辣了", 1),
    ("zh", (ZH_DRIVE, ZH_JOB), "开车？油价这么贵，上班早改成骑电动车了", 0),
    ("zh", (ZH_SCHOOL, ZH_BRO), "我哥叫王刚，不是王强", 1),
    ("zh", (ZH_MAJOR, ZH_ALLERGY), "学的是财务管理，不是会计", 0),
], correcting=True)


LOOK_ALIKES = _cases([
    # English
    ("en", (SH, JOB), "My cousin just moved from Shanghai to Chengdu, she says the food is unreal."),
    ("en", (JOB, AGE), "If Acme ever lays me off I'd probably try a freight startup, honestly."),
    ("en", (CAR, COFFEE), "Thinking about swapping the Civic for a Mazda next year, any thoughts?"),
    ("en", (AGE, BDAY), "No, 34 squared is 1156, not 1056, check again."),
    ("en", (DOG, SISTER), "My sister's dog is called Pixie, she's a greyhound and terrified of cats"),
    ("en", (VEG, RUN), "Nope, tofu isn't made from wheat, it's soy."),
    ("en", (SH, VEG), "In Chengdu for the weekend, what should a vegetarian eat here?"),
    ("en", (PARTNER, SH), "Alex says I'm the messy one, which is rich coming from him."),
    ("en", (COFFEE, JOB), "Decaf today, I've had enough jitters for one week."),
    ("en", (BDAY, AGE), "Yep, still March 3. Keep it that way."),
    ("en", (RUN, DOG), "Would it be mad to switch to a 50k trail race instead? Just wondering."),
    ("en", (SON, LANGS), "Theo's best friend is already in Year 6 and he's super jealous"),
    ("en", (PHONE, CAR), "Which is better for photos, the Pixel 8 or the iPhone 15?"),
    ("en", (ALLERGY, COFFEE), "That's wrong, a shellfish allergy isn't the same thing as an iodine allergy, read up"),
    ("en", (HOUSING, JOB), "One of my housemates is moving out in spring so we'll need to find someone new"),
    ("en", (DEGREE, SH), "My brother just finished his master's in structural engineering!"),
    ("en", (COMMUTE, RUN), "Got the bus today cos of the snow, legs are grateful"),
    ("en", (CLIMB, AGE), "The climbing gym is doing a Monday night comp, might pop along for that one."),
    ("en", (SISTER, PARTNER), "Lan's the name, yes, short for nothing. People always ask."),
    ("en", (JOB, CAR), "haha no, Acme isn't the one that builds rockets, that's a different company"),
    ("en", (VEG, COFFEE), "I wish I could go full vegan but cheese is my weakness"),
    ("en", (AGE, JOB), "Everyone at work thinks I'm 28, which I'll happily take."),
    ("en", (CAR, SH), "Honda just announced a new Civic, the grey one looks sharp"),
    ("en", (DOG, PARTNER), "Remember when Biscuit ate a whole birthday cake? Good times."),
    ("en", (PARTNER, BDAY), "My mate Alex (different Alex) just got engaged to Jordan!"),
    ("en", (SH, JOB), "{h0} is right, still Shanghai, still the same tiny flat."),
    ("en", (PHONE, SON), "{h1}: can you remind me what grade that would be in the US system?"),
    ("en", (LANGS, SH), "If I moved to Lisbon, how long until my Portuguese is conversational?"),
    ("en", (ALLERGY, VEG), "My partner's allergic to tree nuts, not shellfish like me, so our pantry is a minefield"),
    ("en", (COMMUTE, HOUSING), "When we move out to the suburbs next year I'll probably have to take the train"),
    ("en", (RUN, CLIMB), "No, the Berlin marathon is in September, not October, you mixed it up"),
    ("en", (DEGREE, JOB), "Sometimes I think I should've done transport planning instead of civil."),
    ("en", (SON, AGE), "My neighbour's kid Theo, yes another Theo, just started secondary school."),
    ("en", (HOUSING, COFFEE), "Our landlord called it a 'three-bed flat with character', which means damp."),
    ("en", (BDAY, SISTER), "My sister's birthday is the 19th of November, can you remind me two weeks before?"),
    ("en", (CLIMB, DOG), "Is it bad to climb two days in a row? Tuesday and Thursday feels like not enough rest sometimes"),
    # Chinese
    ("zh", (ZH_JOB, ZH_CITY), "我同学刚从字节跳槽去了美团，工资涨了不少"),
    ("zh", (ZH_CITY, ZH_AGE), "下周去杭州出差三天，有什么推荐的吃的吗"),
    ("zh", (ZH_CAT, ZH_DIET), "如果再养一只，你觉得布偶和英短哪个好？"),
    ("zh", (ZH_AGE, ZH_JOB), "不对，28乘以12是336，你算错了"),
    ("zh", (ZH_DIET, ZH_CITY), "朋友说不吃辣去成都会饿死，哈哈，真的假的"),
    ("zh", (ZH_BRO, ZH_SCHOOL), "我哥王强最近换了新工作，去了深圳"),
    ("zh", (ZH_SCHOOL, ZH_PHONE), "实验小学下学期要搬新校区了"),
    ("zh", (ZH_PHONE, ZH_CAT), "华为新出的Mate你觉得值得买吗"),
    ("zh", (ZH_WIFE, ZH_BRO), "小雪说我做饭太咸，我倒觉得刚好"),
    ("zh", (ZH_DOG, ZH_CITY), "以前豆豆小时候老咬拖鞋，现在乖多了"),
    ("zh", (ZH_DRIVE, ZH_JOB), "今天限号，只好坐地铁去公司"),
    ("zh", (ZH_ALLERGY, ZH_DIET), "不对吧，花生不是坚果，是豆科的，你再查查"),
    ("zh", (ZH_RENT, ZH_CITY), "要是明年涨房租，我可能就得考虑买房了"),
    ("zh", (ZH_BADMINTON, ZH_AGE), "要不要也学学游泳呢？听说对膝盖好"),
    ("zh", (ZH_MAJOR, ZH_JOB), "我表妹今年考研，想报会计，问我意见"),
    ("zh", (ZH_CITY, ZH_JOB), "对，还是朝阳区，没搬"),
    ("zh", (ZH_JOB, ZH_AGE), "是啊还在字节，就是最近换了个组，新领导人挺好"),
    ("zh", (ZH_AGE, ZH_CITY), "真希望自己还是二十出头啊"),
    ("zh", (ZH_CAT, ZH_WIFE), "咪咪这名字是我老婆起的，她说叫着顺口"),
    ("zh", (ZH_SCHOOL, ZH_AGE), "女儿同桌跳级去五年级了，她羡慕得不行"),
    ("zh", (ZH_PHONE, ZH_DRIVE), "车最近老出毛病，保养一次一般多少钱？"),
    ("zh", (ZH_DIET, ZH_WIFE), "瞎说，辣不是味觉，是痛觉，这个我看过科普"),
    ("zh", (ZH_BRO, ZH_CITY), "要是我哥也搬来北京就好了"),
    ("zh", (ZH_DRIVE, ZH_RENT), "同事天天骑电动车上班，说比开车快多了"),
], correcting=False)


ORDINARY = _cases([
    # English
    ("en", (DOG, SH), "Biscuit rolled in something disgusting at the park, bath time I guess"),
    ("en", (JOB, COFFEE), "Long day at work, three incidents before lunch."),
    ("en", (SH, AGE), "What's a good day trip from Shanghai for a rainy Saturday?"),
    ("en", (VEG, RUN), "Can you give me a high protein vegetarian dinner that isn't just chickpeas again"),
    ("en", (COFFEE, JOB), "Just ground some beans from that Ethiopian roaster, smells amazing"),
    ("en", (CAR, DOG), "The Civic needs new tyres, what's a reasonable price?"),
    ("en", (BDAY, PARTNER), "Any ideas for a low-key birthday dinner?"),
    ("en", (PARTNER, SISTER), "Alex and I are arguing about paint colours for the hallway again"),
    ("en", (RUN, DOG), "Did 28k this morning. Knees are complaining."),
    ("en", (SISTER, BDAY), "Lan is visiting next weekend, what should we do in town?"),
    ("en", (SON, LANGS), "how do i help theo with long division without us both crying"),
    ("en", (PHONE, JOB), "My phone battery dies by 3pm, any settings I should change?"),
    ("en", (LANGS, SH), "Is Brazilian Portuguese very different from the European kind?"),
    ("en", (ALLERGY, VEG), "Ordering takeaway tonight, help me pick something with zero shellfish risk."),
    ("en", (DEGREE, JOB), "Funny how little of my civil engineering degree I use day to day."),
    ("en", (COMMUTE, RUN), "Got a puncture on the way in. Again."),
    ("en", (HOUSING, PARTNER), "One of the housemates keeps eating my yoghurt. How do I bring it up without being weird?"),
    ("en", (CLIMB, AGE), "Finally sent that purple V4 I've been stuck on!!"),
    ("en", (AGE, BDAY), "Is 34 too late to start learning piano?"),
    ("en", (SH, COFFEE), "The air in Shanghai is nice and clear today for once."),
    ("en", (JOB, SON), "My manager wants a design doc by Friday, can you help me outline it?"),
    ("en", (DOG, CAR), "How often should a dog Biscuit's size get its nails clipped?"),
    ("en", (COFFEE, VEG), "cool, thanks, that helps"),
    ("en", (CAR, COMMUTE), "Does premium petrol actually make any difference for a normal car?"),
    ("en", (RUN, SH), "What should I eat the night before a long run?"),
    ("en", (PARTNER, HOUSING), "Alex made lasagne tonight and it was honestly perfect"),
    ("en", (VEG, SISTER), "My sister keeps sending me bacon memes to tempt me lol"),
    ("en", (LANGS, SON), "Learned the Portuguese word for 'stubborn' today. Very useful with a nine-year-old."),
    ("en", (CLIMB, COFFEE), "What's a good finger strength routine that won't wreck my tendons?"),
    ("en", (BDAY, AGE), "My birthday falls on a Monday next year, which is rubbish."),
    # Chinese
    ("zh", (ZH_JOB, ZH_CITY), "今天加班到十点，累死了"),
    ("zh", (ZH_CITY, ZH_JOB), "朝阳区有什么适合周末遛娃的公园吗"),
    ("zh", (ZH_CAT, ZH_DIET), "咪咪最近掉毛好厉害，是换季了吗"),
    ("zh", (ZH_DIET, ZH_CITY), "推荐几道不辣的川菜吧"),
    ("zh", (ZH_BRO, ZH_AGE), "王强下个月结婚，我该随多少份子钱？"),
    ("zh", (ZH_SCHOOL, ZH_PHONE), "三年级的数学应用题怎么辅导比较好"),
    ("zh", (ZH_PHONE, ZH_JOB), "手机内存又满了，怎么清理微信缓存"),
    ("zh", (ZH_AGE, ZH_CITY), "快三十了，感觉该好好规划一下存钱了"),
    ("zh", (ZH_WIFE, ZH_BRO), "明天是我和小雪的结婚纪念日，送什么好"),
    ("zh", (ZH_DOG, ZH_CAT), "柯基是不是特别容易胖？豆豆最近圆了一圈"),
    ("zh", (ZH_DRIVE, ZH_JOB), "早高峰堵得我想哭"),
    ("zh", (ZH_ALLERGY, ZH_DIET), "外卖备注了不要花生，结果还是放了，气死"),
    ("zh", (ZH_RENT, ZH_CITY), "室友天天半夜打游戏，怎么沟通比较好"),
    ("zh", (ZH_BADMINTON, ZH_AGE), "打羽毛球老是手腕疼，是不是握拍姿势不对"),
    ("zh", (ZH_MAJOR, ZH_JOB), "会计那些知识现在用得上的还真不多"),
    ("zh", (ZH_CAT, ZH_RENT), "嗯嗯好的，谢谢"),
    ("zh", (ZH_JOB, ZH_AGE), "帮我写一份周报，内容是这周修了三个线上bug"),
    ("zh", (ZH_SCHOOL, ZH_CITY), "女儿说想学画画，报个班合适吗"),
    ("zh", (ZH_PHONE, ZH_DRIVE), "华为手机怎么设置驾驶模式"),
    ("zh", (ZH_CITY, ZH_DIET), "北京今天雾霾好重，出门得戴口罩"),
], correcting=False)
