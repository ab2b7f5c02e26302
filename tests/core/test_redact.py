"""Secret redaction (core/redact.py): every planted secret goes, look-alikes stay, and the
placeholders and findings themselves never leak or stack up."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.config import Settings
from core.redact import Finding, Redactor, compile_pattern, redact

from redact_corpus import NOT_SECRETS, PLANTED


def test_the_corpus_is_big_and_bilingual():
    assert len(PLANTED) >= 40
    assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in s) for s, _ in PLANTED) >= 12


@pytest.mark.parametrize(("sentence", "secret"), PLANTED, ids=[f"planted-{n}" for n in range(len(PLANTED))])
def test_every_planted_secret_is_redacted(sentence, secret):
    out, findings = redact(sentence)
    assert secret not in out
    assert "[redacted: " in out and findings
    # only the secret goes: what comes before it stays for memory to use (a Slack webhook is one
    # credential as a whole URL, a private key one block with its BEGIN line)
    if "hooks.slack.com" not in sentence and "PRIVATE KEY" not in sentence:
        assert out.startswith(sentence[: sentence.index(secret)])


@pytest.mark.parametrize("sentence", NOT_SECRETS)
def test_look_alikes_are_left_alone(sentence):
    assert redact(sentence) == (sentence, [])


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("my password is hunter2!", "password"),
        ("My locker code is ALPHA-7731.", "access code"),
        ("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "api key"),
        ("Card: 4111 1111 1111 1111", "card number"),
        ("IBAN GB82WEST12345698765432", "iban"),
        ("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIr\n-----END EC PRIVATE KEY-----", "private key"),
    ],
)
def test_the_placeholder_names_the_kind(sentence, kind):
    out, findings = redact(sentence)
    assert f"[redacted: {kind}]" in out
    assert [f.kind for f in findings] == [kind]


def test_a_private_key_goes_whole_even_when_the_paste_was_cut():
    text = "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\nQyNTUxOQAAACBx9aq2L"
    assert redact(text)[0] == "key:\n[redacted: private key]"


def test_findings_say_where_but_never_what():
    text = "my password is hunter2! and my PIN is 4821"
    out, findings = redact(text)
    assert [text[f.start : f.end] for f in findings] == ["hunter2!", "4821"]
    assert all(isinstance(f, Finding) and "hunter2" not in repr(f) for f in findings)
    assert out == "my password is [redacted: password] and my PIN is [redacted: access code]"


def test_a_card_number_that_fails_luhn_is_not_a_card():
    assert redact("ticket 4111 1111 1111 1112")[1] == []
    assert redact("IBAN DE89 3704 0044 0532 0130 01")[1] == []  # one digit off: the mod-97 check fails


def test_several_secrets_in_one_turn_and_the_same_one_twice():
    key = "ghp_Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef3Hi6"
    out, findings = redact(f"{key} again {key}; 密码：Abc12345")
    assert key not in out and "Abc12345" not in out and len(findings) == 3


def test_off_means_untouched():
    text = "my password is hunter2!"
    assert Redactor(enabled=False).redact(text) == (text, [])


def test_operator_patterns_extend_the_detectors():
    r = Redactor(patterns=[r"EMP-\d{6}", r"badge (\d{4})", r"room (?P<secret>[A-Z]\d+) key"])
    out, findings = r.redact("EMP-123456 has badge 7788 for room B12 key")
    assert out == "[redacted: secret] has badge [redacted: secret] for room [redacted: secret] key"
    assert [f.detector for f in findings] == ["pattern 1", "pattern 2", "pattern 3"]


def test_a_bad_operator_pattern_is_named():
    with pytest.raises(ValueError, match=r"redact_patterns: '\(unclosed' is not a valid"):
        compile_pattern("(unclosed")
    with pytest.raises(ValueError, match="redact_patterns"):
        Settings(redact_patterns=["(unclosed"])


def test_settings_default_on_with_no_extra_patterns():
    s = Settings()
    assert s.redact_secrets is True and s.redact_patterns == []


def test_redacting_twice_changes_nothing_more():
    for sentence, _ in PLANTED:
        once = redact(sentence)[0]
        assert redact(once) == (once, []), once


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_any_text_is_handled_and_redaction_is_idempotent(text):
    out, findings = redact(text)
    assert (out == text) == (not findings)
    assert redact(out)[0] == out
    assert all(0 <= f.start < f.end <= len(text) for f in findings)
    assert all(a.end <= b.start for a, b in zip(findings, findings[1:]))


_KEYED = st.sampled_from(["api_key", "APIKEY", "access key id", "Secret_Access_Key", "client secret", "app-secret", "secret",
                          "refresh token", "bot_token", "private key", "Signing Key", "webhook secret", "credentials", "AUTH",
                          "passwd", "pin"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_KEYED, st.sampled_from([" = ", ": ", " is ", "=> ", "Bearer ", "'", "\n"]),
                          st.text(alphabet="aZ9_-./+=!Kſk", min_size=1, max_size=30), st.text(max_size=12)), max_size=10))
def test_assignments_are_looked_for_only_where_a_key_word_is_and_found_the_same(parts):
    # the search for `key = value` runs only on a text naming a key, secret, token, credential or
    # auth: it finds exactly what the full search finds
    from core import redact as R

    text = "".join(parts)
    full = [R.Finding("secret", "assignment", m.start("value"), m.start("value") + len(m.group("value").rstrip(".,;:")))
            for m in R._ASSIGN.finditer(text) if R._random_enough(m.group("value").rstrip(".,;:"))]
    assert [f for f in R._assignments(text) if f.detector == "assignment"] == full
