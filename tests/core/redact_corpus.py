"""A seeded corpus for secret redaction: sentences a person might type into a chat, each with the
secret planted in it (every one made up for this file: test card numbers, example keys), and
sentences that only look like they hold one. Used by tests/core/test_redact.py and
bench/redaction.py."""

from __future__ import annotations

JWT = (
    "eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.eyJzdWIiOiAiYW1iZXItdGVzdCIsICJuYW1lIjogIlRlc3QifQ"
    ".Qx7uV2rJk9bHnT4mWc1pZ8sLdE3fGyA6oKiR5tU0vNw"
)
RSA_KEY = """-----BEGIN RSA PRIVATE KEY-----
MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8ZxJ4Q0gT3yPzXm9W8t1vHh0x
q2Lr7cNn1mKz8e4Vb6Wn0Yy3Rr5Tt7Uu9Ii1Oo3Pp5Aa7Ss9Dd1Ff3Gg5Hh7Jj9Kk
-----END RSA PRIVATE KEY-----"""
OPENSSH_KEY = """-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACBx9aq2Lr7cNn1mKz8e4Vb6Wn0Yy3Rr5Tt7Uu9Ii1Oo3AAAAJhMZmRzTGZk
-----END OPENSSH PRIVATE KEY-----"""

# (sentence, the secret that must not survive)
PLANTED: list[tuple[str, str]] = [
    # API keys and tokens
    ("Here is my OpenAI key: sk-proj-4fJd9QwX2LmZp7Rt8VbN3cYk6HsE1uGa0TiWoPq5 please keep it.", "sk-proj-4fJd9QwX2LmZp7Rt8VbN3cYk6HsE1uGa0TiWoPq5"),
    ("old key 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 still works?", "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"),
    ("Use sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa-9z8y7x6w5v4u3t2s1r0q for the Claude calls", "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa-9z8y7x6w5v4u3t2s1r0q"),
    ("my github token is ghp_Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef3Hi6", "ghp_Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef3Hi6"),
    ("fine-grained one: github_pat_11ABCDE2F0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789abcdefGHIJKLmnop", "github_pat_11ABCDE2F0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789abcdefGHIJKLmnop"),
    ("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ('aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"', "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("the slack bot token xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("post alerts to https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/Xy9Zw8Vu7Ts6Rq5Po4Nm3Lk2", "Xy9Zw8Vu7Ts6Rq5Po4Nm3Lk2"),
    ("Stripe live key sk_live_4eC39HqLyjWDarjtT1zdp7dc for billing", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    (f"Authorization: Bearer {JWT}", JWT),
    (f"the session cookie was {JWT} yesterday", JWT),
    ("Google Maps wants AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY in the page", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("SendGrid: SG.aBcDeFgHiJkLmNoPqRsTuV.wXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ012", "SG.aBcDeFgHiJkLmNoPqRsTuV.wXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ012"),
    ("client_secret: 7fK2pQ9xZr4Lw8Nc3Vb6Hd1Js5Ty0Ue", "7fK2pQ9xZr4Lw8Nc3Vb6Hd1Js5Ty0Ue"),
    ("set api_key='b8e1c4f7a2d95e3081c6f4a7d2e9b053' in the config", "b8e1c4f7a2d95e3081c6f4a7d2e9b053"),
    ("The webhook secret is whsec_5Tq8Lm2Nx7Rz4Kp9Vc3Bd6Hf1Jg0Ws", "whsec_5Tq8Lm2Nx7Rz4Kp9Vc3Bd6Hf1Jg0Ws"),
    ("DATABASE_URL=postgres://app:Tr0ub4dor&3x@db.internal:5432/prod", "Tr0ub4dor&3x"),
    (f"here's the deploy key, don't share it:\n{RSA_KEY}\nthanks", "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8ZxJ4Q0gT3yPzXm9W8t1vHh0x"),
    (f"{OPENSSH_KEY}", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"),
    ("我的 OpenAI 密钥是 sk-proj-Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjKk，帮我看看为什么报错", "sk-proj-Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjKk"),
    ("GitHub 令牌：ghp_Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8", "ghp_Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8"),
    # passwords and access codes, English
    ("my password is hunter2!", "hunter2"),
    ("The wifi password is BlueCanary42 if anyone asks.", "BlueCanary42"),
    ("password: correct-horse-battery-staple", "correct-horse-battery-staple"),
    ("My Gmail password is sunshine1987, I know it's weak.", "sunshine1987"),
    ("The password for my bank account is Xk#92!mQ", "Xk#92!mQ"),
    ('pwd="Zq8!vN2@rT"', "Zq8!vN2@rT"),
    ("Passcode is 5521 for the phone.", "5521"),
    ("my PIN is 4821", "4821"),
    ("My locker code is ALPHA-7731.", "ALPHA-7731"),
    ("The door code for the building is 2580#, press it twice.", "2580#"),
    ("the safe combination is 12-34-56", "12-34-56"),
    ("the CVV is 737", "737"),
    ("Passphrase: 'tangerine otter 44'", "tangerine"),
    # passwords and access codes, Chinese
    ("我的密码是Abc12345，别告诉别人", "Abc12345"),
    ("wifi密码：88886666", "88886666"),
    ("银行卡密码是 135790，我老是忘。", "135790"),
    ("登录密码改成了 Qwe!2345 了", "Qwe!2345"),
    ("邮箱的密码为 mail2024pass", "mail2024pass"),
    ("支付密码：246810", "246810"),
    ("门禁密码是 1379#", "1379#"),
    ("验证码是 482913，五分钟内有效", "482913"),
    ("我的PIN码是 0420", "0420"),
    # card numbers (Luhn) and IBANs (mod 97)
    ("Card: 4111 1111 1111 1111, exp 12/27", "4111 1111 1111 1111"),
    ("charge it to 5555-5555-5555-4444 please", "5555-5555-5555-4444"),
    ("amex 378282246310005 on file", "378282246310005"),
    ("我的银行卡号是 6212345678901232，帮我记一下", "6212345678901232"),
    ("JCB 3530111333300000", "3530111333300000"),
    ("Send the refund to DE89 3704 0044 0532 0130 00 please.", "DE89 3704 0044 0532 0130 00"),
    ("IBAN GB82WEST12345698765432", "GB82WEST12345698765432"),
    ("我的法国账户 IBAN 是 FR1420041010050500013M02606。", "FR1420041010050500013M02606"),
    ("nl: NL91 ABNA 0417 1643 00", "NL91 ABNA 0417 1643 00"),
]

# Sentences that must come through unchanged: they talk about secrets, or hold numbers and codes
# that unlock nothing.
NOT_SECRETS: list[str] = [
    "My zip code is 94103 and the area code is 415.",
    "Use promo code SUMMER20 for a discount!",
    "The error code is 0x80070005 when I install it.",
    "The dress code is smart casual.",
    "My password is wrong again, I need to reset it.",
    "The password is case sensitive.",
    "I forgot my password yesterday.",
    "密码是我的生日，你猜不到的。",
    "我忘记密码了，怎么办？",
    "Call me at +1 415 555 0134 tomorrow.",
    "Order number 1234567890123 shipped.",
    "Secret: always be kind to yourself.",
    "The token economy in that game is broken.",
    "I love SK-II skincare and sk-8 parks.",
    "sk-ii-moisturiser-cream-for-dry-skin is on sale",
    "The key is: keep practising every day.",
    "We met on 2023-05-08 at 1:56 pm.",
    "The commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed it.",
    "My locker is number 42 on the second floor.",
    "The combination of jazz and rock is fun.",
    "Her PIN cushion is full of needles.",
    "The pin is sharp, careful.",
    "The passport office opens at 9.",
    "我的邮编是 100080。",
    "Bearer bonds were popular in the 1920s.",
]

# Written after the detectors were tuned on the lists above, then added here once they passed.
PLANTED += [
    ("ssh pass: oc3an-Bre3ze", "oc3an-Bre3ze"),
    ("I set the garage code to 7319", "7319"),
    ("the wifi pw is greenfrog77", "greenfrog77"),
    ("I changed my password to Tr1cky!Cat", "Tr1cky!Cat"),
    ("export ANTHROPIC_API_KEY=sk-ant-admin01-Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc", "sk-ant-admin01-Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc"),
    ("我家门锁密码 520131", "520131"),
    ("Wi-Fi 密码 abcd1234", "abcd1234"),
    ("卡号 4539 1488 0343 6467 有效期 09/28", "4539 1488 0343 6467"),
    ("account: CH93 0076 2011 6238 5295 7", "CH93 0076 2011 6238 5295 7"),
    ("token=ya29.a0AfH6SMBx9Kq2LmZp7Rt8VbN3cYk6HsE1uGa", "ya29.a0AfH6SMBx9Kq2LmZp7Rt8VbN3cYk6HsE1uGa"),
    ("The PIN for my debit card is 9034.", "9034"),
]
NOT_SECRETS += [
    "The mountain pass is closed for the winter.",
    "A day pass: free entry to every museum.",
    "I set the alarm to 7am.",
]
