"""Recall injects nothing when nothing it holds is about the prompt; echoes and filler never."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from core import Actor, MemoryIn, Message, Settings, build_embedder, build_service, fingerprints, scope_for

LIFE = [
    "My cat is called Miso and she sleeps on the radiator",
    "I work as a nurse at the Royal Infirmary in Edinburgh",
    "My sister Inès lives in Lyon and teaches chemistry",
    "I am training for the Berlin marathon in September",
    "我对花生过敏",
    "我每周三晚上去学钢琴",
]
RELATED = ["What is my cat called?", "Where does Inès live?", "Which marathon am I training for?", "我对什么过敏？", "我什么时候学钢琴？"]
UNRELATED = [
    "Explain the difference between TCP and UDP.", "Write a Python function that reverses a string.",
    "What is the derivative of x^3?", "Who painted the Sistine Chapel ceiling?", "Write a haiku about autumn rain.",
    "请解释一下 HTTP 和 HTTPS 的区别。", "一元二次方程的求根公式是什么？", "世界上面积最大的国家是哪个？",
]


def test_lexical_floor_with_any_embedder(service, alice):
    """The floor's lexical half works whatever the embedder (here the test hash embedder, declared
    calibrated for the test, with its similarity floors out of reach)."""
    for text in LIFE:
        service.remember(alice, MemoryIn(content=text))
    service.remember(alice, MemoryIn(content="Call me Sam", pinned=True))
    cfg = service.recall_config(floor_embedder="hash:v1", floor_memory=2.0, floor_message=2.0, floor_lexical=0.3)
    got = service.recall(alice, "What is my cat called?", config=cfg)
    assert any("Miso" in c.text for c in got.items)
    unrelated = service.recall(alice, "Explain the difference between TCP and UDP.", config=cfg)
    assert [c.text for c in unrelated.items] == ["Call me Sam"]  # pinned facts are asked for everywhere
    assert service.search(alice, "Explain the difference between TCP and UDP.", config=cfg)  # search, asked on purpose, does not abstain


def test_an_uncalibrated_embedder_never_abstains(service, alice):
    service.remember(alice, MemoryIn(content=LIFE[0]))
    assert service.recall(alice, "Explain the difference between TCP and UDP.").items  # default floors are for the bundled embedder


def test_echoes_and_filler_are_not_injected(service, alice):
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    chat = ["I adopted a cat called Miso", "ok", "Lovely name! Cats love radiators.", "thanks", "What should I feed Miso?"]
    service.store_turns(alice, [Message(id=f"t{i}", role="user" if i % 2 == 0 else "assistant", content=t, session="s1",
                                   created_at=t0 + timedelta(minutes=i)) for i, t in enumerate(chat)])
    got = service.recall(alice, "What should I feed Miso?", echo=fingerprints(chat[2:]))  # the request carries the last three
    texts = [c.text for c in got.items]
    assert "I adopted a cat called Miso" in texts
    assert not set(texts) & set(chat[1:])


@pytest.fixture(scope="module")
def e5(tmp_path_factory):
    embedder = build_embedder("local")
    svc = build_service(Settings(data_dir=tmp_path_factory.mktemp("e5")), embedder=embedder)
    me = scope_for(Actor("abstain", client="tests"))
    for text in LIFE:
        svc.remember(me, MemoryIn(content=text))
    yield svc, me
    svc.close()


def test_with_the_bundled_embedder_unrelated_prompts_get_nothing(e5):
    svc, me = e5
    assert [p for p in UNRELATED if svc.recall(me, p).items] == []


def test_with_the_bundled_embedder_questions_about_the_user_get_their_memory(e5):
    svc, me = e5
    assert [q for q in RELATED if not svc.recall(me, q).items] == []


def test_one_word_shared_by_chance_is_not_evidence(service, alice):
    """A prompt of several words that meets a record on one of them only is not about it: "Who
    discovered penicillin?" against a day of discovering new places. A one-word prompt is met by
    its one word, and two shared words are evidence."""
    for text in LIFE:
        service.remember(alice, MemoryIn(content=text))
    service.remember(alice, MemoryIn(content="Spent Sunday discovering new places around the harbour"))
    cfg = service.recall_config(floor_embedder="hash:v1", floor_memory=2.0, floor_message=2.0, floor_lexical=0.3)
    assert service.recall(alice, "Who discovered penicillin?", config=cfg).items == []
    assert service.recall(alice, "harbour", config=cfg).items
    assert service.recall(alice, "Which harbour did I discover places around?", config=cfg).items


def test_one_item_that_clears_the_floor_carries_no_weaker_one_in(service, alice):
    """The decision is per item: the cat memory shares the question's rare words, the other
    memories do not, and they stay out although the prompt as a whole is answered from memory."""
    for text in LIFE:
        service.remember(alice, MemoryIn(content=text))
    cfg = service.recall_config(floor_embedder="hash:v1", floor_memory=2.0, floor_message=2.0, floor_lexical=0.3)
    got = service.recall(alice, "What is my cat Miso called?", config=cfg)
    assert [c.text for c in got.items] == [LIFE[0]]
    assert not got.abstained


@pytest.mark.parametrize("memory, question", [
    ("I play badminton every Tuesday.", "What sport do I play?"),
    ("My manager is Priyanka.", "Who do I report to at work?"),
    ("我每周二晚上去打羽毛球。", "我平时做什么运动？"),
])
def test_a_person_with_one_memory_gets_it_for_a_direct_question(tmp_path, memory, question):
    """The floor rises with the records a person holds, so it does not hide someone's only memory
    (the badminton memory is 0.809 similar to its question: under the old fixed floor of 0.81)."""
    svc = build_service(Settings(data_dir=tmp_path), embedder=build_embedder("local"))
    try:
        me = scope_for(Actor("one-memory", client="tests"))
        svc.remember(me, MemoryIn(content=memory))
        assert [c.text for c in svc.recall(me, question).items] == [memory]
        assert svc.recall(me, "Explain the difference between TCP and UDP.").items == []
    finally:
        svc.close()


@pytest.mark.parametrize("memory, question, small_talk", [
    ("My favourite singer is Adele.", "Which singer do I like most?",
     ["Tell me a pun about bread.", "Good morning! How's it going?", "Say something cheerful.", "What's a good riddle?"]),
    ("我每周四晚上去游泳。", "我平时做什么运动？", ["Hello! How are you doing?", "What's your favourite animal?"]),
])
def test_a_memory_near_everything_stays_out_of_small_talk(tmp_path, memory, question, small_talk):
    """Some memories sit as close to any small talk as a person's one memory sits to its question
    (~0.77-0.79 here, over the 0.77 floor): judged against the prompts about nobody nearest them
    (recall/background.py), they stay out of small talk and still answer their question. With the
    margin off they would be injected into every one of these prompts."""
    svc = build_service(Settings(data_dir=tmp_path), embedder=build_embedder("local"))
    try:
        me = scope_for(Actor("near-everything", client="tests"))
        svc.remember(me, MemoryIn(content=memory))
        assert [c.text for c in svc.recall(me, question).items] == [memory]
        assert [p for p in small_talk if svc.recall(me, p).items] == []
        alone = svc.recall_config(floor_margin=None, floor_small_talk=False)
        assert [p for p in small_talk if svc.recall(me, p, config=alone).items] == small_talk
    finally:
        svc.close()


def test_the_why_record_says_which_evidence_let_a_memory_in_and_what_kept_one_out(tmp_path):
    """A person who asks why a memory was or was not used reads the floor's verdict and the memory's
    background in the why record (GET /v1/why, memory_why): no words kept, read again when asked."""
    svc = build_service(Settings(data_dir=tmp_path), embedder=build_embedder("local"))
    try:
        me = scope_for(Actor("asks-why", client="tests"))
        singer = svc.remember(me, MemoryIn(content="My favourite singer is Adele.")).memory
        svc.recall(me, "Which singer do I like most?", why="asked")
        svc.recall(me, "Say something cheerful.", why="small-talk")
        small, asked = svc.why(me, last=2)
        [used] = asked.items
        assert used.id == singer.id and used.verdict in ("close", "distinct") and used.background is not None
        assert used.dense - used.background > -0.04  # what let it in: closer to the question than to its background
        assert asked.left_out == [] and small.abstained and small.items == []
        [kept_out] = small.left_out
        assert (kept_out.id, kept_out.text) == (singer.id, singer.content)
        assert kept_out.verdict in ("near_everything", "below_floor") and kept_out.background is not None
        svc.forget(me, "favourite singer")  # the words are read when asked: a forget covers the record
        assert svc.why(me, request="small-talk")[0].left_out[0].gone
    finally:
        svc.close()


def test_the_margin_needs_the_memorys_stored_vector(tmp_path):
    """A memory whose vector the store cannot read has no background: the similarity floor alone
    judges it, as before the margin, and recall still answers."""
    svc = build_service(Settings(data_dir=tmp_path), embedder=build_embedder("local"))
    try:
        me = scope_for(Actor("no-vector", client="tests"))
        svc.remember(me, MemoryIn(content="My favourite singer is Adele."))
        svc.recaller.store.memory_embeddings = lambda col, ids: {}
        assert svc.recall(me, "Which singer do I like most?").items
        assert svc.recall(me, "Say something cheerful.").items  # over the floor, and nothing to weigh it against
    finally:
        svc.close()


def test_a_memorys_background_is_read_once_and_again_when_it_changes(service, alice):
    """Recall reads the stored vector of a memory it weighs for the first time, and its index keeps
    the background: the next recall reads nothing, an edit of the memory reads it once more."""
    from core import MemoryPatch

    mem = service.remember(alice, MemoryIn(content="My cat is called Miso and she sleeps on the radiator")).memory
    reads: list[list[str]] = []
    store = service.recaller.store
    real = store.memory_embeddings
    store.memory_embeddings = lambda col, ids: (reads.append(list(ids)), real(col, ids))[1]
    cfg = service.recall_config(floor_embedder="hash:v1", floor_memory=0.01, floor_message=0.01, floor_lexical=0.3, floor_margin=-1.0)
    try:
        assert service.recall(alice, "What is my cat called?", config=cfg).items
        assert reads == [[mem.id]]
        service.recall(alice, "Where does my cat sleep?", config=cfg)
        assert reads == [[mem.id]]
        service.update(alice, mem.id, MemoryPatch(content="My cat is called Miso and she sleeps on the sofa"))
        service.recall(alice, "Where does my cat sleep?", config=cfg)
        assert reads == [[mem.id], [mem.id]]
    finally:
        store.memory_embeddings = real


def test_recall_answers_when_backgrounds_cannot_be_had(service, alice, caplog):
    """The prompts about nobody cannot be embedded (a worker down) or a vector read fails: recall
    answers on the floors alone and says why in the log."""
    service.remember(alice, MemoryIn(content="My cat is called Miso and she sleeps on the radiator"))
    cfg = service.recall_config(floor_embedder="hash:v1", floor_memory=0.01, floor_message=0.01, floor_lexical=0.3, floor_margin=-1.0)

    def down() -> None:
        raise RuntimeError("embedding worker down")

    service.recaller.background.matrix = down
    assert service.recall(alice, "What is my cat called?", config=cfg).items
    assert "recall without backgrounds: embedding worker down" in caplog.text


def test_small_talk_gets_nothing_and_the_why_record_says_so(tmp_path):
    """A person's one memory answers its question; "How are you?" and words to the assistant about
    itself get nothing, and the why record names the reason (relevance.VERDICTS["small_talk"])."""
    svc = build_service(Settings(data_dir=tmp_path), embedder=build_embedder("local"))
    try:
        me = scope_for(Actor("small-talk", client="tests"))
        memory = svc.remember(me, MemoryIn(content="I play badminton every Tuesday.")).memory
        assert [c.text for c in svc.recall(me, "What sport do I play?").items] == [memory.content]
        for prompt in ("How are you?", "What's your favourite sport?", "谢谢！", "Good morning!"):
            assert svc.recall(me, prompt, why=prompt).items == [], prompt
        [record] = svc.why(me, request="What's your favourite sport?")
        assert record.abstained and [x.verdict for x in record.left_out] == ["small_talk"]
    finally:
        svc.close()


# A person's chats with an assistant: what they said in passing, among long answers (made up)
CHAT = [
    ("user", "my daughter Mia is 9 and struggles with fractions — can you explain them simply?"),
    ("assistant", "Of course! Think of a pizza cut into equal slices. The bottom number says how many slices the pizza has, "
                  "the top number how many you take. So 3/8 means three slices of a pizza cut into eight."),
    ("user", "I'm vegetarian, so what can I cook with chickpeas tonight?"),
    ("assistant", "Chickpeas are wonderful: a quick chana masala, roasted chickpeas with paprika, or hummus with warm flatbread. "
                  "For a weeknight, the masala takes about 25 minutes with tinned chickpeas and tomatoes."),
    ("user", "my python script says KeyError when I read the config, any idea?"),
    ("assistant", "A KeyError means the key is not in the dictionary. Print config.keys() before the lookup, or use "
                  "config.get('name', default) so a missing key gives a default instead of an exception."),
    ("user", "I'm flying to Lisbon on the 14th for a conference, what should I pack?"),
    ("assistant", "Lisbon in spring is mild: layers, a light rain jacket, comfortable shoes for the hills, a travel adapter "
                  "for type F sockets, and something smart for the conference days."),
] * 6  # a person with a long history: the floor rises with what they hold


def test_a_question_about_the_persons_own_things_gets_what_they_said_in_a_long_history(tmp_path):
    """"What's my daughter's name again?" asks about the person: the floor neither rises with the
    many turns they hold nor sits where it guards prompts about nobody (RecallConfig.floor_about_me).
    Without that route the turn that answers is kept out; prompts about nobody still get nothing."""
    svc = build_service(Settings(data_dir=tmp_path), embedder=build_embedder("local"))
    try:
        me = scope_for(Actor("chats", client="tests"))
        t0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
        svc.store_turns(me, [Message(id=f"t{i}", role=role, content=text, session=f"s{i // 8}", created_at=t0 + timedelta(hours=i))
                             for i, (role, text) in enumerate(CHAT)])
        question = "What's my daughter's name again?"
        assert any("Mia" in c.text for c in svc.recall(me, question).items)
        without = svc.recall_config(floor_about_me=None)
        assert not any("Mia" in c.text for c in svc.recall(me, question, config=without).items)
        assert [p for p in UNRELATED if svc.recall(me, p).items] == []
    finally:
        svc.close()
