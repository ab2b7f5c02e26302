"""Secrets as people say them in chat, for core/redact.py: passwords, passphrases, PINs, door,
safe and 2FA codes and CVVs said in words (English, Chinese, French, German, Spanish, Italian,
Portuguese, Dutch), login pairs after a service name ("netflix: jane / sunshine42"), national id
numbers that pass their checks (China's resident id, a US social security number) and, when the
operator asks, phone numbers. Pure: each detector takes the text and yields spans
`(kind, detector, start, end)`; core/redact.py makes them findings and merges them.

Tuned on the "tune" two thirds of tests/core/redaction_corpus.py (written before this module);
bench/redaction.py reports the held-out third separately.
"""

from __future__ import annotations

import re
from typing import Iterator

Span = tuple[str, str, int, int]  # kind, detector, start, end
# core/redact.py shows the detectors an earlier placeholder as a run of this letter: a word to its
# neighbours (as the secret it replaced was), never a value, and no context ("[redacted: card number]")
MASK = "ǂ"


# ---- secrets said in words ----------------------------------------------------------------------
#
# A head names a secret ("password", "mot de passe", "door code", "验证码"); an operator joins it to
# the value (": ", " is ", " ist ", "是", or a bare space); the value is read by the head's kind.
# Each stage is a small regex matched at a known position, so a scan stays linear in the text (no
# pattern nests one unbounded quantifier inside another).

_LATIN = "A-Za-z0-9À-ɏ"


def _heads(latin: str, cjk: str = "") -> re.Pattern:
    # CJK heads have no word boundaries ("wifi密码是…", "我的PIN码"); Latin ones must stand alone
    return re.compile(rf"(?<![{_LATIN}])(?:{latin})(?![{_LATIN}])" + (f"|{cjk}" if cjk else ""), re.IGNORECASE)


# (kind of value, heads). "password" values are any word that is not a description; "phrase" values
# run to the end of the clause; "code" values need digits; "gated" heads are ordinary words ("code",
# "key", "combo") that name a secret only next to a lock, a sign-in or a card (_GATES).
_HEADS = (
    ("password", _heads(
        r"pass(?:word|code)s?|passwd|pwd|pw|pass|mot\s+de\s+passe|mdp|passwort|kennwort|contraseñas?|clave|senhas?"
        r"|palavra-passe|wachtwoord|parola\s+d['’]ordine|(?:wi-?fi|wlan|wpa2?|router)[\s-]*(?:key|code|schlüssel|sleutel)"
        r"|network\s+key|code\s+(?:du\s+)?wi-?fi",
        r"密码|密碼|口令|暗号|暗號")),
    ("phrase", _heads(r"pass\s*phrases?|(?:seed|recovery|secret)\s+phrase|mnemonic(?:\s+phrase)?", r"助记词|助記詞")),
    ("code", _heads(
        r"pin(?:\s*(?:code|number|码|碼))?|pincode|cvv2?|cvc2?|csc|security\s+code|otp|one[- ]time\s+(?:pass)?code"
        r"|(?:2fa|mfa|two[- ]factor|totp|sms|login|sign[- ]?in|auth(?:entication|enticator)?)\s+code|verification\s+code"
        r"|(?:backup|recovery)\s+(?:code|key)s?|(?:authenticator\s+)?setup\s+key"
        r"|(?:door|gate|alarm|disarm|safe|locker|lockbox|garage|entry|entrance|access|building|keypad|padlock|lock|unlock"
        r"|storage|lock\s*screen)\s+(?:codes?|combination|combo|pin)"
        r"|code\s+(?:de\s+)?(?:vérification|sécurité|pin|d['’]accès)|digicode"
        r"|(?:bestätigungs|sicherheits|verifizierungs|zugangs|tür|tor|verificatie|toegangs|beveiligings)code"
        r"|c[oó]digo\s+de\s+(?:verificaci[oó]n|verifica[cç][aã]o|seguridad|seguran[cç]a|acceso|acesso)"
        r"|codice\s+(?:di\s+)?(?:verifica|sicurezza|accesso)",
        r"(?i:pin)\s*[码碼]|验证码|驗證碼|校验码|校驗碼|动态码|動態碼|备用码|備用碼|备份码|恢复码|恢復碼|门禁码|門禁碼|安全码|安全碼")),
    ("gated", _heads(r"codes?|combination|combo|combinaison|kombination|combinazione|combinaci[oó]n|combina[cç][aã]o"
                     r"|c[oó]digo|codice|key|cid")),
)
_GATES = {
    "key": re.compile(r"wi-?fi|wlan|wpa|ssid|network|router|hotspot|网络|網絡", re.I),
    "cid": re.compile(r"card|amex|american\s+express|\d{4}[ -]?\d{6}[ -]?\d{5}", re.I),
    # what a code opens: a lock or door, a sign-in
    "": re.compile(
        r"safe|door|gate|alarm|locker|lock|keypad|garage|entrance|building|storage|apartment|house|disarm|sign[\s-]?in|log[\s-]?in"
        r"|verif|2fa|otp|authenticat|porte|portail|accès|immeuble|coffre|cadenas|tür|tor\b|zugang|tresor|schloss|puerta|port[oó]n"
        r"|portal|acceso|caja\s+fuerte|candado|alarma|porta|cancello|accesso|cassaforte|lucchetto|allarme|portão|acesso|cofre"
        r"|cadeado|deur|poort|toegang|kluis|slot|门|門|保险柜|保險櫃|锁|鎖", re.I),
}
# A code that unlocks nothing: "zip code 94103", "error code 503", "promo code SAVE20".
_HARMLESS_CODE = re.compile(
    r"(?:zip|postal|post|area|country|dial(?:ling)?|promo(?:tional)?|discount|coupon|voucher|gift|referral|invite|dress|source|error"
    r"|exit|status|return|response|http|bar|qr|product|colou?r|tracking|booking|reference|postleit|postal|postale)[\s-]*$", re.I)
