"""Tiny made-up inputs in the evaluation sets' formats, for the benches' smoke runs.

The recall benches read LoCoMo and MADial-Bench from ../shared/eval, which a checkout running
`make test` may not have and which must never be copied into the repository. Their `--smoke` runs
read files written here instead: a few invented people, their sessions, memories and questions,
shaped exactly as the benches parse them (LoCoMo's conversation JSON; MADial's memory and dialogue
JSON lines). The figures they give mean nothing; that the bench runs end to end is what is checked.
"""

from __future__ import annotations

import json
from pathlib import Path

_PEOPLE = [("Mara", "Tomas"), ("Lin", "Jun")]
_EN_TOPICS = [
    ("adopted a grey cat called Pepper", "What is the name of {a}'s cat?"),
    ("started pottery classes on Thursdays", "Which evening does {a} go to pottery?"),
    ("ran a half marathon in Lisbon", "Where did {a} run a half marathon?"),
    ("is repainting the kitchen yellow", "What colour is {a}'s kitchen going to be?"),
    ("booked a train to Vienna for the spring", "Where is {a} travelling in spring?"),
    ("planted tomatoes and basil on the balcony", "What did {a} plant on the balcony?"),
]
_SMALL_TALK = ["How was your week?", "That sounds lovely!", "Tell me more.", "Ha, classic.", "Good luck with it!"]
_ZH_EVENTS = [
    ("小林在春节联欢会上表演了魔术，感到非常开心。", "活动类"),
    ("小林在学校运动会上获得了跳远第二名。", "活动类"),
    ("小林的小狗生病了，他很担心。", "生活类"),
    ("小林第一次自己做了红烧肉。", "生活类"),
    ("小林考试没考好，心情很低落。", "学习类"),
    ("小林和朋友去杭州西湖划船。", "旅行类"),
]
_EN_EVENTS = [
    "Lin performed a magic trick at the Spring Festival party and felt very happy.",
    "Lin came second in the long jump at the school sports day.",
    "Lin's puppy got sick and he was worried.",
    "Lin cooked braised pork by himself for the first time.",
    "Lin did badly in an exam and felt low.",
    "Lin went boating on West Lake in Hangzhou with friends.",
]
_ZH_DIALOGUES = [
    (["嘿，我今天又要表演魔术了！", "太好了！你准备了什么节目？", "还是上次那个纸牌魔术。"], [1, 2]),
    (["我的小狗今天还是不太舒服。", "它怎么了？去看医生了吗？", "去了，医生说要休息。"], [3]),
    (["我想再去一次杭州。", "上次去玩得开心吗？", "开心，湖上特别美。"], [6, 4]),
]
_EN_DIALOGUES = [
    (["Hey, I'm doing a magic show again today!", "Great! What are you performing?", "The card trick from last time."], [1, 2]),
    (["My puppy still isn't feeling well.", "Oh no, did you see a vet?", "Yes, she said he needs rest."], [3]),
    (["I want to go back to Hangzhou.", "Did you enjoy it last time?", "I did, the lake was beautiful."], [6, 4]),
]


def locomo(path: Path, conversations: int = 2, sessions: int = 3) -> Path:
    """A LoCoMo-shaped file: sessions of dated turns between two people, and questions whose
    evidence names the turn that answers them (categories 1-4, as the benches read them)."""
    out = []
    for c in range(conversations):
        a, b = _PEOPLE[c % len(_PEOPLE)]
        conv: dict = {"speaker_a": a, "speaker_b": b}
        qa = []
        topic = 0
        for s in range(1, sessions + 1):
            conv[f"session_{s}_date_time"] = f"{1 + s}:15 pm on {3 + 4 * s} May, 2023"
            turns = []
            for i in range(8):
                dia = f"D{s}:{i + 1}"
                if i % 3 == 1:
                    fact, question = _EN_TOPICS[topic % len(_EN_TOPICS)]
                    topic += 1
                    turns.append({"speaker": a, "dia_id": dia, "text": f"Guess what, I {fact} last week."})
                    qa.append({"question": question.format(a=a), "answer": fact, "evidence": [dia], "category": 1 + len(qa) % 4})
                else:
                    turn = {"speaker": a if i % 2 == 0 else b, "dia_id": dia, "text": _SMALL_TALK[(s + i) % len(_SMALL_TALK)]}
                    if i == 4:
                        turn["blip_caption"] = "a photo of a sunny street"
                    turns.append(turn)
            conv[f"session_{s}"] = turns
        qa.append({"question": "What is the capital of Mars?", "answer": "none", "category": 5, "adversarial_answer": "x"})
        out.append({"sample_id": f"synthetic-{c}", "conversation": conv, "qa": qa})
    path.write_text(json.dumps(out, ensure_ascii=False), encoding="utf-8")
    return path


def madial(folder: Path) -> Path:
    """A MADial-shaped folder: zh/en memories of one person (the English file without user ids,
    as in the real set) and a few dev dialogues whose first test turn follows the lines that
    call for the relevant memories."""
    folder.mkdir(parents=True, exist_ok=True)
    zh = [{str(i): {"time": f"2023-0{i}-1{i}", "scene": scene, "emotion": "开心", "event": event, "user-id": 1, "id": str(i)}}
          for i, (event, scene) in enumerate(_ZH_EVENTS, 1)]
    en = [{str(i): {"time": f"2023-0{i}-1{i}", "scene": "Activity", "emotion": "Happy", "event": event}}
          for i, event in enumerate(_EN_EVENTS, 1)]
    for lang, memories, dialogues in (("zh", zh, _ZH_DIALOGUES), ("en", en, _EN_DIALOGUES)):
        (folder / f"{lang}-memory.jsonl").write_text("".join(json.dumps(m, ensure_ascii=False) + "\n" for m in memories), encoding="utf-8")
        rows = []
        for n, (lines, relevant) in enumerate(dialogues):
            speakers = ["Lin", "Assistant"]
            said = ["<BOD>\n"] + [f'<{speakers[i % 2]}>:"{t}"\n' for i, t in enumerate(lines)]
            rows.append({"dialogue": said + ['<Assistant>:"..."\n'], "test-turn": [len(said)], "relevant-id": relevant, "user-id": 1, "id": n})
        (folder / f"{lang}-dialogue-dev.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return folder
