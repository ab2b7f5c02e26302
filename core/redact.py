"""Secrets never stored: find API keys, tokens, private keys, passwords, card numbers and IBANs
in a text and replace each with a placeholder such as `[redacted: api key]`. Pure: text in,
text and findings out; nothing is read or written.

Where a maintained detector exists it does the work: Yelp's detect-secrets plugins recognise
provider token formats (AWS, GitHub, GitLab, Slack, Stripe, JWT, private key headers, ...) and
supply the Shannon entropy used on `key=value` values; python-stdnum checks card numbers (Luhn)
and IBANs (ISO 13616 mod 97 and each country's layout). Amber adds only what those libraries
cannot know because they scan code, not conversation: current OpenAI and Anthropic key formats,
passwords stated in words ("my password is hunter2!", "密码：Abc12345"), access codes
("my locker code is ALPHA-7731") and assignments whose value looks random.

What counts as a secret, decided for chat text (the seeded corpus in tests/core/test_redact.py
holds examples of each, and bench/redaction.py measures what ordinary turns lose):
- a password, passphrase, passcode, PIN, one-time code or access code (door, gate, locker, safe,
  alarm) stated with its value: yes, whatever the value looks like, unless it is a word that
  describes the password rather than being it ("my password is wrong", "密码是我的生日");
- zip, area, promo, error and dress codes: no (they unlock nothing);
- a value after a secret-sounding key (`api_key=`, `token:`, `client secret is`): when it looks
  random (long enough, entropy high enough), so "Secret: be kind" is left alone;
- a 13-19 digit number passing Luhn with a card network's first digit; an IBAN passing its check.
Findings carry the kind and place of each secret, never its value, so they can be logged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Iterator, Sequence

PLACEHOLDER = "[redacted: {kind}]"
_PLACEHOLDER_RE = re.compile(r"\[redacted: [a-z ]+\]")


@dataclass(frozen=True)
class Finding:
    """One secret found: what kind, which detector, where it was in the original text."""

    kind: str  # api key, token, private key, password, access code, card number, iban, secret
    detector: str
    start: int
    end: int


# ---- detect-secrets: provider token formats ---------------------------------------------------

# (module, class, kind). Left out on purpose: KeywordDetector and the quoted high-entropy
# scanners (they read source code: in prose they take the rest of a line), ArtifactoryDetector
# (its password shape matches ordinary capitalised words such as "APACHE2024x") and
# IPPublicDetector (an address is not a secret).
_PLUGINS = (
    ("aws", "AWSKeyDetector", "api key"),
    ("azure_storage_key", "AzureStorageKeyDetector", "api key"),
    ("basic_auth", "BasicAuthDetector", "password"),
    ("cloudant", "CloudantDetector", "password"),
    ("discord", "DiscordBotTokenDetector", "token"),
    ("github_token", "GitHubTokenDetector", "token"),
    ("gitlab_token", "GitLabTokenDetector", "token"),
    ("ibm_cloud_iam", "IbmCloudIamDetector", "api key"),
    ("ibm_cos_hmac", "IbmCosHmacDetector", "api key"),
    ("jwt", "JwtTokenDetector", "token"),
    ("mailchimp", "MailchimpDetector", "api key"),
    ("npm", "NpmDetector", "token"),
    ("openai", "OpenAIDetector", "api key"),
    ("private_key", "PrivateKeyDetector", "private key"),
    ("pypi_token", "PypiTokenDetector", "token"),
    ("sendgrid", "SendGridDetector", "api key"),
    ("slack", "SlackDetector", "token"),
    ("softlayer", "SoftlayerDetector", "api key"),
    ("square_oauth", "SquareOAuthDetector", "token"),
    ("stripe", "StripeDetector", "api key"),
    ("telegram_token", "TelegramBotTokenDetector", "token"),
    ("twilio", "TwilioKeyDetector", "api key"),
)


@lru_cache(maxsize=1)
def _plugins() -> tuple:
    # Imported on first use: detect-secrets takes ~170 ms to import, and most processes that
    # import core never write anything.
    import importlib

    out = []
    for module, cls, kind in _PLUGINS:
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), cls)()
        out.append((plugin, kind))
    return tuple(out)


@lru_cache(maxsize=1)
def _entropy_plugin():
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    return Base64HighEntropyString()


def entropy(value: str) -> float:
    """Shannon entropy in bits per character over the base64 alphabet (detect-secrets' measure)."""
    return _entropy_plugin().calculate_shannon_entropy(value)


_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-.+/=]")
_TOKEN_HEAD = re.compile(r"[A-Za-z0-9_\-]")  # not "=" or ".": a key name or a sentence may end there
# A private key is the whole block, not its header line: from BEGIN to the matching END (or to the
# end of the text when a paste was cut off).
_KEY_BLOCK = re.compile(
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"
    r"|PuTTY-User-Key-File-\d+:.*?(?:Private-MAC: *[0-9a-fA-F]+|\Z)",
    re.DOTALL,
)