# Heads that are also ordinary words ("a day pass: free entry"): their value must look made up.
_WEAK = frozenset("pass pw clave key".split())

# Words that describe a password instead of being one: "my password is wrong", "the PIN is the
# same", "das Passwort ist falsch", "la contraseña es incorrecta".
_NOT_A_VALUE = frozenset(
    """a an the my your his her their our its this that these those what which who how why when where
    not no never still also now just only really very too so quite pretty rather same different being
    wrong incorrect correct right invalid valid expired required needed necessary optional strong
    weak long short simple easy hard complex secure safe unsafe new old changed reset saved stored
    set written hidden secret private unknown forgotten lost empty blank protected encrypted case
    sensitive generated managed attached below above here there in on at for to of with from by
    and or but if as something nothing anything everything somewhere one two three four five six
    seven eight mine yours working broken fine ok okay good bad great unique random similar identical
    memorable terrible awful useless public known obvious predictable temporary mandatory personal
    none null n/a manager policy field string str int bool boolean text varchar undefined true false
    faux fausse incorrecte oublié expiré bloqué vide nouveau ancien trop très pas bien le la les mon ma
    falsch richtig abgelaufen vergessen gesperrt geändert neu alt leer sicher geheim der die das mein
    zu nicht sehr noch incorrecta incorrecto errónea olvidada caducada bloqueada nueva vieja segura el
    mi tu su muy sbagliata sbagliato errata scaduta bloccata nuova vecchia sicura il lo mio troppo non
    molto ancora errada errado incorreta expirada nova velha o meu minha muito não ainda onjuist fout
    verkeerd verlopen geblokkeerd nieuw oud veilig vergeten zelfde het mijn te niet erg nog""".split()
)
# Chinese values are words too ("密码是芝麻开门"), but not a description ("密码是我的生日"): such a
# description starts with a pronoun, a number word or a negation, or ends in a particle.
_CJK_VALUE = re.compile(r"[\u4e00-\u9fff]{2,8}[!-~]{0,24}(?![\u4e00-\u9fff])")
_CJK_DESCRIBES = re.compile(r"^[我你他她它您这這那哪什多几幾不没沒错錯对對空默一二三四五六七八九十两兩每同和跟也都很太有在用就会會要能]|[的了吗嗎呢吧啊]$")

