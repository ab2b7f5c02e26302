"""A corpus for the command grammar (core/commands.py): how people ask Amber to forget or to
remember, and what they say that is neither.

Every sentence here is made up. FORGET and REMEMBER are requests, each with the subject the
grammar must hand on: the thing itself, without politeness ("please", "could you", "请", "麻烦"),
particles ("吧", "好吗", "了", "哦"), memory words ("from your memory", "从记忆里", "the fact
that", "what I told you about", "关于…的记忆") or "for good", "anymore", "以后", "都". NOT_FORGET
and NOT_REMEMBER must produce no command at all.

The corpus was written before the grammar was tuned against it. Each list is split
deterministically: every third item (index 2, 5, 8, ...) is "held_out" and must not be used for
tuning; the rest is "tune". Report the two splits separately (bench/commands.py does). The rows
marked "second round" were written after the grammar's first version and measured once, blind,
before it was changed (bench/README.md gives those figures).

Decisions the corpus encodes:
- A polite question that asks for the act is a request ("Can you forget my passport number?",
  "能忘掉我的地址吗"); a question about memory is not ("Did you forget my birthday?", "你忘了我的
  生日吗？", "Do you remember the trip?", "Can you forget things?").
- A dismissal is not a request: "forget it, let's move on", "算了，忘了吧", "Forget the train,
  let's drive" name nothing of the person's to withdraw. A forget acts only on something about
  the speaker ("my …", "I …", "我…"): erasing is irreversible, so "忘记过去才能向前看" or "把他忘了
  吧" (advice) must not erase memories that happen to match "the past" or "him".
- "Delete/remove/erase X" is a forget only with a memory word ("from your memory", "what you know
  about", "从记忆里", "你记住的"): "delete the file from the repo" and "remove my name from the
  mailing list" are about other things.
- A reminder is not a memory request: "Remember to buy milk", "don't forget to call mum", "记得
  带伞", "别忘了明天开会" produce no command (an extraction job may still learn from them);
  "Don't forget that I'm allergic to shellfish" states a fact and is a remember.
- Out of scope for a grammar (they need the conversation or an account-level verb): "forget what
  I just said", "forget this conversation", "forget everything". They are in neither list.
"""

from __future__ import annotations

from dataclasses import dataclass

TUNE = "tune"
HELD_OUT = "held_out"


@dataclass(frozen=True)
class Case:
    text: str
    action: str | None  # "forget" | "remember" | None (no command)
    subject: str  # what the grammar must extract; "" when no command
    lang: str
    split: str


def _split(index: int) -> str:
    return HELD_OUT if index % 3 == 2 else TUNE


def _requests(action: str, rows: list[tuple[str, str, str]]) -> list[Case]:
    return [Case(text=t, action=action, subject=s, lang=lang, split=_split(i)) for i, (lang, t, s) in enumerate(rows)]


def _others(rows: list[tuple[str, str]]) -> list[Case]:
    return [Case(text=t, action=None, subject="", lang=lang, split=_split(i)) for i, (lang, t) in enumerate(rows)]