def _occurrences(text: str, value: str) -> Iterator[tuple[int, int]]:
    start = text.find(value)
    while start >= 0:
        yield start, start + len(value)
        start = text.find(value, start + len(value))


def _grow(text: str, start: int, end: int) -> tuple[int, int]:
    """A token found by its known head (e.g. a JWT's header and payload) runs on to its last
    token character, so no tail of it is left behind."""
    while start > 0 and _TOKEN_HEAD.match(text[start - 1]):
        start -= 1
    while end < len(text) and _TOKEN_CHARS.match(text[end]):
        end += 1
    while end > start + 1 and text[end - 1] == ".":  # the full stop after a pasted key
        end -= 1
    return start, end


def _library_tokens(text: str) -> Iterator[Finding]:
    for plugin, kind in _plugins():
        name = type(plugin).__name__
        for value in set(plugin.analyze_string(text)):
            if kind == "private key":
                continue  # the header alone is found here; the block is cut out below
            if not value or _PLACEHOLDER_RE.fullmatch(value):
                continue
            for start, end in _occurrences(text, value):
                if kind in ("api key", "token"):
                    start, end = _grow(text, start, end)
                yield Finding(kind, name, start, end)
    if "PRIVATE KEY" in text or "PuTTY-User-Key-File" in text:
        for m in _KEY_BLOCK.finditer(text):
            yield Finding("private key", "PrivateKeyDetector", m.start(), m.end())


# ---- formats the library predates ---------------------------------------------------------------

_EXTRA_TOKENS = (
    ("anthropic", "api key", re.compile(r"(?<![\w-])sk-ant-[A-Za-z0-9_-]{20,}")),
    # project, service-account and admin keys, and legacy keys without the T3BlbkFJ marker
    ("openai", "api key", re.compile(r"(?<![\w-])sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}")),
    ("github_fine_grained", "token", re.compile(r"(?<!\w)github_pat_[A-Za-z0-9_]{22,}")),
    ("google", "api key", re.compile(r"(?<![\w-])AIza[0-9A-Za-z_-]{35}")),
    ("huggingface", "token", re.compile(r"(?<!\w)hf_[A-Za-z0-9]{30,}")),
    ("slack_app", "token", re.compile(r"(?<!\w)xapp-\d-[A-Za-z0-9-]{20,}")),
    # credentials in a URL: detect-secrets' BasicAuthDetector skips passwords holding & ! $ and
    # other characters a URL allows there
    ("url_credentials", "password", re.compile(r"(?<=://)[^\s:/@]+:(?P<value>[^\s/@]+)(?=@)")),
)