_OP_EXPLICIT = (
    (re.compile(r"[\"']?[ \t]*(?:[:=：]|=>|->)[ \t]*\n?[ \t]*"), "colon"),  # also `"password": "…"`
    (re.compile(r"[ \t]+(?:is\s+now|is\s+still|is|was|are|has\s+been|will\s+be|remains|becomes|est|c['’]est|ist|lautet|es|era|è|é"
                rf"|zijn|wordt)(?![{_LATIN}])[ \t]*[:：]?[ \t]*", re.I), "verb"),
    (re.compile(r"[ \t]*(?:就是|是|为|為|设为|設為|设成|設成|改成了?|改为|改為|换成了?|換成了?|变成了?|變成了?)[ \t]*[:：]?[ \t]*"), "verb"),
    (re.compile(r"[ \t]*\?[ \t]*(?:it['’]?s|it\s+is)[ \t]+", re.I), "verb"),  # "my password? it's dragonfly99"
    (re.compile(r"['’]s[ \t]+"), "verb"),  # "my pin's 4471"
    (re.compile(r"[ \t]*\?[ \t]+"), "bare"),  # "the wifi password? BlueDog77": only a made-up value
)
_OP_SET_TO = re.compile(r"[ \t]+(?:to|auf|en|naar|para|a|su|in)[ \t]+", re.I)  # "changed my password to …"
_SET_VERB = re.compile(r"\b(?:set|setting|changed?|changing|reset|updated?|switched|made|geändert|gesetzt|changé|cambiad[oa]"
                       r"|cambiato|mudei|mudou|gewijzigd|veranderd)\b", re.I)
# A short aside before a colon ("security code sent by SMS: 902 611", "is the same as always: …"),
# holding no digits (they would be the value) and no earlier placeholder.
_OP_ASIDE = re.compile(rf"[ \t]+[^:：\n.?!;\d{MASK}]{{1,40}}?[:：][ \t]*")
_OP_BARE = re.compile(r"[ \t]+")
_OP_BARE_CJK = re.compile(r"[ \t]*")
# "password for my bank account", "code de la porte", "PIN del bancomat", "Zugangscode für das Tor"
_BRIDGE_PREP = re.compile(
    r"[ \t]+(?:for|to|of|on|at|in|de|du|des|d['’]|del|della|dello|dei|do|da|dos|das|van|voor|für|vom|von|zum|zur|pour|para|per)"
    r"(?=[ \t]|(?<=['’]))", re.I)
_BRIDGE_WORD = re.compile(r"[ \t]*[\w'’.+&-]{1,60}")

_TOKEN = re.compile(r"[^\s\u3000-\u303f\uff00-\uffef\u4e00-\u9fff]{1,120}")
_CODE = re.compile(r"[A-Za-z0-9]{1,40}(?:-[A-Za-z0-9]{1,40}){0,8}[#*]?")
_CODE_MORE = re.compile(r"(?:,[ \t]*|[ \t]+)([A-Za-z0-9]{1,40}(?:-[A-Za-z0-9]{1,40}){0,8})")  # "8472-1935, 6620-4418", "339 128"
_CLAUSE = re.compile(r"[^.,;!?。，；！？\n]{1,200}")
_SENTENCE_OPENERS = frozenset("a an the my your his her their our its this that not no too very still also just only in on at"
                              " for to of with from by and or but if as so what which how".split())