# (lang, message, subject)
_FORGET_ROWS: list[tuple[str, str, str]] = [
    # --- the examples
    ("en", "forget my address", "my address"),
    ("en", "Can you forget my passport number?", "my passport number"),
    ("en", "Forget my phone number please.", "my phone number"),
    ("en", "Delete my car plate from your memory.", "my car plate"),
    ("zh", "把我的地址忘掉", "我的地址"),
    ("zh", "忘掉我的电话号码吧", "我的电话号码"),
    # --- English: plain and polite
    ("en", "forget that I live in Beijing", "I live in Beijing"),
    ("en", "Please forget my home address.", "my home address"),
    ("en", "Could you forget my old phone number?", "my old phone number"),
    ("en", "Could you please forget that I work at Acme?", "I work at Acme"),
    ("en", "Hey, could you please forget my ex's name?", "my ex's name"),
    ("en", "I'd like you to forget my address.", "my address"),
    ("en", "I want you to forget my salary.", "my salary"),
    ("en", "Would you forget my maiden name, please?", "my maiden name"),
    ("en", "Can you please forget my address? Thanks.", "my address"),
    ("en", "You can forget my old email address now.", "my old email address"),
    ("en", "Feel free to forget my gym schedule.", "my gym schedule"),
    ("en", "Go ahead and forget my old phone number.", "my old phone number"),
    ("en", "Would you mind forgetting my address?", "my address"),
    ("en", "I need you to forget my home address", "my home address"),
    ("en", "pls forget my bank name", "my bank name"),
    ("en", "can u forget my number", "my number"),
    ("en", "FORGET MY ADDRESS", "MY ADDRESS"),
    ("en", "forget my address!!", "my address"),
    ("en", "Forget my address, will you?", "my address"),
    ("en", "Please, forget my name.", "my name"),
    ("en", "Actually, forget my old address.", "my old address"),
    ("en", "OK, please forget that my sister lives in Lisbon.", "my sister lives in Lisbon"),
    ("en", "Hi Amber, forget that I'm allergic to peanuts.", "I'm allergic to peanuts"),
    ("en", "Please forget my address, I've moved.", "my address"),
    ("en", "Could you forget my address and my phone number?", "my address and my phone number"),
    ("en", "forget that my dentist is Dr. Okonkwo.", "my dentist is Dr. Okonkwo"),
    ("en", "Please forget my kids' names for good.", "my kids' names"),
    # --- English: about, what I said, the fact that
    ("en", "forget about my old job", "my old job"),
    ("en", "Forget about my medical condition, please.", "my medical condition"),
    ("en", "Forget everything about my ex.", "my ex"),
    ("en", "Forget what I told you about my salary.", "my salary"),
    ("en", "Sorry, can you forget what I said about my boss?", "my boss"),
    ("en", "Erase what I said about my divorce.", "my divorce"),
    ("en", "Forget I ever mentioned my ex.", "my ex"),
    ("en", "Forget I told you my blood type.", "my blood type"),
    ("en", "Forget that I said I live in Beijing.", "I live in Beijing"),
    ("en", "Forget the fact that I was fired.", "I was fired"),
    # --- English: don't remember, stop remembering, don't keep
    ("en", "Don't remember that I'm pregnant.", "I'm pregnant"),
    ("en", "Please don't remember my credit score.", "my credit score"),
    ("en", "Please stop remembering my birthday.", "my birthday"),
    ("en", "Stop remembering where I live.", "where I live"),
    ("en", "Could you stop remembering that I live alone?", "I live alone"),
    ("en", "I don't want you to remember my address.", "my address"),
    ("en", "No need to remember my dentist's name anymore.", "my dentist's name"),
    ("en", "You don't need to remember my work hours any more.", "my work hours"),
    ("en", "Don't keep my phone number.", "my phone number"),
    ("en", "There's no need to keep my old address.", "my old address"),
    ("en", "Don't store my passport number.", "my passport number"),
    ("en", "Stop storing my location.", "my location"),
    # --- English: delete / remove / erase ... from your memory
    ("en", "Remove my address from your memory.", "my address"),
    ("en", "Wipe my home address from your memory.", "my home address"),
    ("en", "Can you erase my phone number from memory?", "my phone number"),
    ("en", "Please delete my passport number from your memories.", "my passport number"),
    ("en", "Remove the fact that I smoke from your memory.", "I smoke"),
    ("en", "Get rid of my address from your memory.", "my address"),
    ("en", "Take my phone number out of your memory.", "my phone number"),
    ("en", "Erase my birthday from your memory please", "my birthday"),
    ("en", "Delete everything you know about my ex.", "my ex"),
    ("en", "Please erase everything you remember about my ex.", "my ex"),
    ("en", "Clear your memory of my address.", "my address"),
    ("en", "Please delete your memory of my phone number.", "my phone number"),
    ("en", "Can you remove what you remember about my health?", "my health"),
    ("en", "Drop my old address from your memory.", "my old address"),
    ("en", "Could you delete my home address from your memory, please?", "my home address"),
    # --- Chinese: plain, polite, questions, particles
    ("zh", "忘掉我住在北京这件事", "我住在北京这件事"),
    ("zh", "忘记我的生日是五月三日", "我的生日是五月三日"),
    ("zh", "请忘了我的地址好吗", "我的地址"),
    ("zh", "能忘掉我的地址吗？", "我的地址"),
    ("zh", "你能不能忘了我的身份证号？", "我的身份证号"),
    ("zh", "可以忘记我的车牌号吗", "我的车牌号"),
    ("zh", "请把我的电话号码忘掉。", "我的电话号码"),
    ("zh", "麻烦你忘掉我的家庭住址", "我的家庭住址"),
    ("zh", "帮我把我前任的名字忘了吧", "我前任的名字"),
    ("zh", "请忘记我在医院工作", "我在医院工作"),
    ("zh", "忘了我的电话号码吧", "我的电话号码"),
    ("zh", "能不能把我的地址忘了？", "我的地址"),
    ("zh", "可不可以忘记我住在上海", "我住在上海"),
    ("zh", "请你忘记我的年龄", "我的年龄"),
    ("zh", "嗨，请帮我忘掉我的手机号", "我的手机号"),
    ("zh", "好的，忘掉我的旧邮箱吧", "我的旧邮箱"),
    ("zh", "对了，请忘记我的工资数额", "我的工资数额"),
    ("zh", "永远忘掉我的前任吧", "我的前任"),
    ("zh", "彻底忘记我的旧手机号", "我的旧手机号"),
    ("zh", "求你忘了我的地址吧", "我的地址"),
    ("zh", "拜托把我的电话号码忘了", "我的电话号码"),
    ("zh", "请把我住在北京这件事忘了吧", "我住在北京这件事"),
    ("zh", "你可以忘掉我的地址了", "我的地址"),
    ("zh", "我的地址，忘掉吧", "我的地址"),
    ("zh", "我的电话号码请忘记", "我的电话号码"),
    # --- Chinese: don't remember, don't keep
    ("zh", "别记着我的地址了", "我的地址"),
    ("zh", "别再记着我的电话号码了", "我的电话号码"),
    ("zh", "不要再记住我的工作单位", "我的工作单位"),
    ("zh", "不用再记着我的车牌了", "我的车牌"),
    ("zh", "你不需要再记住我的旧地址了", "我的旧地址"),
    ("zh", "以后别记我的体重了", "我的体重"),
    ("zh", "别记住我的银行卡号", "我的银行卡号"),
    ("zh", "不要记录我的身份证号码", "我的身份证号码"),
    ("zh", "别保存我的家庭住址", "我的家庭住址"),
    ("zh", "请别再记得我的生日了", "我的生日"),
    ("zh", "能不能别再记着我的工资了？", "我的工资"),
    # --- Chinese: delete ... from memory
    ("zh", "把我的地址从记忆里删掉", "我的地址"),
    ("zh", "请把我的护照号从你的记忆中删除", "我的护照号"),
    ("zh", "从你的记忆里删掉我的地址", "我的地址"),
    ("zh", "删掉你记住的我的电话号码", "我的电话号码"),
    ("zh", "把关于我前任的记忆都删了", "我前任"),
    ("zh", "把我的病史从记忆中抹掉", "我的病史"),
    ("zh", "删除关于我体重的记忆", "我体重"),
    ("zh", "把我家的地址从你的记忆里清除掉", "我家的地址"),
    ("zh", "请忘掉关于我老板的事", "我老板"),
    # --- Chinese, traditional script
    ("zh", "請忘記我的地址", "我的地址"),
    ("zh", "請把我的電話號碼忘掉", "我的電話號碼"),
    ("zh", "別再記著我的地址了", "我的地址"),
    ("zh", "從你的記憶中刪除我的地址", "我的地址"),
    # --- second round, written after the grammar's first version and measured once, blind
    ("en", "Could you forget my son's school name?", "my son's school name"),
    ("en", "please forget that my mother has dementia", "my mother has dementia"),
    ("en", "Amber, forget my wife's phone number.", "my wife's phone number"),
    ("en", "I'd prefer you forget my home address.", "my home address"),
    ("en", "Can you not remember my weight?", "my weight"),
    ("en", "Forget my pin code please", "my pin code"),
    ("en", "Kindly forget my date of birth.", "my date of birth"),
    ("en", "would you please forget about my surgery", "my surgery"),
    ("en", "Scratch my old address from your memory.", "my old address"),
    ("en", "Forget anything I said about my landlord.", "my landlord"),
    ("en", "Forget my old office address, it's wrong now.", "my old office address"),
    ("en", "Can you forget where I work?", "where I work"),
    ("en", "Please remove my health info from memory.", "my health info"),
    ("en", "Don't remember my license plate, please.", "my license plate"),
    ("en", "Could you erase the memory of my ex's address?", "my ex's address"),
    ("en", "Forget my email, thanks!", "my email"),
    ("en", "Please stop keeping track of my location.", "my location"),
    ("en", "just forget my last name", "my last name"),
    ("en", "hey amber can you forget my work schedule", "my work schedule"),
    ("en", "Forget that my brother is in prison.", "my brother is in prison"),
    ("zh", "请忘掉我的生日", "我的生日"),
    ("zh", "能把我的邮箱地址忘了吗", "我的邮箱地址"),
    ("zh", "忘掉我在哪上班吧", "我在哪上班"),
    ("zh", "麻烦把我的住址从记忆里删除", "我的住址"),
    ("zh", "别再记我的手机号了", "我的手机号"),
    ("zh", "请你不要记住我的体重", "我的体重"),
    ("zh", "你把我的车牌号忘了吧", "我的车牌号"),
    ("zh", "帮我忘记我儿子的学校", "我儿子的学校"),
    ("zh", "忘了我的工作地点吧，谢谢", "我的工作地点"),
    ("zh", "请删掉关于我病情的记忆", "我病情"),
    ("zh", "不要再保存我的地址了", "我的地址"),
    ("zh", "把我的生日忘掉好不好", "我的生日"),
    ("zh", "我的体重，请别记着", "我的体重"),
    ("zh", "请忘记我说过我住在广州", "我住在广州"),
    ("zh", "忘记我的前男友吧", "我的前男友"),
]