def _random_enough(value: str) -> bool:
    """A value that reads like a generated credential rather than a word or a number."""
    if len(value) < 12 and not (len(value) >= 8 and re.search(r"\d", value) and re.search(r"[A-Za-z]", value)):
        return False
    classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"\d", r"[^A-Za-z0-9]"))
    return classes >= 2 and entropy(value) >= 3.0


def _extra_tokens(text: str) -> Iterator[Finding]:
    for name, kind, rx in _EXTRA_TOKENS:
        for m in rx.finditer(text):
            # "sk-" starts ordinary hyphenated words too ("sk-ii-moisturiser-cream-for-dry-skin"):
            # what follows the prefix must itself look generated
            body = m.group()[3:]
            if name == "openai" and not (_random_enough(body) and all(re.search(p, body) for p in (r"[a-z]", r"[A-Z]", r"\d"))):
                continue
            group = "value" if "value" in rx.groupindex else 0
            yield Finding(kind, name, m.start(group), m.end(group))


# ---- assignments: `api_key=...`, `token: ...`, `client secret is ...` -----------------------------

_KEY_NAMES = (
    r"[A-Za-z0-9_]*(?:api[_\- ]?key|apikey|access[_\- ]?key(?:[_\- ]?id)?|secret[_\- ]?(?:access[_\- ]?)?key"
    r"|client[_\- ]?secret|app[_\- ]?secret|secret|(?:access|refresh|auth|api|bearer|session|bot)?[_\- ]?token"
    r"|private[_\- ]?key|signing[_\- ]?key|webhook[_\- ]?secret|credentials?|auth)"
)
_ASSIGN = re.compile(
    rf"(?<![\w-])(?P<key>{_KEY_NAMES})[\"']?(?P<op>\s*(?:=|:=|:|：|=>)\s*|\s+(?:is|was|is now|=)\s+)"
    r"(?:Bearer\s+)?(?P<q>[\"'`]?)(?P<value>[A-Za-z0-9_\-.+/=~!@#$%^&*]{8,})(?P=q)",
    re.IGNORECASE,
)
_BEARER = re.compile(r"\bBearer\s+(?P<value>[A-Za-z0-9_\-.+/=~]{12,})")


def _assignments(text: str) -> Iterator[Finding]:
    for m in _ASSIGN.finditer(text):
        value = m.group("value").rstrip(".,;:")
        if _random_enough(value):
            yield Finding("secret", "assignment", m.start("value"), m.start("value") + len(value))
    for m in _BEARER.finditer(text):
        if _random_enough(m.group("value")):
            yield Finding("token", "bearer", m.start("value"), m.end("value"))


# ---- passwords and access codes in words ----------------------------------------------------------

# Words that describe a password instead of being one: "my password is wrong", "the PIN is the
# same", "the door code is on the fridge".
_NOT_A_VALUE = frozenset(
    """a an the my your his her their our its this that these those what which who how why when where
    not no never still also now just only really very too so quite pretty rather same different
    wrong incorrect correct right invalid valid expired required needed necessary optional strong
    weak long short simple easy hard complex secure safe unsafe new old changed reset saved stored
    set written hidden secret private unknown forgotten lost empty blank protected encrypted case
    sensitive generated managed attached below above here there in on at for to of with from by
    and or but if as something nothing anything everything somewhere same one two mine yours
    working broken fine ok okay good bad great""".split()
)