# Code people paste is not a password: `password = getpass.getpass()`, `pwd = args.password`,
# `password: ${DB_PASSWORD}`, `self.password = password`.
_CODE_LIKE = re.compile(r"[A-Za-z_]\w*(?:\.\w+)*\s*[(\[]|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$|[$%]|\{\{|(?:pass(?:word)?|pwd|pw)$", re.I)
_QUOTES = {'"': '"', "'": "'", "`": "`", "“": "”", "‘": "’", "「": "」", "«": "»", "„": "“"}
_TRAILING = ".,;:?)]}>\"'`”’」"


def _made_up(value: str, strong: bool = False) -> bool:
    """Reads like a chosen secret rather than a word of the sentence: a digit, a symbol or (unless
    `strong` evidence is needed) a capital after a small letter ("HomeNet2024!", "s3cr3t", "BlueSky";
    not an acronym such as "IMEI")."""
    return bool(re.search(r"\d|[^\w\s]" if strong else r"\d|[^\w\s]|(?<=[a-z])[A-Z]", value))


def _describes(value: str) -> bool:
    word = value.casefold().rstrip("!")
    # "my password is expiring", "the code is compromised": a participle describes
    return word in _NOT_A_VALUE or (value.isalpha() and value.islower() and value.endswith(("ing", "ed")))


def _quoted(text: str, pos: int) -> tuple[int, int] | None:
    close = _QUOTES.get(text[pos : pos + 1])
    end = text.find(close, pos + 1, pos + 120) if close else -1
    return (pos + 1, end) if end > pos + 1 and "\n" not in text[pos + 1 : end] else None


def _password_value(text: str, pos: int, how: str, *, weak: bool, phrase: bool) -> tuple[int, int] | None:
    """The span of a password (or passphrase) starting at `pos`, or None when what is there
    describes the password, is code, or (after a bare space) does not look made up."""
    explicit = how in ("colon", "verb")
    quoted = _quoted(text, pos)
    if quoted:
        value = text[quoted[0] : quoted[1]]
        return quoted if value.strip() and not _describes(value.strip()) else None
    if how == "bridged":
        return None  # "password for the router" is not followed by the password itself
    if phrase and explicit and (m := _CLAUSE.match(text, pos)) and len(words := m.group().split()) > 1:
        # after a colon a phrase is the value unless it opens like a sentence ("passphrase: the one
        # from the card"); after "is" it must not open with a describing word ("is too long")
        opener = words[0].casefold()
        if opener in _SENTENCE_OPENERS or (how == "verb" and _describes(words[0])) or words[0].startswith(MASK):
            return None
        return pos, pos + len(m.group().rstrip())
    m = _TOKEN.match(text, pos)
    if not m:
        cjk = _CJK_VALUE.match(text, pos) if explicit else None
        return (pos, cjk.end()) if cjk and not _CJK_DESCRIBES.search(re.sub(r"[!-~]+$", "", cjk.group())) else None
    value = m.group().rstrip(_TRAILING)
    if len(value) < 3 or value[0] in "([{<" or value.startswith((MASK, "/", "~/", "./")) or "://" in value:
        return None
    if _describes(value) or _CODE_LIKE.match(value) or ((weak or not explicit) and not _made_up(value, strong=not explicit)):
        return None  # a value only put next to the head ("pwd hunter4") needs a digit or a symbol
    return pos, pos + len(value)


def _code_value(text: str, pos: int) -> tuple[int, int] | None:
    """The span of a code starting at `pos` (digits required: "4B72", "8472-1935, 6620-4418")."""
    quoted = _quoted(text, pos)
    m = _CODE.match(text, quoted[0] if quoted else pos)
    if not m:
        return None
    end = m.end()
    for _ in range(12):  # a code said in groups, or several backup codes in a list
        more = _CODE_MORE.match(text, end)
        if not (more and len(more.group(1)) >= 3 and re.search(r"\d", more.group(1))):
            break
        end = more.end()
    value = text[m.start() : end]
    digits = sum(ch.isdigit() for ch in value)
    return (m.start(), end) if digits >= 3 or (digits and len(value) >= 8) else None