# (lang, message): not a forget request; no command at all
_NOT_FORGET_ROWS: list[tuple[str, str]] = [
    # --- the and the brief's examples
    ("en", "I forgot my keys"),
    ("en", "don't forget to call mum"),
    ("zh", "忘了带伞"),
    ("en", "I always forget names"),
    ("en", "Did you forget what I said?"),
    ("en", "forget it, let's move on"),
    ("en", "delete the file from the repo"),
    ("en", "remove the item from my cart"),
    ("en", "Remember to buy milk"),
    ("zh", "我忘记密码了"),
    ("zh", "别忘了明天开会"),
    # --- English: statements about forgetting
    ("en", "I forgot my keys again this morning!"),
    ("en", "My grandma is starting to forget things."),
    ("en", "Forgetting things is normal as you get older."),
    ("en", "I'll never forget my first day at school."),
    ("en", "I tried to forget my ex but I can't."),
    ("en", "I keep forgetting my phone number, what is it again?"),
    ("en", "I'm trying to forget my ex."),
    ("en", "Forgot my umbrella at the office."),
    ("en", "forgot to mention, my flight is at 9"),
    ("en", "Forgetful me, I left the stove on."),
    ("en", "Forget-me-nots are blooming in the garden."),
    ("en", "Forgive me, I was late."),
    ("en", "I don't remember my password."),
    # --- English: reminders
    ("en", "don't forget to water the plants while I'm away"),
    ("en", "Let's not forget the budget review."),
    ("en", "Don't you forget my birthday this year!"),
    ("en", "Don't forget your umbrella!"),
    ("en", "Don't forget me."),
    # --- English: questions about forgetting
    ("en", "Did you forget my birthday?"),
    ("en", "Have you forgotten my address already?"),
    ("en", "Do you ever forget things?"),
    ("en", "Can you forget things?"),
    ("en", "Did I forget to tell you about my new job?"),
    ("en", "How do I make Chrome forget my password?"),
    ("en", "Why do I forget my dreams so quickly?"),
    ("en", "Will you forget this conversation when I close the tab?"),
    ("en", "Forget what?"),
    # --- English: dismissals
    ("en", "Forget it."),
    ("en", "Oh, forget it, never mind."),
    ("en", "Forget about it, it doesn't matter."),
    ("en", "Never mind, forget I asked."),
    ("en", "Forget the train, let's drive."),
    ("en", "Forget the old plan, we'll use the new one."),
    ("en", "Forget about the deadline for now, focus on the design."),
    ("en", "Forget you!"),
    # --- English: deleting other things
    ("en", "Delete this email draft."),
    ("en", "Remove the last paragraph from the essay."),
    ("en", "Can you delete the duplicate rows from the table?"),
    ("en", "Erase the whiteboard before the meeting."),
    ("en", "Remove my name from the mailing list."),
    ("en", "Please delete my account."),
    ("en", "Clear my calendar for Friday."),
    ("en", "Could you remove the stain from my shirt?"),
    ("en", "Remove the duplicates from memory before saving."),
    ("en", "Clear the cache from memory."),
    ("en", "How do I delete a variable from memory in Python?"),
    # --- Chinese: statements and reminders
    ("zh", "不要忘记给妈妈打电话"),
    ("zh", "我老是忘事"),
    ("zh", "我忘了他叫什么名字"),
    ("zh", "昨天忘了吃药"),
    ("zh", "忘带钥匙了"),
    ("zh", "别忘记锁门"),
    ("zh", "千万别忘了带护照"),
    ("zh", "我差点忘了今天是她生日"),
    ("zh", "她总是忘东忘西"),
    ("zh", "忘不了那天的风景"),
    ("zh", "忘记过去才能向前看"),
    ("zh", "忘了告诉你，我明天不来了"),
    ("zh", "别把钥匙忘在车里"),
    ("zh", "我把伞忘在公司了"),
    ("zh", "别忘了吃早饭"),
    ("zh", "我不记得我把车停哪了"),
    ("zh", "我忘了我的地址怎么写"),
    ("zh", "忘性越来越大了"),
    ("zh", "不要忘了我们的约定"),
    # --- Chinese: questions
    ("zh", "你忘了我的生日吗？"),
    ("zh", "你是不是忘了我说的话？"),
    ("zh", "忘记密码了怎么办？"),
    ("zh", "你会忘记我们的对话吗？"),
    ("zh", "怎么才能忘记一个人"),
    ("zh", "你是不是把我的地址忘了？"),
    ("zh", "忘了我是谁吗？"),
    # --- Chinese: dismissals and advice
    ("zh", "算了，忘了吧"),
    ("zh", "把他忘了吧，他不值得"),
    ("zh", "忘了它吧，都过去了"),
    # --- Chinese: deleting other things
    ("zh", "删掉这个文件"),
    ("zh", "把购物车里的东西删掉"),
    ("zh", "把这段代码删掉"),
    ("zh", "请删除第二段"),
    ("zh", "删除这条微信消息"),
    ("zh", "从购物车里删掉这件衣服"),
    ("zh", "清除浏览器的缓存"),
    # --- second round, written after the grammar's first version and measured once, blind
    ("en", "I forgot to pay the electricity bill."),
    ("en", "Don't forget to send the invoice."),
    ("en", "Did you forget to include the link?"),
    ("en", "Forget Paris, let's go to Rome."),
    ("en", "forget the details, what's the big picture?"),
    ("en", "Please delete the second bullet point."),
    ("en", "Remove the background from my photo."),
    ("en", "Erase the last line and try again."),
    ("en", "Why do people forget their dreams?"),
    ("en", "It's easy to forget my age sometimes."),
    ("en", "Can I make you forget things?"),
    ("en", "Forgetting my wallet was the worst part."),
    ("en", "you forgot my name again"),
    ("en", "Forget about my feelings, just answer the question."),
    ("en", "Don't remember? That's fine."),
    ("zh", "我又忘了带钥匙"),
    ("zh", "别忘了交作业"),
    ("zh", "忘了关灯了"),
    ("zh", "你忘了回复我"),
    ("zh", "不要忘记吃药"),
    ("zh", "忘记他吧"),
    ("zh", "把垃圾删掉"),
    ("zh", "删除我的账号"),
    ("zh", "从相册里删掉这张照片"),
    ("zh", "你还记得我的地址吗"),
    ("zh", "我忘了我的车停在哪"),
    ("zh", "记得把门锁上"),
    ("zh", "忘掉烦恼，好好休息"),
    ("zh", "别记仇"),
    ("zh", "能忘记过去吗？"),
]

