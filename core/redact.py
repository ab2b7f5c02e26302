"""Secrets never stored: find API keys, tokens, private keys, passwords, access codes, card
numbers, IBANs and national id numbers in a text (and phone numbers, when the operator asks) and
replace each with a placeholder such as `[redacted: api key]`. Pure: text in, text and findings
out; nothing is read or written.

Where a maintained detector exists it does the work: Yelp's detect-secrets plugins recognise
provider token formats (AWS, GitHub, GitLab, Slack, Stripe, JWT, private key headers, ...) and
supply the Shannon entropy used on `key=value` values; python-stdnum checks card numbers (Luhn)
and IBANs (ISO 13616 mod 97 and each country's layout). Amber adds only what those libraries
cannot know because they scan code, not conversation: current OpenAI and Anthropic key formats,
assignments whose value looks random, and (core/redact_chat.py) secrets as people say them:
"wifi name HomeNet, password HomeNet2024!", "my netflix login: jane / sunshine42", "密码：Abc12345",
"the code to my safe is 2468", "mot de passe: soleil123".

What counts as a secret, decided for chat text (tests/core/redact_corpus.py and
tests/core/redaction_corpus.py hold examples of each; bench/redaction.py measures both the
corpus and what ordinary turns lose):
- a password, passphrase, passcode, PIN, one-time, 2FA or recovery code, CVV or access code (door,
  gate, locker, safe, alarm) stated with its value, or the password of a login pair: yes, whatever
  the value looks like, unless it is a word that describes the password rather than being it
  ("my password is wrong", "das Passwort ist falsch", "密码是我的生日");
- zip, area, promo, error and dress codes: no (they unlock nothing);
- a value after a secret-sounding key (`api_key=`, `token:`, `client secret is`): when it looks
  random (long enough, entropy high enough), so "Secret: be kind" is left alone;
- a number with a card network's length and first digits passing Luhn, unless the words before
  it say it is something else (IMEI, serial, tracking, order); an IBAN passing its check;
- a China resident id passing its MOD 11-2 check with a real birth date; a US social security
  number written 123-45-6789, or spaced or run together after "SSN" or "social security";
- a phone number: only with `Redactor(phones=True)` (Settings.redact_phone_numbers).
Findings carry the kind and place of each secret, never its value, so they can be logged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from typing import Any, Iterable, Iterator, Sequence

from .redact_chat import MASK, labelled, national_ids, phone_numbers, said_in_words

PLACEHOLDER = "[redacted: {kind}]"
_PLACEHOLDER_RE = re.compile(r"\[redacted: [a-z ]+\]")


@dataclass(frozen=True)
class Finding:
    """One secret found: what kind, which detector, where it was in the original text."""

    # api key, token, private key, password, access code, card number, iban, national id,
    # phone number, secret
    kind: str
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


_BLANKS = re.compile(r"[ \t]{2,}")
_SEGMENT = 2000
# npm's pattern (`//.+/:_authToken=`) is quadratic on a line of slashes; it cannot match without this
_NEEDS = {"NpmDetector": "_authtoken"}


def _segments(text: str) -> list[str]:
    """The text as detect-secrets reads a file, line by line, with runs of blanks squeezed and long
    lines cut (at a blank where there is one): some of its patterns backtrack polynomially on a
    long line (` *` around ` +` in its assignment regex, `//.+/` in npm's). A found value is looked
    up again in the original text, and a token cut in two grows back to its whole (_grow)."""
    out = []
    for line in text.splitlines():
        line = _BLANKS.sub(" ", line)
        while len(line) > _SEGMENT:
            cut = line.rfind(" ", _SEGMENT // 2, _SEGMENT)
            cut = cut if cut > 0 else _SEGMENT
            out.append(line[:cut])
            line = line[cut:]
        if line.strip():
            out.append(line)
    return out


def _library_tokens(text: str) -> Iterator[Finding]:
    segments = _segments(text)
    for plugin, kind in _plugins():
        name = type(plugin).__name__
        if kind == "private key":
            continue  # the plugin finds the header alone; the block is cut out below
        needs = _NEEDS.get(name)
        found = {v for seg in segments if not needs or needs in seg.lower() for v in plugin.analyze_string(seg)}
        for value in found:
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


# every key name above holds one of these words: a text without any has no assignment, and the
# search for one (a long alternation tried at every position) is a fifth of redacting a chat turn
_KEY_WORDS = re.compile(r"key|secret|token|credential|auth", re.IGNORECASE)


def _assignments(text: str) -> Iterator[Finding]:
    for m in (_ASSIGN.finditer(text) if _KEY_WORDS.search(text) else ()):
        value = m.group("value").rstrip(".,;:")
        if _random_enough(value):
            yield Finding("secret", "assignment", m.start("value"), m.start("value") + len(value))
    for m in _BEARER.finditer(text):
        if _random_enough(m.group("value")):
            yield Finding("token", "bearer", m.start("value"), m.end("value"))


# ---- card numbers and IBANs ----------------------------------------------------------------------

_CARD = re.compile(r"(?<![\w-])(?:\d[ -]?){12,18}\d(?![\w-])")
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}(?![A-Za-z0-9])")


def _card_shaped(d: str) -> bool:
    """Length and leading digits of a card network (ISO/IEC 7812 issuer ranges), so a 15-digit
    IMEI starting 35 or 49 is no card."""
    n = len(d)
    if d[0] == "4":
        return n in (13, 16, 19)  # Visa
    if d[:2] in ("34", "37"):
        return n == 15  # American Express
    if "51" <= d[:2] <= "55" or "2221" <= d[:4] <= "2720":
        return n == 16  # Mastercard
    if d[:2] in ("36", "38", "39") or "300" <= d[:3] <= "305":
        return 14 <= n <= 19  # Diners
    return d[0] in "356" and 16 <= n <= 19  # JCB, Maestro, Discover, UnionPay


def _numbers(text: str) -> Iterator[Finding]:
    if not any(ch.isdigit() for ch in text):
        return
    from stdnum import iban, luhn

    # digits inside an IBAN-shaped string belong to that account number, valid or not
    shaped = [(m.start(), m.end()) for m in _IBAN.finditer(text)]
    for m in _CARD.finditer(text):
        digits = re.sub(r"[ -]", "", m.group())
        # a check digit says a number was typed right, not what it is: an IMEI or a parcel number
        # passes Luhn too, so the words before it count ("IMEI 3569…", "serial number 4539…")
        if any(s <= m.start() < e for s, e in shaped) or labelled(text, m.start()):
            continue
        if _card_shaped(digits) and len(set(digits)) > 1 and luhn.is_valid(digits):
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
    """Redaction as configured: on or off, phone numbers or not, plus the operator's own patterns
    (a regex whose named group `secret`, else its first group, else its whole match is replaced)."""

    def __init__(self, enabled: bool = True, patterns: Sequence[str] = (), phones: bool = False):
        self.enabled = enabled
        self.patterns = tuple(compile_pattern(p) for p in patterns)
        self.phones = phones  # phone numbers are the operator's choice (Settings.redact_phone_numbers)

    def find(self, text: str) -> list[Finding]:
        if not (self.enabled and text):
            return []
        # a placeholder from an earlier pass is never redacted again, and its words are no context
        # either ("[redacted: card number] 4242 …" is not a number said after "number"): the
        # detectors see it as a run of one letter (MASK), bounding its neighbours as the secret did
        held = [(m.start(), m.end()) for m in _PLACEHOLDER_RE.finditer(text)]
        scan = _PLACEHOLDER_RE.sub(lambda m: MASK * len(m.group()), text) if held else text
        found: list[Finding] = [
            *_library_tokens(scan),
            *_extra_tokens(scan),
            *_assignments(scan),
            *_numbers(scan),
            *(Finding(*span) for span in chain(said_in_words(scan), national_ids(scan))),
            *(Finding(*span) for span in (phone_numbers(scan) if self.phones else ())),
        ]
        for n, rx in enumerate(self.patterns):
            for m in rx.finditer(scan):
                group = "secret" if "secret" in rx.groupindex else (1 if rx.groups else 0)
                if m.start(group) >= 0:
                    found.append(Finding("secret", f"pattern {n + 1}", m.start(group), m.end(group)))
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