def _ops(text: str, head: re.Match) -> Iterator[tuple[int, str]]:
    """Where a value may start after the head (or after a bridge such as "for the router"), and how
    it was introduced: "colon" (":", "="), "verb" ("is", "ist", "是"), "aside" ("sent by SMS:"),
    "bare" (a space only) or "bridged" (a space after a bridge: "codice del cancello 6060")."""
    cjk = not head.group()[-1:].isascii()
    starts = [(head.end(), True)]
    bridge = _BRIDGE_PREP.match(text, head.end())
    if bridge:
        pos = bridge.end()
        for _ in range(6):
            word = _BRIDGE_WORD.match(text, pos)
            if not word:
                break
            pos = word.end()
            starts.append((pos, False))
    for start, at_head in starts:
        for op, how in _OP_EXPLICIT:
            if m := op.match(text, start):
                yield m.end(), how
        if _SET_VERB.search(text, max(0, head.start() - 30), head.start()) and (m := _OP_SET_TO.match(text, start)):
            yield m.end(), "verb"
        if m := (_OP_BARE_CJK if cjk else _OP_BARE).match(text, start):
            yield m.end(), "bare" if at_head else "bridged"
        if at_head and (m := _OP_ASIDE.match(text, start)):
            yield m.end(), "aside"


def said_in_words(text: str) -> Iterator[Span]:
    """Passwords, passphrases and codes stated with their value, in any order people say them."""
    for kind, heads in _HEADS:
        for head in heads.finditer(text):
            word = head.group().casefold()
            if kind == "gated" and _HARMLESS_CODE.search(text, max(0, head.start() - 25), head.start()):
                continue
            for pos, how in _ops(text, head):
                if text.startswith(MASK, pos):
                    break  # its value was redacted before: nothing further on is this head's
                if kind in ("password", "phrase") or word == "key":  # "wifi …, key espresso42"
                    span = _password_value(text, pos, how, weak=word in _WEAK, phrase=kind == "phrase")
                else:
                    span = _code_value(text, pos)
                if span and kind == "gated":
                    gate = _GATES.get(word, _GATES[""])
                    if not gate.search(text, max(0, head.start() - 40), min(len(text), span[1] + 30)):
                        span = None
                if span:
                    secret = "password" if kind in ("password", "phrase") or word == "key" else "access code"
                    yield secret, "words", *span
                    break
    yield from _reversed(text)
    yield from _login_pairs(text)


# "I use hunter2 as my password", "hunter2 is my password", "483920 is your verification code",
# "the key safe opens with 3307"
_REVERSED = (
    ("password", re.compile(r"\b(?:use|uses|used|using)\s+(?P<value>\S{3,80})\s+as\s+(?:(?:my|the|a|our|his|her|their)\s+)?"
                            r"(?:[\w-]+\s+)?(?:pass(?:word|code|phrase)|pin)\b", re.I)),
    ("password", re.compile(r"(?<!\S)(?P<value>\S{3,80})\s+(?:is|was)\s+(?:my|our|his|her|their|the)\s+(?:[\w-]+\s+)?"
                            r"pass(?:word|code|phrase)\b", re.I)),
    ("access code", re.compile(r"(?<!\S)(?P<value>\S{3,80})\s+(?:is|was)\s+(?:my|our|his|her|their|the|your)\s+(?:[\w-]+\s+){0,2}"
                               r"(?:pin|code|otp)\b", re.I)),
    ("access code", re.compile(r"\b(?:safe|lock|lockbox|padlock|door|gate|locker)\b[^.\n]{0,40}?\b(?:opens?|unlocks?)\s+with\s+"
                               r"(?:the\s+)?(?:code\s+)?(?P<value>\S{3,40})", re.I)),
)