_PASSWORD_WORDS = (
    r"pass(?:word|phrase|code)s?|passwd|pwd|pw|pass(?=\s*[:=：])|(?-i:PIN)(?:\s*(?:code|number))?|pin\s*(?:code|number)"
    r"|one[- ]time\s+(?:code|password)|otp|verification\s+code|cvv2?|cvc2?|security\s+code"
    r"|(?:locker|door|gate|alarm|safe|garage|entry|entrance|access|building|lock(?:\s*screen)?|keypad|padlock|unlock)"
    r"\s+(?:code|combination|combo|pin)|(?:lock|safe|locker|padlock)\s+combination"
)
_PASSWORD_EN = re.compile(
    rf"\b(?P<key>{_PASSWORD_WORDS})\b"
    r"(?:\s+(?:for|to|of|on|at)\s+(?:[\w'.-]+\s+){0,3}?[\w'.-]+)?"  # "password for my bank account"
    r"(?P<op>\s*(?:=|:|：)\s*|\s+(?:is|was|is now|has been|is set to|will be|should be|changed to|becomes)\s*[:：]?\s*)"
    r"(?P<q>[\"'`“‘]?)(?P<value>[!-~]+)",
    re.IGNORECASE,
)
# "I set the garage code to 7319", "changed my password to Tr1cky!"
_PASSWORD_SET = re.compile(
    rf"\b(?:set|changed?|reset|updated?|switched)\s+(?:the\s+|my\s+|our\s+|his\s+|her\s+)?(?:[\w-]+\s+)?"
    rf"(?P<key>{_PASSWORD_WORDS})\s+to\s+(?P<q>[\"'`“‘]?)(?P<value>[!-~]+)",
    re.IGNORECASE,
)
_PASSWORD_ZH = re.compile(
    r"(?P<key>(?:支付|登录|登錄|银行卡|銀行卡|开机|開機|开锁|開鎖|门禁|門禁|管理员|管理員)?(?:密码|密碼|口令)|PIN码|PIN碼"
    r"|(?-i:pin)码|验证码|驗證碼|动态码|動態碼)"
    r"(?P<op>\s*(?:(?:是|为|為|设为|設為|设成|設成|改成|改为|改為|换成|換成|变成|變成)了?)?\s*[:：=]?\s*)"
    r"(?P<q>[\"'“‘「]?)(?P<value>[!-~]+)",
    re.IGNORECASE,
)
_TRAILING = ".,;:?)]}>\"'`”’」"


def _passwords(text: str) -> Iterator[Finding]:
    for rx in (_PASSWORD_EN, _PASSWORD_SET, _PASSWORD_ZH):
        for m in rx.finditer(text):
            value = m.group("value").rstrip(_TRAILING)
            if len(value) < 3 or value.casefold().rstrip("!") in _NOT_A_VALUE or value.startswith("[redacted"):
                continue
            key = m.group("key").casefold()
            code = re.search(r"code|combination|combo|pin|cvv|cvc|otp|码|碼", key) and not re.search(r"pass|密|口令", key)
            # a code word ("combination", "security code") counts only with digits in its value
            if code and not re.search(r"\d", value):
                continue
            # "pass" and "pw" are also ordinary words ("a pass: free entry"): only a value that
            # does not read as a plain word counts
            if key in ("pass", "pw") and value.isalpha() and (value.islower() or value.istitle()):
                continue
            kind = "access code" if code else "password"
            yield Finding(kind, "password", m.start("value"), m.start("value") + len(value))


# ---- card numbers and IBANs ----------------------------------------------------------------------

_CARD = re.compile(r"(?<![\w-])(?:\d[ -]?){12,18}\d(?![\w-])")
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}(?![A-Za-z0-9])")


def _numbers(text: str) -> Iterator[Finding]:
    if any(ch.isdigit() for ch in text):
        from stdnum import iban, luhn

        # digits inside an IBAN-shaped string belong to that account number, valid or not
        shaped = [(m.start(), m.end()) for m in _IBAN.finditer(text)]
        for m in _CARD.finditer(text):
            digits = re.sub(r"[ -]", "", m.group())
            if any(s <= m.start() < e for s, e in shaped):
                continue
            if 13 <= len(digits) <= 19 and digits[0] in "23456" and len(set(digits)) > 1 and luhn.is_valid(digits):
                yield Finding("card number", "luhn", m.start(), m.end())
        for m in _IBAN.finditer(text):
            # the pattern may run on into the next word ("DE89 3704 … 00 ok"): shorten to a valid IBAN
            candidate = m.group()
            while len(candidate) >= 15 and not iban.is_valid(candidate.upper()):
                candidate = candidate[: candidate.rfind(" ")] if " " in candidate[4:] else ""
            if len(candidate) >= 15:
                yield Finding("iban", "iban", m.start(), m.start() + len(candidate))


