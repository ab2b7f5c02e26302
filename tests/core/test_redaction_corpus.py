"""Redaction of secrets as people say them (core/redact_chat.py): the corpus of
tests/core/redaction_corpus.py meets its targets, the issue's own examples come out as a reader
expects, phone numbers wait for the setting, and no input makes the detectors backtrack for long.
Figures per split (tune, held out): bench/redaction.py."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.config import Settings
from core.redact import Redactor, redact

from redaction_corpus import HARMLESS, HELD_OUT, PHONES, SECRETS, TUNE, changed, leaked, split

CN_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def cn_check(number: str) -> str:
    return "10X98765432"[sum(int(d) * w for d, w in zip(number, CN_WEIGHTS)) % 11]


def luhn_ok(number: str) -> bool:
    digits = [int(ch) for ch in number if ch.isdigit()][::-1]
    return sum(d if i % 2 == 0 else (d * 2 - 9 if d > 4 else d * 2) for i, d in enumerate(digits)) % 10 == 0


# ---- the corpus is what it claims to be -----------------------------------------------------------


def test_the_corpus_is_big_multilingual_and_split_in_thirds():
    assert len(SECRETS) >= 120 and len(HARMLESS) >= 120
    for cases in (SECRETS, HARMLESS):
        assert {"en", "zh", "fr", "de", "es", "it", "pt", "nl"} <= {c.lang for c in cases}
        assert [c.split for c in cases] == [HELD_OUT if i % 3 == 2 else TUNE for i in range(len(cases))]
    assert all(c.secrets and all(s in c.text for s in c.secrets) for c in SECRETS)
    assert all(not c.secrets for c in HARMLESS)


def test_the_corpus_numbers_are_what_they_pretend_to_be():
    ids = [c.secrets[0] for c in SECRETS if c.kind == "id"]
    assert len(ids) >= 8 and all(cn_check(n) == n[17] for n in ids)  # real check characters
    harmless_18 = [w for c in HARMLESS for w in c.text.split() if len(w) == 18 and w.isdigit()]
    assert harmless_18 and all(cn_check(n) != n[17] for n in harmless_18)
    imeis = [w for c in HARMLESS if c.kind == "imei" for w in c.text.replace("是", " ").split() if w.rstrip(",").isdigit()]
    assert len(imeis) >= 4 and all(luhn_ok(n.rstrip(",")) for n in imeis)  # Luhn alone cannot tell them from cards


# ---- targets ---------------------------------------------------------------------------------------


def test_the_whole_corpus_meets_the_targets():
    missed = [c.text for c in SECRETS if leaked(c, redact(c.text)[0])]
    altered = [c.text for c in HARMLESS if changed(c, redact(c.text)[0])]
    assert len(missed) / len(SECRETS) <= 0.02, missed
    assert len(altered) / len(HARMLESS) <= 0.01, altered


@pytest.mark.parametrize("name", [TUNE, HELD_OUT])
def test_each_split_meets_the_targets(name):
    secrets, harmless = split(SECRETS, name), split(HARMLESS, name)
    assert sum(leaked(c, redact(c.text)[0]) for c in secrets) / len(secrets) <= 0.02
    assert sum(changed(c, redact(c.text)[0]) for c in harmless) / len(harmless) <= 0.01


# ---- the examples, one by one --------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("wifi name HomeNet, password HomeNet2024!", "wifi name HomeNet, password [redacted: password]"),
        ("the pass is tiger77", "the pass is [redacted: password]"),
        ("pwd hunter4", "pwd [redacted: password]"),
        ("I use hunter2 as my password everywhere", "I use [redacted: password] as my password everywhere"),
        ("my netflix login: jane / sunshine42", "my netflix login: jane / [redacted: password]"),
        ("the code to my safe is 2468", "the code to my safe is [redacted: access code]"),
        ("2FA backup codes: 8472-1935, 6620-4418, 3391-0027", "2FA backup codes: [redacted: access code]"),
        ("your verification code is 482913", "your verification code is [redacted: access code]"),
        ("card 4242 4242 4242 4242 exp 09/27 cvv 317", "card [redacted: card number] exp 09/27 cvv [redacted: access code]"),
        ("mot de passe: soleil123", "mot de passe: [redacted: password]"),
        ("my passphrase: correct horse battery staple", "my passphrase: [redacted: password]"),
        ("the alarm code is 1357, disarm it when you come in", "the alarm code is [redacted: access code], disarm it when you come in"),
        ("我的密码是 abc12345，验证码 572910，门禁码 2046#",
         "我的密码是 [redacted: password]，验证码 [redacted: access code]，门禁码 [redacted: access code]"),
        ("我的身份证号是110105198806150016", "我的身份证号是[redacted: national id]"),
        ("my SSN is 536-22-8714", "my SSN is [redacted: national id]"),
    ],
)
def test_what_people_say_is_stored_without_the_secret(said, stored):
    assert redact(said)[0] == stored


@pytest.mark.parametrize(
    "sentence",
    [
        "IMEI 356938035643809",  # passes Luhn: it was redacted as a card number before
        "serial number 4539 1488 0343 6467 on the back of the router",
        "我的身份证号是110105198806150012",  # one digit off: the check character fails
        "part no. 987-65-4321 is out of stock",  # a 9xx area is never a social security number
        "invoice 123-45-678 was paid on Monday",
        "my password is wrong",
        "I changed my password yesterday",
        "the pass is closed due to snow",
        "login with Google / GitHub works",
        "password = getpass.getpass()",
    ],
)
def test_look_alikes_stay(sentence):
    assert redact(sentence) == (sentence, [])


def test_a_card_number_is_still_one_when_no_label_says_otherwise():
    assert redact("卡号 4539 1488 0343 6467")[0] == "卡号 [redacted: card number]"
    assert redact("IMEI 356938035643809 and card 4539 1488 0343 6467")[0] == "IMEI 356938035643809 and card [redacted: card number]"


# ---- phone numbers: the operator's choice ----------------------------------------------------------


def test_phone_numbers_stay_unless_the_setting_asks():
    assert Settings().redact_phone_numbers is False
    with_phones = Redactor(phones=True)
    for case in PHONES:
        assert redact(case.text)[0] == case.text
        out, findings = with_phones.redact(case.text)
        assert not leaked(case, out) and [f.kind for f in findings] == ["phone number"]
    # the setting adds phone numbers and nothing else
    assert [c.text for c in HARMLESS if c.kind != "phone" and changed(c, with_phones.redact(c.text)[0])] == []


def test_the_setting_reaches_the_service(tmp_path):
    from core import Actor, MemoryIn, build_service, scope_for
    from core.testing import HashEmbedder

    svc = build_service(Settings(data_dir=tmp_path, redact_phone_numbers=True), embedder=HashEmbedder())
    try:
        stored = svc.remember(scope_for(Actor("u")), MemoryIn(content="call me at +1 415 555 0132")).memory.content
        assert stored == "call me at [redacted: phone number]"
    finally:
        svc.close()


# ---- no input makes it slow or unstable -------------------------------------------------------------

_LONG = 100_000
_rnd = random.Random(25)
LONG_INPUTS = {
    "one word": "a" * _LONG,
    "digits": "1" * _LONG,
    "digits and spaces": "1 " * (_LONG // 2),
    "heads and colons": "pw:" * (_LONG // 3),
    "password is": "password is " * (_LONG // 12),
    "code groups": "backup codes: " + "1234-" * (_LONG // 5),
    "slashes": "/" * _LONG,
    "login pairs": "login: a / " * (_LONG // 11),
    "blanks": "password" + " " * _LONG + "x",
    "nested punctuation": "([{<\"'" * (_LONG // 12) + "'\">}])" * (_LONG // 12),
    "chinese": "密码是" * (_LONG // 3),
    "unicode": "".join(chr(_rnd.randrange(0x20, 0x2FFF)) for _ in range(_LONG)),
    "words": " ".join(_rnd.choice(["password", "is", "pin", "code", "door", ":", "/", "1234", "hunter2", "密码", "是", "safe", "login"])
                      for _ in range(_LONG // 6)),
}


@pytest.mark.parametrize("name", list(LONG_INPUTS))
def test_long_inputs_are_handled(name):
    # no timing assertion : the patterns are linear by construction, and a regression
    # to backtracking shows up here as a test that does not finish
    text = LONG_INPUTS[name]
    out, findings = Redactor(phones=True).redact(text)
    assert all(0 <= f.start < f.end <= len(text) for f in findings)
    assert all(a.end <= b.start for a, b in zip(findings, findings[1:]))


# Sentences built from the words the detectors look for, with numbers a word apart (two numbers
# run together by one space are read as one run: a known limit, see bench/README.md).
_WORDS = ["password", "pass", "pw", "PIN", "code", "door code", "safe", "is", "ist", ":", "：", "=", "/", "login", "密码", "是",
          "验证码", "hunter2", "'", '"', "IMEI", "wrong", "for the", "芝麻开门", ",", "\n", "[redacted: password]", "my", "netflix",
          "jane", "sunshine42", "SSN", "order", "cvv", "mot de passe", "Passwort", "es", "clave", "key", "wifi", "use", "as",
          "opens with", "2FA backup codes", "(", ")", "#", "call", "card"]
_NUMBERS = ["", "", "", "2468", "317", "8472-1935", "4242 4242 4242 4242", "110105198806150016", "536-22-8714", "215873304",
            "+1 415 555 0132"]
_SEP = st.sampled_from([" ", " ", ", ", "\n"])
_SENTENCES = st.lists(st.tuples(st.sampled_from(_WORDS), _SEP, st.sampled_from(_NUMBERS), _SEP), max_size=12).map(
    lambda parts: "".join("".join(p) for p in parts))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(_SENTENCES)
def test_sentences_made_of_secret_words_redact_once_and_for_all(text):
    redactor = Redactor(phones=True)
    out, findings = redactor.redact(text)
    assert (out == text) == (not findings)
    assert redactor.redact(out)[0] == out
    assert all(0 <= f.start < f.end <= len(text) for f in findings)
    assert all(a.end <= b.start for a, b in zip(findings, findings[1:]))