_REVERSED_HINT = re.compile(r"pass|pin|code|otp|opens|unlocks", re.I)  # the patterns above scan every word: skip them early


def _reversed(text: str) -> Iterator[Span]:
    if not _REVERSED_HINT.search(text):
        return
    for kind, rx in _REVERSED:
        for m in rx.finditer(text):
            value = m.group("value").rstrip(_TRAILING).lstrip("\"'“‘")
            start = m.end("value") - len(m.group("value").lstrip("\"'“‘"))
            if kind == "access code" and sum(ch.isdigit() for ch in value) < 3:
                continue
            if _made_up(value) and MASK not in value:
                yield kind, "words", start, start + len(value)


# "my netflix login: jane / sunshine42", "Hulu - tom.w / Popcorn2021", "微博 lihua / lihua1314"
_LOGIN_PAIR = re.compile(r"(?<![\w@./-])(?P<user>@?\w[\w.@+-]{0,63})(?P<slash>[ \t]*/[ \t]*)(?P<value>[^\s/]{4,80})(?!\S)")
_LOGIN_WORDS = re.compile(
    r"log[\s-]?in|sign[\s-]?in|account|acct|credentials|creds|user(?:name)?|identifiant|compte|usuario|cuenta|utente|conta"
    r"|usuário|gebruiker|zugangsdaten|konto|benutzer|账号|帳號|账户|帳戶|用户名|用戶名|登录|登錄", re.I)
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")
_PAIR_LEAD = re.compile(r"(?:[:：\-–—]|[\u4e00-\u9fff])[ \t]*$")


def _login_pairs(text: str) -> Iterator[Span]:
    for m in _LOGIN_PAIR.finditer(text):
        value = m.group("value").rstrip(_TRAILING)
        line = text.rfind("\n", max(0, m.start() - 60), m.start())
        before = text[max(0, line + 1, m.start() - 60) : m.start()]
        said, lead = bool(_LOGIN_WORDS.search(before)), bool(_PAIR_LEAD.search(before))
        said = said or bool(_EMAIL.fullmatch(m.group("user")))  # an e-mail address is a user name
        if _EMAIL.fullmatch(value):
            continue  # "mail bob@… / alice@…": two addresses
        if len(value) < 4 or _describes(value) or MASK in value or not re.search(r"[^\W\d_]", value):
            continue
        # "read/write", "x86 / arm64", "login with Google / GitHub": a slash between two words is a
        # login only after a service or login word and a colon, or with a password-like value
        if re.search(r"\d|[^\w]", value):
            if not (said or (lead and " " in m.group("slash"))):
                continue
        elif not (said and lead):
            continue
        yield "password", "login pair", m.start("value"), m.start("value") + len(value)


# ---- numbers that belong to a person ------------------------------------------------------------

# Words just before a number that say what it is ("IMEI 3569…", "order number 2024…", "订单号…"):
# such a number is no card, id or phone number, whatever its check digit says.
_LABELLED = re.compile(
    r"(?<![A-Za-z])(?:imei|meid|esn|iccid|serial|s/n|sn|tracking|order|invoice|ticket|transaction|parcel|shipment|part|ref(?:erence)?"
    r"|sku|isbn|case|booking|confirmation|receipt|customer|单|單|订单|訂單|流水|序列|串|编|編|运单|運單|快递|快遞|发票|發票|交易"
    r"|numéro\s+de\s+(?:commande|suivi|série)|bestellnummer|sendungsnummer|seriennummer|pedido|seguimiento|ordine|spedizione"
    r"|encomenda|rastreio|bestelling|zending)(?:\s*(?:number|no\.?|nr\.?|num|#|id|code|号|號|码|碼))?"
    r"\s*(?:[:：#=]|is|was|是|为|為)?\s*$", re.I)


def labelled(text: str, start: int) -> bool:
    """Whether the words just before `start` name the number there as an identifier of a thing."""
    return bool(_LABELLED.search(text, max(0, start - 40), start))