_REMEMBER_ROWS: list[tuple[str, str, str]] = [
    ("en", "Remember that my cat is called Miso.", "my cat is called Miso"),
    ("en", "please remember: I'm allergic to peanuts", "I'm allergic to peanuts"),
    ("en", "remember my favourite tea is genmaicha", "my favourite tea is genmaicha"),
    ("en", "Note to self: buy milk", "buy milk"),
    ("en", "note that my train is at 9", "my train is at 9"),
    ("en", "Make a note: dentist on Friday", "dentist on Friday"),
    ("en", "Remember: what matters most to me is family", "what matters most to me is family"),
    ("en", "Remember that when it rains I get migraines", "when it rains I get migraines"),
    ("en", "Keep in mind that I'm vegetarian.", "I'm vegetarian"),
    ("en", "Please keep in mind I work night shifts.", "I work night shifts"),
    ("en", "Can you remember that my wife's name is Ana?", "my wife's name is Ana"),
    ("en", "Could you please remember that I prefer metric units?", "I prefer metric units"),
    ("en", "I'd like you to remember that I'm left-handed.", "I'm left-handed"),
    ("en", "I want you to remember that my son was born in May.", "my son was born in May"),
    ("en", "Don't forget that I'm allergic to shellfish.", "I'm allergic to shellfish"),
    ("en", "Hey, remember that I moved to Lisbon.", "I moved to Lisbon"),
    ("en", "Remember, I don't eat pork.", "I don't eat pork"),
    ("en", "Please remember that my daughter's school is St Mary's.", "my daughter's school is St Mary's"),
    ("en", "Save this to your memory: my blood type is O+.", "my blood type is O+"),
    ("en", "Store this in memory: my locker is number 42", "my locker is number 42"),
    ("en", "Memorize that my employee number is 4471.", "my employee number is 4471"),
    ("zh", "记住：我对花生过敏", "我对花生过敏"),
    ("zh", "请记住我下周去上海出差", "我下周去上海出差"),
    ("zh", "帮我记住我的车牌是京A12345", "我的车牌是京A12345"),
    ("zh", "记一下，我女儿叫小米", "我女儿叫小米"),
    ("zh", "帮我记下来：周五看牙医", "周五看牙医"),
    ("zh", "你要记住我不吃辣", "我不吃辣"),
    ("zh", "请你记住我是素食者", "我是素食者"),
    ("zh", "能记住我对青霉素过敏吗？", "我对青霉素过敏"),
    ("zh", "记住我的生日是五月三日哦", "我的生日是五月三日"),
    ("zh", "记着，我住在杭州", "我住在杭州"),
    ("zh", "记得我对猫毛过敏", "我对猫毛过敏"),
    ("zh", "请记下：我的血型是O型", "我的血型是O型"),
    ("zh", "记住我老婆叫小丽，好吗？", "我老婆叫小丽"),
    ("zh", "麻烦记住我每周三晚上上课", "我每周三晚上上课"),
    ("zh", "嗨，记住我搬到深圳了", "我搬到深圳了"),
    ("zh", "請記住我對花生過敏", "我對花生過敏"),
    # --- second round, written after the grammar's first version and measured once, blind
    ("en", "Remember that I'm diabetic.", "I'm diabetic"),
    ("en", "Please note that my flat number is 12B.", "my flat number is 12B"),
    ("en", "Could you remember that my partner is called Sam?", "my partner is called Sam"),
    ("en", "Keep in mind my budget is 500 euros.", "my budget is 500 euros"),
    ("en", "Don't forget: my mum's birthday is June 2.", "my mum's birthday is June 2"),
    ("en", "remember i hate coriander", "i hate coriander"),
    ("zh", "请记住我住在成都", "我住在成都"),
    ("zh", "记住，我不喝酒", "我不喝酒"),
    ("zh", "帮我记一下我的车停在B2层", "我的车停在B2层"),
    ("zh", "你能记住我喜欢喝绿茶吗", "我喜欢喝绿茶"),
    ("zh", "记下来：下周二交报告", "下周二交报告"),
]