# ---- putting it together -------------------------------------------------------------------------


def _merge(findings: Iterable[Finding]) -> list[Finding]:
    """Overlapping findings become one (the widest span, the kind of the one that starts first)."""
    out: list[Finding] = []
    for f in sorted(findings, key=lambda f: (f.start, -f.end)):
        if f.end <= f.start:
            continue
        if out and f.start < out[-1].end:
            last = out[-1]
            out[-1] = Finding(last.kind, last.detector, last.start, max(last.end, f.end))
        else:
            out.append(f)
    return out


def _apply(text: str, findings: Sequence[Finding]) -> str:
    parts, pos = [], 0
    for f in findings:
        parts += [text[pos : f.start], PLACEHOLDER.format(kind=f.kind)]
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)


class Redactor:
    """Redaction as configured: on or off, plus the operator's own patterns (a regex whose named
    group `secret`, else its first group, else its whole match is replaced)."""

    def __init__(self, enabled: bool = True, patterns: Sequence[str] = ()):
        self.enabled = enabled
        self.patterns = tuple(compile_pattern(p) for p in patterns)

    def find(self, text: str) -> list[Finding]:
        if not (self.enabled and text):
            return []
        found: list[Finding] = [
            *_library_tokens(text),
            *_extra_tokens(text),
            *_assignments(text),
            *_passwords(text),
            *_numbers(text),
        ]
        for n, rx in enumerate(self.patterns):
            for m in rx.finditer(text):
                group = "secret" if "secret" in rx.groupindex else (1 if rx.groups else 0)
                if m.start(group) >= 0:
                    found.append(Finding("secret", f"pattern {n + 1}", m.start(group), m.end(group)))
        # a placeholder from an earlier pass is never redacted again
        held = [(m.start(), m.end()) for m in _PLACEHOLDER_RE.finditer(text)]
        found = [f for f in found if not any(s <= f.start and f.end <= e for s, e in held)]
        return _merge(found)

    def redact(self, text: str) -> tuple[str, list[Finding]]:
        findings = self.find(text)
        return (_apply(text, findings) if findings else text), findings

    __call__ = redact

    def text(self, text: str | None) -> str | None:
        return self.redact(text)[0] if text else text

    def messages(self, messages: Sequence[Any]) -> list[Any]:
        """Captured turns with their secrets replaced (the same objects where there were none)."""
        out = []
        for m in messages:
            clean = self.text(m.content)
            out.append(m if clean == m.content else m.model_copy(update={"content": clean}))
        return out

    def fields(self, data: Any, names: Sequence[str] = ("content", "title", "aliases")) -> Any:
        """A memory (or a patch to one) with its words' secrets replaced; unset fields stay unset."""
        update: dict[str, Any] = {}
        for name in names:
            value = getattr(data, name, None)
            if isinstance(value, str):
                clean = self.text(value)
            elif isinstance(value, list):
                clean = [self.text(v) if isinstance(v, str) else v for v in value]
            else:
                continue
            if clean != value:
                update[name] = clean
        return data.model_copy(update=update) if update else data


def compile_pattern(pattern: str) -> re.Pattern:
    """An operator's extra pattern, or a ValueError that names it."""
    try:
        return re.compile(pattern)
    except re.error as e:
        raise ValueError(f"redact_patterns: {pattern!r} is not a valid regular expression ({e})") from None


_DEFAULT = Redactor()


def redact(text: str) -> tuple[str, list[Finding]]:
    """The text with every secret replaced by `[redacted: <kind>]`, and what was found."""
    return _DEFAULT.redact(text)