# China's resident identity number (GB 11643): six digits of region, the birth date, three of
# sequence, and an ISO 7064 MOD 11-2 check character.
_CN_ID = re.compile(r"(?<![0-9A-Za-z])[1-8][0-9]{16}[0-9Xx](?![0-9A-Za-z])")
_CN_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def _cn_id_valid(number: str) -> bool:
    check = "10X98765432"[sum(int(d) * w for d, w in zip(number, _CN_WEIGHTS)) % 11]
    year, month, day = int(number[6:10]), int(number[10:12]), int(number[12:14])
    days = (31, 29 if year % 4 == 0 and (year % 100 or year % 400 == 0) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    return check == number[17].upper() and 1900 <= year <= 2100 and 1 <= month <= 12 and 1 <= day <= days[month - 1]


# A US social security number: written 123-45-6789 it is one by its shape; spaced or run together
# it needs the word before it. Never 000, 666 or 9xx, a 00 group or a 0000 serial.
_SSN = re.compile(r"(?<![0-9-])(?P<area>[0-8][0-9]{2})(?P<sep>[- ]?)(?P<group>[0-9]{2})(?P=sep)(?P<serial>[0-9]{4})(?![0-9-])")
_SSN_SAID = re.compile(r"(?<![A-Za-z])(?:ssn|ss#|social\s+security(?:\s+(?:number|no\.?|#))?|social)\b[^\n\d]{0,20}$", re.I)

# Phone numbers (redacted only when the operator asks): an international or bracketed prefix, a
# Chinese mobile, a national number starting 0, or any run of digits after a phone word.
_PHONE = re.compile(r"(?<![A-Za-z0-9+.-])(?:\+|\(\d{1,4}\)[ .-]?)?\d[\d .()-]{5,18}\d(?![A-Za-z0-9.-]|[ .()-]\d)")
_PHONE_SAID = re.compile(
    r"(?<![A-Za-z])(?:phone|tel|mobile|cell|call|number|whatsapp|fax|手机|手機|电话|電話|号码|號碼|numéro|téléphone|portable|telefon"
    r"|handy|erreichbar|teléfono|móvil|telefono|cellulare|telefone|celular|telefoon|mobiel|bel)\b[^\n\d]{0,15}$", re.I)


def _phone(text: str, m: re.Match) -> bool:
    raw, digits = m.group(), re.sub(r"\D", "", m.group())
    if not 7 <= len(digits) <= 15 or re.fullmatch(r"\d{4}-\d\d-\d\d|\d\d?[./-]\d\d?[./-]\d{2,4}", raw) or labelled(text, m.start()):
        return False
    return bool(raw[0] in "+(" or re.fullmatch(r"1[3-9]\d{9}", digits) or (digits[0] == "0" and len(digits) >= 9)
                or re.fullmatch(r"\d{3}[ .-]\d{3}[ .-]\d{4}", raw) or _PHONE_SAID.search(text, max(0, m.start() - 30), m.start()))


def national_ids(text: str) -> Iterator[Span]:
    """China resident ids and US social security numbers (redacted by default: they name a person)."""
    for m in _CN_ID.finditer(text):
        if _cn_id_valid(m.group()) and not labelled(text, m.start()):
            yield "national id", "cn resident id", m.start(), m.end()
    for m in _SSN.finditer(text):
        if m.group("area") in ("000", "666") or m.group("group") == "00" or m.group("serial") == "0000":
            continue
        said = _SSN_SAID.search(text, max(0, m.start() - 40), m.start())
        if said or (m.group("sep") == "-" and not labelled(text, m.start())):
            yield "national id", "us ssn", m.start(), m.end()


def phone_numbers(text: str) -> Iterator[Span]:
    """Phone numbers; core/redact.py asks only when the operator turned them on."""
    for m in _PHONE.finditer(text):
        if _phone(text, m):
            yield "phone number", "phone", m.start(), m.end()
