"""A change told in passing on a shown memory's topic (core/changed.py): the shapes it reads in English
and Chinese, the ones that must change nothing, the tune split of the corpus, and arbitrary and hostile
text. The held-out and blind sets are measured by bench/corrections.py, never asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from corrections import TUNE, items, measure, text_of, with_changes, with_updates  # noqa: E402
from correction_phrasings import LOOK_ALIKES  # noqa: E402

from core.changed import change_of, told
from core.correction import Shown, find_correction
from core.update import find_update

COFFEE, CAR, DOG = "Loves coffee, drinks three cups a day", "Drives a blue Honda Civic", "Has a dog named Biscuit"
SH, JOB, GYM = "I live in Shanghai", "Works as a backend engineer at Acme", "Goes to the gym on weekday mornings"
ZH_JOB, ZH_CITY, ZH_SPICY, ZH_CAT = "我在字节跳动工作", "我住在北京朝阳区", "我不吃辣", "我养了一只猫叫咪咪"


def shown(*texts: str) -> list[Shown]:
    return [Shown(id=f"m-{i}", text=t) for i, t in enumerate(texts)]


def found(text: str, *texts: str):
    return change_of(told(text), shown(*texts))


@pytest.mark.parametrize("text, items_, target", [
    ("Herbal tea in the evenings now, coffee wrecks my sleep", (CAR, COFFEE), 1),
    ("The Civic? Sold it last spring, I cycle everywhere now.", (DOG, CAR), 1),
    ("I haven't got Biscuit any more, he lives with my brother now", (DOG, SH), 0),
    ("Gym's evenings for me these days, mornings were killing me", (SH, GYM), 1),
    ("Acme was two jobs ago, I'm at a robotics startup now", (JOB, SH), 0),
    ("ok so I quit the gym and swim at the lido instead", (GYM, COFFEE), 0),
    ("字节？我早就不在那儿了，现在在一家游戏公司", (ZH_CITY, ZH_JOB), 1),
    ("这几年口味重了，现在顿顿都要辣椒", (ZH_CITY, ZH_SPICY), 1),
    ("咪咪去年送给我姐养了，我现在养了一条狗", (ZH_CAT, ZH_JOB), 0),
    ("朝阳那边早搬走了，现在住海淀", (ZH_CITY, ZH_JOB), 0),
    # a value put aside with "not", and the change verbs of a life
    ("Not Acme, it's a robotics startup in Leeds", (SH, JOB), 1),
    ("I'm not in Shanghai, it's Ningbo", (SH, COFFEE), 0),
    ("我学的不是会计，是统计", ("我大学学的是会计", ZH_CITY), 0),
    ("Biscuit passed away in the spring, we have a cat called Olive", (DOG, SH), 0),
    ("just turned 41, feeling ancient", ("I am 40 years old", SH), 0),
    ("Got promoted to lead engineer at Acme in May", (JOB, DOG), 0),
    ("女儿升到五年级了", ("女儿在实验小学上三年级", ZH_CITY), 0),
    # the value was someone else's; the person's own set apart
    ("That's my brother's Civic, mine's a little Fiat", (DOG, CAR), 1),
    ("华为是公司配的，我自己的手机是小米", ("用的是华为手机", ZH_CITY), 0),
    # a long ramble: its news read clause by clause, the request at its end vetoes nothing
    ("long week, the boiler broke and my manager moved every deadline forward, anyway I quit the gym in march and just cycle "
     "to work now, so yeah could you suggest a stretching routine", (SH, GYM), 1),
    ("barclays lol. closed that account after they lost my card twice, I bank with monzo now", (DOG, "Banks with Barclays"), 1),
    ("上周终于搬出来自己住了，在公司附近租了个一居室", ("和爸妈住在一起", ZH_JOB), 0),
])
def test_a_change_on_a_shown_memory_supersedes_it(text, items_, target):
    c = found(text, *items_)
    assert c is not None and c.action == "supersede" and c.target.text == items_[target], c


@pytest.mark.parametrize("text, items_", [
    ("My dad finally sold his Civic, he drives a Kia now", (CAR,)),            # someone else's news
    ("My flatmate switched to decaf these days", (COFFEE,)),
    ("我同事的车卖了，现在坐地铁", ("我开一辆白色的丰田",)),
    ("The gym changed its opening hours again", (GYM,)),                        # a thing's news
    ("Acme's office moved to the docks", (JOB,)),
    ("丰田的新车型改了设计", ("我开一辆白色的丰田",)),
    ("I might switch to tea now that it's winter", (COFFEE,)),                 # a plan
    ("Should I move to evenings at the gym now?", (GYM,)),                      # a question
    ("I'm still at Acme, just switched teams", (JOB,)),                         # something kept
    ("I drink green tea now too", (COFFEE,)),                                   # an addition
    ("Biscuit was so tiny as a puppy, now he's huge", (DOG,)),                 # a story
    ("I drink coffee, three cups a day, now and then a fourth", (COFFEE,)),     # the item said again
    ("我现在还是在字节，换了个组而已", (ZH_JOB,)),
    ("我打算明年换成电车", ("我开一辆白色的丰田",)),
    ('She wrote "I switched to tea now" on her blog', (COFFEE,)),               # quoted
    ("Right now I'm drinking a coffee at my desk", (COFFEE,)),                  # a passing moment
    ("Down to my last bag of coffee beans, remind me to reorder", (COFFEE,)),   # a request
    ("My sister got promoted at Globex!", ("My sister is called Lan",)),        # a relative's news, not her name
    ("不是华为的问题，是网络的问题", ("用的是华为手机",)),                       # "not X's fault" puts no value aside
    ("It's not just coffee I love, tea too", (COFFEE,)),
    ("Nope, the blue jacket is my flatmate's, mine is the black one", (CAR,)),  # "blue" alone is not the car
    ("My sister has a Civic too, mine is older", (CAR,)),
    ("the gym changed its opening hours, doesnt open till 7 now", (GYM,)),        # a thing's, by "its"
    ("hannah's sister just got divorced, she's staying with us for a bit", ("Married to Hannah",)),
    ("Registered for the marathon today. No backing out now!", ("Trains for a marathon in October",)),
])
def test_what_is_not_the_persons_change_changes_nothing(text, items_):
    assert found(text, *items_) is None


# a review's findings: turns that are not the person's change, each of which once replaced a true memory
REVIEWED = [
    ("I'm not allergic to cats though.", "Allergic to peanuts"),
    ("Not allergic to anything else as far as I know.", "Severely allergic to penicillin"),
    ("Not Shanghai again, I swear every memory is about Shanghai lol", "Lives in Shanghai"),
    ("不是字节的锅，是产品经理的。", "我在字节跳动工作"),
    ("Coffee prices have gone up so much now.", COFFEE),
    ("Shanghai is so humid now, I can't stand it.", "Lives in Shanghai"),
    ("Monzo changed their app, it's terrible now.", "Banks with Monzo"),
    ("Apple stopped updating the iPhone 8.", "Uses an iPhone 8"),
    ("杭州现在太热了。", "我住在杭州"),
    ("北京现在堵死了。", ZH_CITY),
    ("现在外卖都好辣。", ZH_SPICY),
    ("Acme announced layoffs, I'm nervous now.", "Works at Acme"),
    ("Lan got married in June!", "My sister is called Lan"),
    ("Mia turned 7 last week!", "Has two kids, Mia and Leo"),
    ("Biscuit is three now", DOG),
    ("咪咪变胖了。", ZH_CAT),
    ("Hannah's boss moved to Seattle now.", "Lives in Boston"),
    ("My son moved to Madrid now.", "Lives in Jacksonville"),
    ("我闺蜜搬到上海了。", "我住在杭州"),
    ("I stopped at the coffee shop on the way in.", COFFEE),
    ("I moved the car to the other side of the street.", CAR),
    ("我把沙发搬到阳台了。", ZH_CITY),
    ("I dropped my phone in the toilet lol.", "Uses an iPhone 12"),
    ("Back in 2015 I sold my first car for £500.", CAR),
    ("I've lived in Shanghai since 2019.", "Lives in Shanghai"),
    ("Yep, three cups a day, no more no less.", COFFEE),
    ("Yeah right, like I'd ever give up coffee now.", COFFEE),
    ("Not quite, the meeting is on March 4, not March 3", "Birthday is on March 3"),
    ("我已经喝了三杯茶了。", "每天喝一杯奶茶"),
    # a second review's: someone or something else as the subject, a passing state, a part of the thing,
    # a hypothetical, hyperbole, another allergy, a restated duration
    ("Hannah switched to decaf now", COFFEE),
    ("Acme switched to Rust for the backend", JOB),
    ("My Civic is in the shop so I'm driving a rental Corolla now", CAR),
    ("手机坏了，现在暂时用我妈的旧小米", "用的是华为手机"),
    ("Just got to Shanghai now after the flight", SH),
    ("我现在在朝阳公园遛弯", ZH_CITY),
    ("咪咪现在每天早上五点叫我起床", ZH_CAT),
    ("My Civic is making a weird rattling noise now", CAR),
    ("I switched the Civic's tyres to winter ones", CAR),
    ("我的华为手机换了个壳", "用的是华为手机"),
    ("Say I moved to Hangzhou, what would rent be", SH),
    ("I drink tea now and then", COFFEE),
    ("I'm allergic to cats now, turns out", "Allergic to peanuts"),
    ("I'm 90% coffee now", COFFEE),
    ("过完年就辞职", ZH_JOB),
    ("我已经在字节工作三年了", ZH_JOB),
    ("I love Shanghai more and more these days", SH),
]


@pytest.mark.parametrize("text, item", REVIEWED)
def test_a_reviews_look_alikes_change_nothing(text, item):
    """Through every decider a turn meets: the grammar, the update frames, the change words."""
    s = shown(item)
    assert find_correction(text, s) is None and find_update(text, s) is None and found(text, item) is None


def test_only_the_sentences_on_the_items_topic_replace_it():
    c = found("Matcha now. Work has been mad, my boss quit.", COFFEE)
    assert c is not None and c.statement == "Matcha now."


def test_a_captured_turn_is_not_replaced():
    turn = Shown(id="t-1", text="Had three coffees before the meeting", source="message")
    assert change_of(told("Tea every morning now, no more coffee"), [turn]) is None


def test_the_change_and_what_follows_replace_the_item_not_the_question_before():
    c = found("Three cups?? Not since the doctor's advice. One decaf in the morning, that's it.", COFFEE)
    assert c is not None and c.statement == "Not since the doctor's advice. One decaf in the morning, that's it."


def test_two_items_on_the_topic_alike_change_nothing():
    """Where the sentence fits two shown memories equally, neither is touched."""
    assert found("I do everything differently now", "Works at Acme", "Works out at the gym") is None


def test_most_turns_stop_at_the_change_words():
    for text in ("Can you help me write a cover letter?", "Biscuit learned to shake hands", "帮我写一首诗", "thanks!", "",
                 "What's the weather like in Paris?", "Now, about that recipe you gave me"):
        assert told(text) == []


def test_the_tune_split_gains_and_no_tune_look_alike_is_taken():
    """Every round: the change rule adds to the grammar and the frames and takes no look-alike of the
    tune split for a change."""
    frames = measure(TUNE, show=False, decide=with_updates(find_correction))
    both = measure(TUNE, show=False, decide=with_changes())
    assert both["found"] >= frames["found"] + 0.03 and both["false"] <= frames["false"], (frames, both)
    for case in (c for c in LOOK_ALIKES if c.split == TUNE):
        s = items(case)
        assert change_of(told(text_of(case, s)), s) is None, case.text


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=700), st.lists(st.text(max_size=200), max_size=3))
def test_any_text_and_items_give_a_verdict(text, texts):
    c = change_of(told(text), shown(*texts))
    assert c is None or (c.action == "supersede" and c.target.text in texts and c.statement)


def test_hostile_text_is_read_in_a_child_that_ends():
    """Long runs a careless pattern would backtrack on, mixed scripts, full-width forms and emoji: in a
    child process, so a hang or a crash fails this test and nothing else."""
    code = """
from core.changed import change_of, told
from core.correction import Shown
items = [Shown(id="a", text="Loves coffee, drinks three cups a day"), Shown(id="b", text="我住在北京朝阳区")]
hostile = [
    "now " * 150, "coffee " * 85 + "now", "都" * 300 + "了", "不" * 299 + "了", "I " * 290 + "switched",
    "since the " * 60, "现在" * 299, "?" * 600, "Ｎｏｗ ｔｅａ ｅｖｅｒｙ ｍｏｒｎｉｎｇ", "tea now 🙂" * 50, "\\x00now tea\\ud7ff",
    "my dad " * 80 + "moved now", "。" * 599 + "现在住海淀",
    "I quit, " * 75, "现在，" * 200, "hannah's " * 70 + "sister moved now", "mine's " * 85, "not " * 150 + "coffee",
]
for text in hostile:
    change_of(told(text), items)
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         cwd=str(Path(__file__).resolve().parents[2]))
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
