"""A new value said for something just shown, with no correction word (core/update.py): one case per
slot in English and Chinese, the shapes that must change nothing, the tune split of the corpus, and
arbitrary text. The held-out and blind sets are measured by bench/corrections.py, never asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from corrections import TUNE, items, measure, text_of, with_updates  # noqa: E402
from correction_phrasings import CORRECTIONS, LOOK_ALIKES  # noqa: E402

from core.correction import Shown, find_correction
from core.update import find_update, stated

SH, JOB, AGE = "I live in Shanghai", "Works as a backend engineer at Acme", "I am 34 years old"


def shown(*texts: str) -> list[Shown]:
    return [Shown(id=f"m-{i}", text=t) for i, t in enumerate(texts)]


@pytest.mark.parametrize("text, items_, target", [
    ("I live in Hangzhou now, since March", (SH, JOB), 0),
    ("These days I'm based in Lisbon", (JOB, SH), 1),
    ("I work at Globex these days", (SH, JOB), 1),
    ("Started a new job at Initech", (JOB,), 0),
    ("I'm a product manager now", (JOB, SH), 0),
    ("I'm 29", (AGE, SH), 0),
    ("Turned 35 over the summer", (AGE,), 0),
    ("My birthday is the 23rd of March", ("Birthday is on March 3",), 0),
    ("Went pescatarian in January", ("Is vegetarian",), 0),
    ("I drive a Prius now", ("Drives a blue Honda Civic", SH), 0),
    ("I play drums in the band now", ("Plays the guitar in a weekend band",), 0),
    ("I'm learning Spanish, Japanese is on hold", ("Is learning Japanese", JOB), 0),
    ("My partner is Casey", ("Partner's name is Alex", "My sister is called Lan"), 0),
    ("My sister goes by Lina", ("Has a dog named Biscuit", "My sister is called Lan"), 1),
    ("Our dog is called Maple", ("Has a dog named Biscuit",), 0),
    ("我住在上海浦东，两年前搬的", ("我住在北京朝阳区", "我在字节跳动工作"), 0),
    ("我在腾讯上班", ("我在字节跳动工作", "我住在北京朝阳区"), 0),
    ("我今年26岁", ("我今年28岁",), 0),
    ("我三十三了", ("我养了一只猫叫咪咪", "我今年28岁"), 1),
    ("我哥叫王刚", ("我哥哥叫王强",), 0),
    ("我的猫叫豆豆", ("我养了一只猫叫咪咪",), 0),
    ("女儿上五年级", ("女儿在实验小学上三年级",), 0),
    ("我用的是苹果手机", ("用的是华为手机",), 0),
    ("我开的是蔚来", ("我开一辆白色的丰田",), 0),
    ("I live in Shanghai and I work at Globex now", (SH, JOB), 1),  # one value held, another new: the new one
    ("I'm a manager at Acme now", (JOB,), 0),  # the role changed, the employer did not
])
def test_a_new_value_for_a_shown_slot_supersedes_that_item(text, items_, target):
    s = shown(*items_)
    c = find_update(text, s)
    assert c is not None and (c.target, c.action, c.statement) == (s[target], "supersede", text)


@pytest.mark.parametrize("text, items_", [
    ("I live in Shanghai, love it", (SH,)),  # the value held: a restatement
    ("我住在朝阳区，离公司很近", ("我住在北京朝阳区",)),
    ("My sister lives in Hangzhou now", (SH,)),  # someone else
    ("我朋友现在在杭州了", ("我住在北京朝阳区",)),
    ("I might move to Hangzhou next year", (SH,)),  # a plan
    ("想换个工作，去腾讯上班", ("我在字节跳动工作",)),
    ("Should I live in Hangzhou?", (SH,)),  # a question
    ("我是不是应该在腾讯上班", ("我在字节跳动工作",)),
    ("I'm in Hangzhou this week for the conference", (SH,)),  # a trip
    ("下周我去杭州出差", ("我住在北京朝阳区",)),
    ("I play piano too", ("Plays the guitar in a weekend band",)),  # an addition
    ("I play tennis on Sundays", ("Plays badminton every Tuesday",)),  # a second sport: nothing says the first one stopped
    ("I'm learning Spanish", ("Is learning Japanese",)),
    ("I'm 40 minutes from the office", (AGE,)),  # a number that is no age
    ("I'm learning Python at work", ("Is learning Japanese",)),  # not a language
    ("My wife is Canadian", ("Wife's name is Mei",)),  # a nationality, not a name
    ("My partner is Alex's biggest fan", ("Partner's name is Alex",)),
    ("我哥叫我去吃饭", ("我哥哥叫王强",)),  # 叫 asks, it names no one
    ("我用的是小米的充电器", ("用的是华为手机",)),  # a charger, not a phone
    ("I work at Globex", ("Is vegetarian",)),  # no item about the slot
    ('He said "I live in Hangzhou now"', (SH,)),  # quoted
    ("When I lived in Hangzhou I cycled everywhere", (SH,)),  # the past
    ("Translate to French: I live in Paris", (SH,)),  # a language task, not the person's news
    ("Let's say I work at Globex, how would taxes work?", (JOB,)),
    ("把这句翻译成英文：我住在杭州", ("我住在北京朝阳区",)),
    # read by a review of the frames, each a false supersede before it was fixed
    ("I work at Microsoft", ("My sister works at Google",)),  # the item is someone else's
    ("My son is called Leo", ("My colleague Sonia is vegan",)),  # "son" is not "Sonia"
    ("My daughter turned 7 last week", (AGE,)),
    ("I'm 2 years into my PhD", (AGE,)),
    ("We moved to Kubernetes last year", (SH,)),
    ("I moved in June", (SH,)),
    ("I moved to Berlin in 2019", ("I live in Munich",)),
    ("I switched to VS Code last month", ("I drink two cups of coffee a day",)),
    ("I'm a big fan of that director", (JOB,)),
    ("I'm a doctor's daughter", (JOB,)),
    ("My husband is Nigerian", ("My husband is called Tom",)),
    ("My dog is OK now", ("Has a dog named Biscuit",)),
    ("My son is Jake's best friend", ("My son is called Leo",)),
    ("I'm seeing Dr Patel about my back", ("Partner's name is Alex",)),
    ("print('I live in Paris')", (SH,)),
    ("Her bio says 'I work at Initech' lol", (JOB,)),
    ("```\nI work at Initech\n```", (JOB,)),
    ("My friend said: I live in Berlin", (SH,)),
    ("Draft a LinkedIn bio: I work at Initech as a PM", (JOB,)),
    ("我在认真工作", ("我在字节跳动工作",)),
    ("我住得离公司很近", ("我住在北京朝阳区",)),
    ("我哥叫外卖了", ("我哥哥叫王强",)),
    ("我老公叫外卖", ("我老公叫李明",)),
    ("儿子上初一", ("女儿在实验小学上三年级",)),
    ("我开的是特斯拉", ("我在理想汽车工作",)),
    ("我女朋友叫小妹", ("我妹妹叫李娜",)),
])

def test_what_is_not_a_new_value_changes_nothing(text, items_):
    assert find_update(text, shown(*items_)) is None


@pytest.mark.parametrize("text, item", [
    ("I drive a red Kia Niro now", "Drives a blue Honda Civic"),        # a colour before the name
    ("leo's in year 9", "Son Leo is in Year 7"),                        # the child the item names, lower case
    ("my degree's in chemical engineering", "Has a degree in biochemistry"),
])
def test_more_slots_take_their_new_value(text, item):
    c = find_update(text, shown(item))
    assert c is not None and c.target.text == item


@pytest.mark.parametrize("text, item", [
    ("Sam is in year 5", "Son Leo is in Year 7"),                       # another child
    ("Leo is in Year 7", "Son Leo is in Year 7"),                       # the same year
    ("my degree is in it", "Has a degree in biochemistry"),
])
def test_those_slots_leave_others_and_restatements_alone(text, item):
    assert find_update(text, shown(item)) is None


def test_a_question_beside_the_statement_does_not_hide_it():
    """A question asks; the statement beside it still says. A plan anywhere in the turn still makes the turn a plan."""
    c = find_update("哈？小雪是我妹妹，我老婆叫晓琳", shown("我老婆叫小雪"))
    assert c is not None and c.statement == "小雪是我妹妹，我老婆叫晓琳"
    assert find_update("Do I live in Hangzhou now?", shown(SH)) is None
    assert find_update("Where should we go? I might move to Hangzhou", shown(SH)) is None


def test_a_captured_turn_is_not_replaced_by_a_plain_statement():
    """Only memories hold a slot: a captured turn about getting home late is the conversation's."""
    turn = Shown(id="t-1", text="Got home late again and just watched a film", source="message")
    assert find_update("I live in Hangzhou now", [turn]) is None