_NOT_REMEMBER_ROWS: list[tuple[str, str]] = [
    ("en", "Do you remember my cat?"),
    ("en", "I remember the trip"),
    ("en", "remember me"),
    ("zh", "你还记得我的猫吗？"),
    ("en", "Remember when we went hiking in Wales last summer"),
    ("en", "remember the time we met in Paris"),
    ("zh", "记得我们去年去爬山吗"),
    ("en", "I can't remember her name."),
    ("en", "do you remember the trip?"),
    ("en", "Remember to buy milk."),
    ("en", "remember to call the plumber tomorrow"),
    ("en", "Please remember to lock the door."),
    ("en", "Can you remember things between chats?"),
    ("en", "Do you remember what I told you about my sister?"),
    ("en", "What do you remember about me?"),
    ("en", "I don't remember saying that."),
    ("en", "Remember?"),
    ("en", "Remembering my dad today, he would have been 70."),
    ("en", "Remembrance Day is on Tuesday."),
    ("en", "How do I remember vocabulary better?"),
    ("en", "remember how we used to play chess?"),
    ("en", "Remember that song we heard in Lisbon?"),
    ("en", "Remember that time in Rome when it rained all week."),
    ("en", "Will you remember this tomorrow?"),
    ("en", "Keep in mind that prices may change."),
    ("en", "Noted, thanks."),
    ("en", "Notebook prices went up again."),
    ("zh", "记得带伞"),
    ("zh", "记得给妈妈打电话"),
    ("zh", "我记得你说过要来"),
    ("zh", "你还记得我吗"),
    ("zh", "记不住密码怎么办"),
    ("zh", "还记得那年夏天吗"),
    ("zh", "记住了吗？"),
    ("zh", "记住了"),
    ("zh", "记得吃饭"),
    ("zh", "你能记住多少东西？"),
    ("zh", "你记得我的生日吗"),
    ("zh", "记得上次我们聊的那本书吗"),
    ("zh", "记得早点睡"),
    # --- second round, written after the grammar's first version and measured once, blind
    ("en", "Do you remember my sister's name?"),
    ("en", "remember to bring the charger"),
    ("en", "I remember you told me about it."),
    ("en", "Remember how cold it was last winter?"),
    ("zh", "记得多喝水"),
    ("zh", "你记得我叫什么吗？"),
    ("zh", "记住这个单词的方法有哪些？"),
]

FORGET: list[Case] = _requests("forget", _FORGET_ROWS)
NOT_FORGET: list[Case] = _others(_NOT_FORGET_ROWS)
REMEMBER: list[Case] = _requests("remember", _REMEMBER_ROWS)
NOT_REMEMBER: list[Case] = _others(_NOT_REMEMBER_ROWS)


def split(cases: list[Case], name: str) -> list[Case]:
    return [c for c in cases if c.split == name]
