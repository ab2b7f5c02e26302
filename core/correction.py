"""A correction in the conversation: the person says a memory Amber just injected is wrong, in
English or Chinese ("That's wrong, I moved to Hangzhou", "actually my sister is called Lin, not
Lan", "不对，我已经不在那家公司了", "forget #48213"). Pure: no model call on the hot path.

Two parts decide together:
- the grammar: a marker that something held is wrong or no longer true ("that's wrong", "not
  true anymore", "actually", "not X, Y", "no longer", "不对", "记错了", "其实", "已经不", "不再", "不是
  X"), and no sign the turn is about something else (a question or request to the model, what the
  person meant or asked, something true only today, a confirmation);
- the items injected just before (`Shown`, from the why record, core/why.py): the turn must name
  one by its handle, or be about the person ("I", "my", "我") and share words or a topic (where
  they live, work, names, age, food, pets, family...) with one of them, or share a name with it
  (an English capitalised word; a Chinese word with a strong marker). The best-sharing item is
  the one corrected.

What the grammar cannot know it leaves alone: a plain new statement ("I moved to Hangzhou") is
read by the frames of core/update.py where they can tell the slot and the new value, and is
otherwise extraction's, which supersedes keyed facts; a correction of the assistant's answer
("That's wrong, 7 x 8 is 56") shares nothing with what was injected. The corpus is
tests/core/correction_phrasings.py; bench/corrections.py measures it (tune and held-out apart).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from .recall.lexical import tokenize
from .recall.render import HANDLE_RE, handle_of


@dataclass(frozen=True)
class Shown:
    """An item injected into a recent request: what a correction can refer to."""

    id: str
    text: str
    source: str = "memory"  # "memory" | "message"
    fact_key: str | None = None

    @property
    def handle(self) -> str:
        return handle_of(self.id)


@dataclass(frozen=True)
class Correction:
    target: Shown
    action: str  # "forget": erase it; "supersede": replace it with `statement`; "retract": retire it
    statement: str  # the person's words that replace it ("" for forget and retract)


_V = re.IGNORECASE | re.VERBOSE

_FORGET = re.compile(r"\b(?:forget|delete|remove|erase|drop)\b|忘掉|忘记|忘了|删掉|删除|刪除|去掉", re.IGNORECASE)
# something held is wrong or no longer true: enough with a shared name
_STRONG = re.compile(
    r"""\b(?:that|this|it|which)(?:['’]s|\s+is|\s+was)\s+(?:\w+\s+)?(?:wrong|incorrect|inaccurate|outdated|out\s+of\s+date|old\s+news
          |not\s+(?:right|true|correct|accurate|current|up\s+to\s+date)|no\s+longer\s+(?:true|right|correct|accurate|current)|false)
      | \byou['’]?(?:ve|\s+have)?\s+got\s+.{1,40}?\bwrong\b | \byou['’]re\s+wrong\s+about\s+my\b | ^\W*(?:wrong|incorrect)\b
      | \bnot\s+(?:true|right|correct|accurate)\s+any\s*more\b | \bany\s*more\b | \bno\s+longer\b
      | ^\W*(?:\w+\s+)?correction\s*[:：] | \bthat\s+was\s+true\b.{0,40}\bbut\b
      | \b(?:is|are|was|'s)n['’]t\s+[^,.;]{1,40},\s*(?:it|she|he|they)['’]?(?:s|\s+is|\s+are)\b    # "isn't March 3, it's May 3"
      | \b(?:I|we|she|he)\s+(?:quit|left|sold|broke\s+up|split\s+up|switched|passed\s+away|moved|got\s+rid\s+of|gave\s+up|stopped)\b
      | ,\s*not\s+[^,.;]{1,30}$ | ,\s*not\s+(?:the\s+)?[^,.;]{1,30}[,.;]
      | \byou\s+(?:have|had|['’]ve\s+got|got)\s+.{1,40}?\bwrong\b | \byou(?:['’]ve|\s+have|['’]re|\s+are)?\s+(?:\w+\s+)?(?:mixed|mixing)\s+(?:\w+\s+)?up\b | ^\W*(?:mixed|mixing)\s+(?:\w+\s+)?up\b | \boff\s+by\b
      | \b(?:mistaken|stale|outdated)\b | \bold\s+(?:info|information|news)\b | \bused\s+to\b
      | \b(?:is|are)\s+gone\b | \bhaven['’]t\s+(?:\w+\s+){0,3}since\b | \bnever\s+(?:had|lived|was|were|been|worked|owned)\b
      | \b(?:please\s+)?(?:fix|update|correct)\s+(?:that|this|it)\b | \b(?:has|have|had|got)\s+(?:that|this|it|them)\s+wrong\b
      | \b(?:small|minor|quick)\s+(?:fix|correction)\b | \b(?:was|were)\s+(?:my\s+)?(?:old|former|previous)\b
      | \b(?:ancient|old)\s+history\b | \blong\s+gone\b | \byou['’]re\s+(?:a\s+bit\s+|way\s+|so\s+)?behind\b | \bbehind\s+the\s+times\b
      | \bi\s+(?:never|didn['’]t|did\s+not)\s+(?:said|say)\b | \bnot\s+what\s+i\s+(?:said|told\s+you)\b
      | \byou(?:['’]ve|\s+have)?\s+(?:misheard|misunderstood|misread|confused|conflated|mixed)\b | \byou['’]re\s+(?:confusing|thinking\s+of)\b
      | \bconfus(?:ed|ing)\s+(?:me\s+)?with\b | \bthat['’]s\s+(?:someone|somebody)\s+else\b | \bwrong\s+(?:person|guy|girl)\b | \bthat['’]s\s+not\s+me\b
      | \bupdate\s+(?:your|the)\s+(?:notes?|records?|memory|info)\b | \b(?:that|this|it|things)(?:['’]s|\s+has|\s+have|['’]ve)\s+changed\b
      | \bthat['’]s\s+(?:a\s+bit\s+|way\s+)?off\b | \bthat\s+was\s+(?:years|ages|months|a\s+while|a\s+long\s+time)\s+(?:ago|back)\b
      | 不对|不對|(?:你|您|^|[，,。！!：:\s])(?:都|全|完全|好像|应该|應該|肯定|可能|是)?(?:记|記|说|說|搞|弄)?(?:错了|錯了)
      | (?:你|您|^|[，,。！!：:\s])(?:都|全|完全|好像|应该|應該|肯定|可能|是)?(?:记错|記錯|说错|說錯|搞错|搞錯|弄错|弄錯)
      | (?:^|[，,。！!：:\s])不是(?:的|这样|這樣|那样|那樣)?的?[，,。！!\s] | (?:不是|并不|並不)[^，,。！!？?\s]{1,12}[，,、]?\s*(?:而是|是|叫|在) | 是[^，,。！!？?]{1,12}[，,]\s*不是
      | 不叫|不在[^，,。！!？?\s]{0,12}了|已经不|已經不|早就不|不再
      | (?:^|[，,。！!：:\s]|这|這|那|信息|資訊|记录|記錄|资料|資料)[^，,。]{0,3}(?:过时|過時|过期|過期)
      | 更正|纠正|糾正|离职|離職|辞职|辭職|搬到|搬回|搬去|换了|換了|^\W*错
      | 记反|記反|弄反|搞反|搞混|弄混|记混|記混|以前的事|那是以前|早搬|卖了|賣了|卖掉|賣掉|送人|(?<![我你他她])(?:送给|送給)|转学|轉學|改成
      | 没(?:有)?(?:养|養|住|开|開|用)(?!过(?:这|那|這))|(?<![我你他她])给(?:了|[^，,。\s]{1,4}了)|瞎说|瞎說|胡说|胡說|^\W*哪有(?:啊|呀|哦)?(?:[，,。！!\s]|$)|不准确|不準確|是[^，,。！!？?]{1,12}才(?:对|對)
      | 记岔|記岔|说岔|說岔|搞岔|弄岔|有误|有誤|老黄历|老黃曆|太老了|(?:信息|消息|记录|資料|资料)(?:太|有点)?旧了|(?:信息|消息|记录|資料|资料|这|這|那)[^，,。]{0,3}落(?:后|後)了|早变|早變|不太对|不太對
      | 从没|從沒|从来没|從來沒|没说过|沒說過|以前是|哪还|哪還|没有的事|没这回事|沒這回事|更新一下|修改一下|改一下""",
    _V | re.MULTILINE,
)
# with a handle named, "#48213 is wrong" says enough
_WRONG = re.compile(r"\b(?:wrong|incorrect|not\s+true|untrue|outdated|out\s+of\s+date|no\s+longer\s+true)\b|不对|不對|错|錯|不是真的|过时|過時", re.IGNORECASE)
# softer: "actually", "no,", "其实", "现在...了": needs the person and a shared word or topic
_WEAK = re.compile(r"""^\W*(?:actually|in\s+fact|no(?!\s+(?:worries|problem|probs?|rush|biggie|need|wonder|thanks|offen[cs]e|pressure)\b)|nope|nah)\b|^\W*(?:\w+\s+)?update\s*[:：]|(?:^|[.,;!]\s*)(?:no|nope|nah)\s*[,.!]|\bactually\b|其实|其實|现在|現在|\bscratch\s+that\b|\bwait,?\s+no\b
                   | \bi\s+meant\s+(?:that\s+)?(?:i|i['’]m|my|we)\b | \bfor\s+the\s+record\b | \bto\s+(?:clarify|be\s+clear)\b | \bset\s+the\s+record\s+straight\b
                   | \bheads\s+up\b | \bfyi\b | \bjust\s+so\s+you\s+know\b | \b(?:strike|scrap|disregard|ignore)\s+that\b | \bnot\s+(?:quite|exactly)\b
                   | ^\W*(?:close|almost|nearly)\b[^.]{0,10}\bbut\b""", _V)
# a pushback asked, not a question ("Where did you get that? I'm in Hangzhou"): read as a "no,"
_RHETORIC = re.compile(r"""\b(?:where\s+did\s+you\s+(?:get|hear)|where['’]d\s+you\s+(?:get|hear)|who\s+told\s+you|says\s+who|since\s+when
                         |what\s+makes\s+you\s+think)\b[^?？]{0,30}[?？]""", _V)
# the turn is about something else: a request, what was meant or asked, a passing moment, an opinion
_AWAY = re.compile(
    r"""\?|？|\b(?:can|could|would|will)\s+you\b|\blet['’]?s\b|\bhelp\s+me\b|\bwondering\b|\bi['’]?d\s+(?:love|like)\b
      | \bi\s+(?:meant|mean)\b(?!\s+(?:that\s+)?(?:i|i['’]m|my|we)\b)|\bi\s+(?:asked|was\s+asking|am\s+asking)\b|\bwhat\s+i\s+(?:asked|meant|wanted)\b|\bnot\s+sure\b
      | \b(?:today|tonight|right\s+now|this\s+(?:morning|afternoon|evening|week|time)|at\s+the\s+moment|for\s+now|trip)\b
      | \bi\s+(?:don['’]t\s+)?think\b|\bwould\s+like\b|\btry\s+again\b
      | \bsays\s+(?:you|i)['’]?(?:re|m|\s+am|\s+are)?\s+wrong\b
      | \b(?:if|suppose|supposing|imagine|assuming|what\s+if|in\s+case)\b
      | ^\W*(?:what|how|why|when|where|which|who|should|shall|do|does|did|is|are|can|could|would|will)\b
      | 意思|问|問|今天|今晚|这周|這週|这次|這次|出差|不知道|怎么办|怎麼辦|想问|吗|嗎|一下怎么|觉得|覺得|说你|說你|想换|想要|打算|准备|準備
      | 如果|假如|要是|假设|假設|万一|萬一|是不是|要不要|能不能|会不会|會不會|可不可以|有没有|好不好|(?<!不)对不对|行不行
      | 下个月|下個月|下周|下週|明年|要搬|要去|要换|要換|暂时|暫時|临时|臨時|这个月|這個月|这段时间|过完年|年后|换作|換作
      | \b(?:rental|loaner|borrow\w*|while|until|during|repair\w*|in\s+the\s+shop|later|jk|just\s+kidding|apparently|in\s+another\s+life|picture\s+this)\b
      | ^\W*(?:say|had\s+i)\b
      | ['’]s\s+(?:tyres?|tires?|oil|case|screen|battery|strap|brakes?|seats?|food|bowl|lead|collar)\b|\b(?:switched|moved|changed)\s+(?:the|my|our)\s+\w+\s+(?:to|into)\s+(?:a|an|the)\b
      | 换了个(?:新的)?(?:壳|膜|套|屏|电池|教练|物业)|的(?:壳|膜|屏幕|电池)|把[^，。]{0,6}搬
      | \b(?:stopped|moved|dropped)\s+(?:at|by|the|a|my|into)\b|\bback\s+in\b
      | \bleft\s+(?:early|late|work\s+early|home\s+early)\b|\bleft\s+(?:\w+\s+){1,2}at\s+\d
      | \b(?:left|forgot)\s+(?:my|the|a|an|his|her|our|their)\s+(?:\w+\s+){0,2}(?:at|in|on|behind|outside|by)\s+(?:the|home|work|my|our|his|her)\b
      | \b(?:get|getting|got|be|am|['’]m|is|are|was|were)\s+(?:\w+\s+)?used\s+to\b|\bnot\s+(?:just|only)\b|\bthe\s+days\s+of\b
      | \bnever\s+\w+\s+(?:anywhere|anything|anyone)\b|\bnever\s+(?:had|owned|lived|used)\s+(?:\w+\s+){0,3}before\b
      | \b(?:appointment|dentist|booking|deadline|roadmap|spreadsheet|formula|totals?|calculation|bus\s+times|timetable)\b|\byou\s+(?:made|wrote|gave|built|sent)\b
      | \b(?:tweet|toast|caption|post|speech|lyrics?|poem|slogan)\b[^:]{0,30}:
      | 想象|想像|念头|念頭|梦|夢|简历|簡歷|翻译|翻譯|歌词|歌詞|文案|朋友圈|(?:这|那|這)(?:么|麼|样|樣)(?:大|多|好|差|快|慢|高|低|冷|热|熱|贵|貴|难|難|累|美|远|遠)
      | 换了(?:个|張|张|款|一款|一张|一个|些)?(?:新的?)?(?:猫粮|貓糧|狗粮|狗糧|卡|发型|髮型|头像|頭像|壁纸|壁紙|铃声|鈴聲|密码|密碼|轮胎|輪胎|机油|機油|老板|老闆|CEO|ceo|领导|領導)
      | 把[^，。]{0,8}改|\bgave\s+up\s+(?:on\s+)?trying\b|\bswitched\s+(?:it\s+|(?:my|the)\s+\w+\s+)?(?:off|on)\b|\bmoved\s+(?:desks|\w+['’]s\s+\w+)\b|\b(?:upstairs|downstairs)\b""",
    _V,
)
# words in quotation marks are someone's words, not the person's correction
_QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|\"[^\"]*\"|(?<!\w)'[^']*'(?!\w)|‘[^’]*’")
# someone other than the person (or "you", the assistant) speaks, thinks or changes: their words or news
_PEOPLE_EN = (r"brother|sister|mom|mum|mother|dad|father|friend|colleague|coworker|co-worker|boss|neighbou?r|roommate|doctor|mate|buddy|pal|grandma|grandpa|nan|team"
              r"|partner|wife|husband|son|daughter|parents?|cousin|aunt|uncle|bandmate|teacher|he|she|they")
_PEOPLE_ZH = (r"他们|他們|她们|她們|他|她|哥哥|弟弟|姐姐|妹妹|爸爸|妈妈|媽媽|爸|妈|媽|朋友|闺蜜|閨蜜|同事|老师|老師|邻居|鄰居|室友|老板|老闆|主角|女儿|女兒|儿子|兒子"
              r"|发小|發小|舅舅|舅妈|奶奶|爷爷|爺爺|外婆|外公|姥姥|姥爷|叔叔|阿姨|表哥|表姐|表弟|表妹|堂哥|堂姐|领导|領導|上司|有人"
              r"|公司|小区|小區|健身房|组里|組裡|学校|學校|单位|單位|部门|部門")  # people, and places that have their own news
_REPORTED = re.compile(
    rf"""\b(?!i\b|you\b)[A-Za-z]+\s+(?:says|said|told|tells|thinks|keeps\s+saying|corrected)\b
      | (?<=[\u4e00-\u9fff])(?<![我你瞎胡])(?:说|說|讲|講|认为|認為|以为|以為)  # 瞎说/胡说: 'nonsense'
      | (?:{_PEOPLE_ZH})(?:也)?(?:搞错|搞錯|记错|記錯|弄错|弄錯)""",
    _V,
)
_THEIR_CHANGE = re.compile(
    rf"""\b(?:(?:my|our|his|her)\s+)?({_PEOPLE_EN})\s+(?:no\s+longer|quit|left|sold|moved|switched|stopped|gave\s+up|got\s+rid\s+of
                                                   |lives|works|living|working|is\s+now|started|joined|goes)\b
      | ({_PEOPLE_ZH})(?:的[^，,。\s]{{1,6}})?[^，,。\s]{{0,10}}?(?:已经|已經|早就|不再|换了|換了|卖了|賣了|搬|离职|離職|辞职|辭職|变了|變了|去了|跳槽)""",
    _V,
)
# "actually" praising or restating what is held is no correction ("actually I love it", "其实咪咪很乖")
_PRAISE = re.compile(r"\b(?:love|loves|great|amazing|awesome|nice|good|enjoy|enjoys|fun)\b|喜欢|喜歡|好用|可爱|可愛|很乖|不错|不錯|还行|還行|过得|過得", re.IGNORECASE)
_STILL = re.compile(r"\b(?:still|yes|yeah)\b|还是|還是|仍然|依然|还在|還在", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:not|no|never|n['’]t)\b|不|没|沒", re.IGNORECASE)
# what a correction with only a soft marker needs: a no, a change, or a value put in place of another
_CONTRA = re.compile(
    r"""\b(?:not|no|never|none|n['’]t|any\s*more|now|these\s+days|switched|moved|since|instead|rather)\b
      | 不|没|沒|非|已经|已經|改|换|換|是|叫(?![我你他她它])""",  # 现在 is the soft marker itself, not a contrast
    _V,
)
_CONFIRM = re.compile(r"^\W*(?:that['’]?s\s+right|that\s+is\s+right|correct|right|yes|yep|yeah|exactly|没错|沒錯|对[，,。]|對[，,。]|是的|对的)(?:\W|$)", re.IGNORECASE)
_SELF_EN = re.compile(r"\b(?:i|i['’](?:m|ve|d|ll)|my|me|mine|we|we['’](?:re|ve)|our)\b", re.IGNORECASE)
_SELF_ZH = re.compile(r"我|咱")
# leading words that mark the correction, dropped from the statement kept
_LEAD = re.compile(
    r"""^(?:\W*(?:that['’]?s|that\s+is|this\s+is|it['’]s)\s+(?:\w+\s+)?(?:wrong|incorrect|not\s+(?:right|true|correct)|outdated|old\s+news)
          (?:\s+any\s*more)?\s*[-,.;:!—–]*\s*
        | \W*(?:no|nope|actually|in\s+fact|sadly|wrong\s+\w+|correction|update|not\s+true\s+any\s*more|scratch\s+that|wait|sorry
              |(?:is|was)\s+(?:wrong|incorrect|outdated|out\s+of\s+date|not\s+(?:right|true|correct))|i\s+meant(?:\s+that)?)\b\s*[-,.;:!—–：]*\s*
        | \W*(?:不对|不對|错了|錯了|你记错了|你說錯了|你说错了|搞错了|弄错了|更正一下|更正|纠正一下|其实|其實|这个过时了|那个信息过期了|不对不对
              |过时了|過時了|过期了|過期了|你记反了|记反了|那是以前了|那是以前)
          [\s，,。：:!！]* )+""",
    _V,
)
# a change of the person's situation, said without "I": "咪咪已经不在了", "早就离职了"
_CHANGE_ZH = re.compile(r"已经|已經|早就|不在了|走了|换了|換了|搬|离职|離職|辞职|辭職|不再|去世")
# the old value the person names: "Lin, not Lan", "I'm 36, not 34", "不是王强"
_OLD_VALUE = re.compile(r"\bnot\s+(?:the\s+|a\s+)?([\w'’]{2,})|不是([^\s，,。！!？?]{1,8})", re.IGNORECASE)
_MONTHS = frozenset("january february march april may june july august september october november december monday tuesday "
                    "wednesday thursday friday saturday sunday i".split())
# CJK pairs with a function character say nothing about the topic ("已经", "不在", "我的")
_CJK_FUNCTION = set("的了在是不我你他她它这那個个也都就还還已经經很吗嗎吧呢啊一有没沒说說要会會和与與到把被从從对對过過又才再现現")
_TOPICS: dict[str, tuple[str, ...]] = {
    "home": ("live", "living", "lives", "moved", "move", "moving", "city", "apartment", "flat", "i'm in", "i am in", "based in",
             "house", "rent", "renting", "housemate", "roommate", "flatmate", "mortgage",
             "住", "搬", "城市", "区", "區", "家在", "租房", "合租", "室友", "买了房", "买了套", "房子", "地址"),
    "work": ("work", "works", "working", "job", "company", "employer", "engineer", "quit", "left", "freelanc", "office", "boss",
             "role", "joined", "hired", "promoted", "manager", "director", "shift", "startup", "team",
             "shifts", "nights", "公司", "工作", "上班", "离职", "離職", "辞职", "辭職", "跳槽", "单位", "單位", "字节", "阿里", "职业",
             "做产品", "入职", "升职", "倒班", "夜班", "白班", "门诊"),
    "name": ("called", "name", "named", "叫", "名字"),
    "age": ("years old", "age", "old", "岁", "歲", "年龄", "年齡", "birthday", "生日"),
    "birthday": ("birthday", "born", "生日"),
    "food": ("vegetarian", "vegan", "eat", "meat", "fish", "food", "吃", "辣", "素", "香菜"),
    "drink": ("coffee", "tea", "drink", "decaf", "matcha", "espresso", "latte", "cups", "喝", "咖啡", "茶", "豆浆", "奶茶", "燕麦奶"),
    "pet": ("dog", "cat", "pet", "puppy", "kitten", "rabbit", "greyhound", "狗", "猫", "貓", "宠物", "寵物", "兔子", "柯基", "布偶"),
    "family": ("sister", "brother", "partner", "wife", "husband", "mother", "father", "daughter", "son", "kids", "married",
               "girlfriend", "boyfriend", "哥哥", "弟弟", "姐姐", "妹妹", "女儿", "女兒", "儿子", "兒子", "老婆", "老公", "女朋友", "男朋友"),
    "vehicle": ("drive", "driving", "car", "bike", "cycle", "cycling", "commute", "bus", "train", "civic", "tesla", "honda", "mazda",
                "车", "車", "开车", "骑车", "地铁", "公交", "电动车", "通勤"),
    "phone": ("phone", "iphone", "android", "pixel", "samsung", "galaxy", "nokia", "huawei", "xiaomi", "oneplus",
              "手机", "手機", "华为", "華為", "苹果", "小米", "荣耀", "三星"),
    "school": ("school", "grade", "student", "graduat", "lecture", "uni", "university", "college", "year 1", "year 2", "year 3", "year 4", "year 5", "year 6", "secondary", "degree", "master",
               "小学", "小學", "年级", "年級", "学校", "學校", "研究生", "读研", "读博", "博士", "大学", "本科", "专业", "毕业", "初中", "高中"),
    "sport": ("marathon", "training", "race", "running", "runner", "trail", "jog", "climb", "bouldering", "gym", "swim", "tennis",
              "padel", "badminton", "yoga", "马拉松", "跑步", "健身", "游泳", "羽毛球", "瑜伽", "爬山", "攀岩"),
    "language": ("learning", "japanese", "portuguese", "spanish", "french", "german", "korean", "mandarin", "italian",
                 "日语", "英语", "法语", "西班牙语", "韩语", "德语"),
    "allergy": ("allergic", "allergy", "react", "过敏"),
    "bank": ("bank", "banks", "account", "monzo", "barclays", "hsbc", "santander", "银行", "工资卡", "信用卡", "储蓄卡"),
}


def might_correct(text: str) -> bool:
    """Cheap first look (no memory read): a handle or a correction marker. Most turns stop here."""
    return bool(text) and len(text) <= 2000 and bool(HANDLE_RE.search(text) or _STRONG.search(text) or _WEAK.search(text)
                                                      or _RHETORIC.search(text))


def find_correction(text: str, shown: Sequence[Shown]) -> Correction | None:
    """The correction this user turn makes to one of the items just shown, or None."""
    s = " ".join(text.split())
    if not s or not shown:
        return None
    named = _by_handle(s, shown)
    if named is not None:
        rest = HANDLE_RE.sub(" ", s)
        if _CONFIRM.match(rest):
            return None  # "#k3 没错", "#k3 that's right": the item confirmed
        if _FORGET.search(rest):
            return Correction(named, "forget", "")
        statement = _statement(rest)
        if _about_self(statement) and len(tokenize(statement)) >= 2:
            return Correction(named, "supersede", statement)
        return Correction(named, "retract", "") if _STRONG.search(rest) or _WRONG.search(rest) else None
    s = " ".join(_RHETORIC.sub(" no, ", _QUOTED.sub(" ", s)).split())
    if not s or _REPORTED.search(s) or s.rstrip().endswith((":", "：")):
        return None
    strong = bool(_STRONG.search(s))
    if not (strong or _WEAK.search(s)) or _AWAY.search(s) or _CONFIRM.match(s):
        return None
    if not strong and (not _CONTRA.search(s) or ((_PRAISE.search(s) or _STILL.search(s)) and not _NEGATED.search(s))):
        return None
    statement = _statement(s)
    if not statement:
        return None
    target = _target(statement, _theirs(s, shown), strong)
    return Correction(target, "supersede", statement) if target is not None else None


def near_correction(text: str, shown: Sequence[Shown]) -> Correction | None:
    """What the grammar would take for a correction with its doubts lifted: a marker and an item the
    turn is about, though the turn also reads like a request, a question, a passing moment or a soft
    "actually" with no contrast (the `_AWAY` and soft-marker checks), and a topic shared without a
    name or the person. Never acted on alone: a candidate for the classifier
    (core/correction_model.py) to accept. Quotes, reported speech, someone else's change and
    confirmations stay out, as in `find_correction`; a handle is the grammar's to decide."""
    s = " ".join(text.split())
    if not s or not shown or HANDLE_RE.search(s):
        return None
    s = " ".join(_RHETORIC.sub(" no, ", _QUOTED.sub(" ", s)).split())
    if not s or _REPORTED.search(s) or _CONFIRM.match(s) or not (_STRONG.search(s) or _WEAK.search(s)):
        return None
    statement = _statement(s)
    if not statement:
        return None
    target = _target(statement, _theirs(s, shown), True)
    return Correction(target, "supersede", statement) if target is not None else None


def _theirs(s: str, shown: Sequence[Shown]) -> Sequence[Shown]:
    """News about someone else ("my sister moved") corrects only an item about them."""
    their = _THEIR_CHANGE.search(s)
    if their is None:
        return shown
    who = (their.group(1) or their.group(2)).casefold()
    return [x for x in shown if who in x.text.casefold()]


# A handle acts where the person plainly points at it, as a chat command must open its turn
# (commands.parse_command): in a short turn, near its start, in the person's own words (not inside
# quotes or reported speech), a few at most. Obeyed anywhere, a handle let pasted text (an e-mail,
# a log, a list of numbers sprayed over the 100 000 handles) rewrite or erase the person's memories.
# Product limits, set by hand, not fitted.
HANDLE_TURN_CHARS = 300
HANDLE_LEAD_CHARS = 60
HANDLES_AT_MOST = 3


def pointed_handles(text: str) -> set[str]:
    """The handles ("#48213") a user turn points at, by the rule above; empty when it points at none."""
    s = " ".join(text.split())
    if not s or len(s) > HANDLE_TURN_CHARS:
        return set()
    own = _QUOTED.sub(" ", s)
    found = list(HANDLE_RE.finditer(own))
    handles = {f"#{m.group(1)}" for m in found}
    if not found or found[0].start() > HANDLE_LEAD_CHARS or len(handles) > HANDLES_AT_MOST or _REPORTED.search(own):
        return set()
    return handles


# words a handle forget may carry besides the handles and the verb ("please forget #48213 now, thanks")
_COURTESY = re.compile(r"\b(?:please|pls|plz|that|this|these|it|them|items?|memor(?:y|ies)|one|now|thanks|thank\s+you|and|too|also)\b"
                       r"|请|把|吧|这条|那条|这个|那个|记忆|谢谢|也|和", re.IGNORECASE)


def forgets_by_handle(text: str) -> bool:
    """A turn that only asks to forget items by their handles ("forget #48213", "删除 #48213 #50112"):
    nothing in it is the person's but the command, and the reply to it may repeat what it erases, so
    neither is kept as a turn, as with a "forget …" in words (core/capture.py)."""
    if not pointed_handles(text):
        return False
    rest = HANDLE_RE.sub(" ", text)
    if not _FORGET.search(rest):
        return False
    return re.search(r"\w", _COURTESY.sub(" ", _FORGET.sub(" ", rest))) is None


def _by_handle(s: str, shown: Sequence[Shown]) -> Shown | None:
    handles = pointed_handles(s)
    return next((x for x in shown if x.handle in handles), None) if handles else None


def _statement(s: str) -> str:
    """The person's new words: the turn without the marker it opens with."""
    return _LEAD.sub("", s).strip(" ,，。.;；:：-—–!！") or ""


def _about_self(s: str) -> bool:
    return bool(_SELF_EN.search(s) or _SELF_ZH.search(s))


def _words(text: str) -> set[str]:
    out = set()
    for t in tokenize(text):
        if t.isdigit() or t in _MONTHS:
            continue
        if any("\u3400" <= ch <= "\u9fff" for ch in t) and any(ch in _CJK_FUNCTION for ch in t):
            continue
        out.add(t)
    return out


def _names(text: str) -> set[str]:
    """Capitalised words not opening a sentence (English names: Biscuit, Alex, Acme), folded."""
    found = re.findall(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+)\b", text)
    return {w.casefold() for w in found if w.casefold() not in _MONTHS}


_NUMBER = re.compile(r"\d+")
_AGE_SAID = re.compile(r"\bi(?:['’]m|\s+am)\s+\d{1,3}\b|\bturned\s+\d{1,3}\b"
                       r"|(?:都|已经|快|就|今年)(?:\d{1,3}|[二三四五六七八九]?十[一二三四五六七八九]?)了", re.IGNORECASE)  # "I'm 35": an age without the word


def _topic_pattern(words: tuple[str, ...]) -> re.Pattern:
    """One pattern for a topic's words, as `mentions` reads each: a CJK word anywhere, another as a word's start."""
    cjk = [re.escape(w) for w in words if any("\u3400" <= ch <= "\u9fff" for ch in w)]
    other = [re.escape(w) for w in words if not any("\u3400" <= ch <= "\u9fff" for ch in w)]
    parts = ([r"\b(?:" + "|".join(other) + ")"] if other else []) + cjk
    return re.compile("|".join(parts))


_TOPIC_RE = {name: _topic_pattern(words) for name, words in _TOPICS.items()}


def _topics(text: str) -> set[str]:
    low = text.casefold().replace("’", "'")
    found = {name for name, pattern in _TOPIC_RE.items() if pattern.search(low)}
    return found | {"age"} if _AGE_SAID.search(text) else found


def mentions(low: str, word: str) -> bool:
    """Whether casefolded `low` holds `word`: a CJK word anywhere, another as the start of a word."""
    if any("\u3400" <= ch <= "\u9fff" for ch in word):
        return word in low
    return re.search(r"\b" + re.escape(word), low) is not None


def _target(statement: str, shown: Sequence[Shown], strong: bool) -> Shown | None:
    words, names, topics, me = _words(statement), _names(statement), _topics(statement), _about_self(statement)
    cjk = any("\u3400" <= ch <= "\u9fff" for ch in statement)
    olds = [(a or b).casefold() for a, b in _OLD_VALUE.findall(statement)]
    best, best_score = None, 0.0
    for item in shown:
        shared = words & _words(item.text)
        same_name = names & _names(" " + item.text) | (names & _words(item.text))
        same_topic = topics & _topics(item.text)
        named_old = any(v in item.text.casefold() for v in olds)  # the person names the value Amber holds
        # a new number for the same thing ("应该是30岁" against "28岁"): a value put in place of the one held
        new_number = bool(same_topic) and bool(_NUMBER.findall(item.text)) and bool(set(_NUMBER.findall(statement)) - set(_NUMBER.findall(item.text)))
        ok = (me and (shared or same_topic or named_old)) or bool(same_name) or (strong and bool(same_topic) and (named_old or new_number))
        if cjk and not me and strong and not ok:
            # no "我": a name or the person's family said to have changed ("咪咪已经不在了"), not talk about
            # a thing's attributes ("北京的人口…", "华为的新手机…")
            ok = (len(shared) >= 2 or (bool(shared) and bool(same_topic or _CHANGE_ZH.search(statement)))) \
                and not any(w + "的" in statement for w in shared)
        if not ok:
            continue
        score = 2.0 * len(same_name) + len(shared) + 0.5 * len(same_topic) + 2.0 * named_old
        if score > best_score:
            best, best_score = item, score
    return best