def test_the_sentence_that_says_it_replaces_the_item_not_the_whole_turn():
    c = find_update("I live in Hangzhou now. Write me a Python function that parses CSV files", shown(SH))
    assert c is not None and c.statement == "I live in Hangzhou now"


def test_most_turns_stop_at_the_frames():
    for text in ("Can you help me write a cover letter?", "Biscuit learned to shake hands", "帮我写一首诗", "thanks!", ""):
        assert stated(text) == []


def test_the_tune_split_gains_and_the_frames_take_no_tune_look_alike():
    """Round five (turns as people chat, most with no marker): the frames find most of its tune
    corrections and never the wrong item; no tune look-alike of any round is taken by the frames."""
    grammar = measure(TUNE, show=False, rnd=5)
    both = measure(TUNE, show=False, decide=with_updates(find_correction), rnd=5)
    assert both["found"] >= 0.6 and both["found"] >= grammar["found"] + 0.5, (grammar, both)
    for case in (c for c in CORRECTIONS if c.split == TUNE):
        s = items(case)
        c = find_update(text_of(case, s), s)
        assert c is None or c.target == s[case.target], case.text
    for case in (c for c in LOOK_ALIKES if c.split == TUNE):
        s = items(case)
        assert find_update(text_of(case, s), s) is None, case.text


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=600), st.lists(st.text(max_size=200), max_size=3))
def test_any_text_and_items_give_a_verdict(text, texts):
    c = find_update(text, shown(*texts))
    assert c is None or (c.action == "supersede" and c.target.text in texts)


def test_hostile_text_is_read_in_a_child_that_ends():
    """Long runs that a careless frame would backtrack on, nested quotes, mixed scripts, full-width
    forms and emoji: in a child process, so a hang or a crash fails this test and nothing else."""
    code = """
import sys
from core.update import find_update, stated
from core.correction import Shown
items = [Shown(id="a", text="I live in Shanghai"), Shown(id="b", text="我住在北京朝阳区"), Shown(id="c", text="I am 34 years old")]
hostile = [
    "I live in " + "A" * 390, "I live in " + "Aa " * 130, "i " * 200, "I'm " + "9" * 300, "我住在" + "北" * 397,
    "我现在在" + "杭州" * 190 + "了", "my " * 130 + "sister is called Lin", "\\u201c" * 100 + "I live in Hangzhou" + "\\u201d" * 100,
    "I live in 東京 now 🙂", "Ｉ ｌｉｖｅ ｉｎ Ｈａｎｇｚｈｏｕ", "I work at " + "Globex, " * 50, "\\x00I live in Hangzhou\\ud7ff",
]
for text in hostile:
    stated(text)
    find_update(text, items)
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         cwd=str(Path(__file__).resolve().parents[2]))
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
