"""Small talk and words to the assistant about itself (core/recall/small_talk.py) open only the
floor's distinct route; requests for help and anything about the person are weighed as before."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from core.recall.fusion import Candidate
from core.recall.relevance import Floor, verdicts
from core.recall.small_talk import about_me, small_talk

TALK = [
    "hi", "Hello!", "hey there :)", "Good morning", "thanks so much!", "Thank you 🙏", "ok cool", "lol", "bye, see you",
    "How are you?", "how's it going", "What's your favourite colour?", "Are you a robot?", "Do you ever sleep?",
    "Which do you prefer, cats or dogs?", "你好", "谢谢！", "晚安～", "哈哈哈", "好的", "你喜欢什么颜色？", "你是机器人吗",
    "Tell me a joke", "give me a riddle, a hard one", "got any puns?", "给我讲个笑话吧", "来个脑筋急转弯", "🙂", "ok bye for now",
    "happy friday!", 'Translate "Where is the train station?" into German.', "帮我润色这句话：“这个产品很好用。”",
    'What does the idiom "break the ice" mean?', "Write a limerick about a forgetful robot.", "写一首关于春天的五言绝句。",
    "Translate into German: where is the station?",
]
NOT_TALK = [
    "What sport do I play?", "Where does my sister live?", "Can you recommend a restaurant for tonight?",
    "Could you help me plan the trip?", "Please remind me what I told you about Lisbon", "Tell me a joke about my job",
    "Tell me a joke about Casey", "讲个关于我家猫的笑话", 'Translate what I told my sister: "see you soon"',
    'Fix the grammar in my cover letter: "I am work at Acme"', "Write a poem about my dog", "Write a poem for Casey",
    "What does my name mean?", "帮我把给老婆的生日祝福改得更正式一些：“生日快乐”",
    "Lisa: 我打碎了妈妈的碗\nAssistant: 你想想怎样解释？\nLisa: 我应该怎么说呢？",  # a dialogue's speakers hand over no text
    # a review's findings: the person's own details after a colon, a name after "to", the person's people
    "What does this mean: ferritin 12 ug/L on my blood test, I'm 20 weeks pregnant", "Write a birthday poem to Sarah",
    "Write a short poem in Theo's honour", "Tell me a riddle for the kids", "讲个笑话逗逗老婆", "Give me some names for the baby",
    "Explain TCP vs UDP", "thanks, and what was my manager called again?", "Good morning! I start the new job today",
    "我平时做什么运动？", "你能推荐一家餐厅吗", "帮我写一封邮件", "行程安排好了吗", "你记得我妹妹叫什么吗", "",
    "Do you remember where I work?", "What would you cook for dinner tonight?", "What do you know about Casey?",
    "Did you forget Casey?", "Hey, could you plan a weekend in Lisbon?", "Do you like Radiohead?",
]


@pytest.mark.parametrize("text", TALK)
def test_small_talk_and_words_to_the_assistant_are_read(text):
    assert small_talk(text)


@pytest.mark.parametrize("text", NOT_TALK)
def test_requests_and_words_about_the_person_are_not(text):
    assert not small_talk(text)


def c(id_: str, dense: float, lexical: float = 0.0) -> Candidate:
    return Candidate(id=id_, text="", source="memory", created_at=None, dense=dense, lexical=lexical)


def test_small_talk_keeps_only_the_distinct_route():
    floor = Floor(memory=0.77, message=0.81, lexical=0.3, margin=-0.04, distinct=0.03)
    close, words, distinct = c("close", 0.85), c("words", 0.5, lexical=0.9), c("distinct", 0.86)
    bg = {"close": 0.84, "words": 0.5, "distinct": 0.80}
    about_me = verdicts([close, words, distinct], False, floor.for_query("What sport do I play?"), {"memory": 3}, bg)
    assert about_me == {"close": "close", "words": "words", "distinct": "close"}
    talk = verdicts([close, words, distinct], False, floor.for_query("How are you?"), {"memory": 3}, bg)
    assert talk == {"close": "small_talk", "words": "small_talk", "distinct": "distinct"}
    assert floor.for_query("How are you?").small_talk and not floor.for_query("What sport do I play?").small_talk
    assert not Floor().for_query("How are you?").small_talk  # no floor: nothing withheld
    assert not Floor(memory=0.77, reads_talk=False).for_query("How are you?").small_talk  # RecallConfig.floor_small_talk off


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200), st.sampled_from(["my sister", "I", "我的", "me", "we"]))
def test_a_prompt_about_the_person_is_never_words_to_the_assistant(text, person):
    """Whatever else it says, a prompt that speaks of the person and is not all greetings is weighed
    as usual: its memory is not withheld."""
    prompt = f"{text} you {person} x"
    assert not small_talk(prompt)


def test_hostile_prompts_are_read_in_a_child_that_ends():
    """Repeated laughter or thanks that does not end as small talk once took seconds to fail (a repeat
    inside a repeat): in a child process, so a hang fails this test and nothing else."""
    import subprocess
    import sys
    from pathlib import Path

    code = """
from core.recall.small_talk import about_me, small_talk
for text in ["what my " * 37, "how our " * 37 + ".", "what " + "my " * 97,
             "哈" * 290 + "x", "嗯" * 290 + "，我的", "谢谢你" * 95 + "猫", "哈哈嘿嘿" * 70 + "?", "hi " * 99 + "my",
             "Translate " + "'a' " * 70 + "into German", "写一首" * 90 + "诗", "😂" * 290 + "my",
             "what do i " * 30, "how long have we " * 17, "我" * 150 + "什么" * 70, "咱们" * 140 + "？"]:
    small_talk(text)
    about_me(text)
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=str(Path(__file__).resolve().parents[2]))
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


@pytest.mark.parametrize("prompt", [
    "What's my daughter's name again?", "Which phone was I using before?", "When is my wife's birthday?",
    "Did I tell you where we're moving?", "Remind me what I said about the vet", "Where do our kids go to school?",
    "我女儿叫什么？", "我上次说过我对什么过敏？", "还记得我养的猫吗", "我的车是什么颜色",
    # the person as the subject of the question, in English and Chinese, mixed scripts too
    "Which gym am I a member of?", "What team do we support?", "How long have we had the dog?", "How many kids do I have?",
    "我妈上个月做了什么手术？", "我们去年夏天去哪儿度假了？", "我跟Tom认识多久了？", "咱们家的WiFi密码是多少？", "我在学哪种乐器？",
])
def test_a_question_about_the_persons_own_things_is_about_them(prompt):
    assert about_me(prompt)


@pytest.mark.parametrize("prompt", [
    "How do I reverse a list in Python?", "What is the capital of France?", "Can I freeze cooked rice?",
    "Explain the difference between TCP and UDP.", "Hi, how are you?", "世界上面积最大的国家是哪个？", "怎么煮米饭？", "", "my" * 400,
    # asking how to, what is needed, why, or about the world: not the person's own things
    "How do I install numpy?", "What do I need to bring to a job interview?", "Why do we dream?", "我想知道什么是黑洞？",
    "我应该怎么学Python？", "我们为什么会做梦？", "我需要带什么去面试？", "太阳系有几颗行星？", "What is a good name for a cat?",
])
def test_a_prompt_not_about_the_persons_things_is_not(prompt):
    assert not about_me(prompt)


def test_about_me_lowers_the_floors_without_the_rise_and_small_talk_comes_first():
    floor = Floor(memory=0.77, message=0.81, lexical=0.3, per_decade=0.025, margin=-0.04, distinct=0.03, about_me=0.05)
    mine = floor.for_query("What's my daughter's name again?")
    assert (mine.memory, mine.message, mine.per_decade, mine.about_me) == (pytest.approx(0.72), pytest.approx(0.76), 0.0, None)
    assert (mine.lexical, mine.margin, mine.distinct) == (0.3, -0.04, 0.03)
    assert floor.for_query("What is the capital of France?") == floor
    assert floor.for_query("Thanks!").small_talk
    assert Floor(memory=0.77, message=0.81).for_query("What's my daughter's name again?").memory == 0.77  # about_me None: off
    assert Floor().for_query("What's my daughter's name again?") == Floor()  # no floor: nothing to lower
