"""A corpus for the redactor: secrets people say in chat, and harmless look-alikes.

Every sentence here is made up. SECRETS are sentences with the substrings that
must not survive redaction; HARMLESS are sentences that must come out unchanged
(technical strings people paste, and sentences that talk *about* passwords and
codes without giving one).

The corpus was written before the detector was tuned against it.
Each list is split deterministically: every third item (index 2, 5, 8, ...) is
"held_out" and must not be used for tuning; the rest is "tune". Report the two
splits separately (bench/redaction.py does).

Phone numbers are harmless by default (phone redaction is an opt-in setting);
PHONES lists sentences whose number must go when that setting is on.
"""

from __future__ import annotations

from dataclasses import dataclass

TUNE = "tune"
HELD_OUT = "held_out"


@dataclass(frozen=True)
class Case:
    text: str
    secrets: tuple[str, ...]  # empty for harmless cases
    lang: str
    kind: str
    split: str


def _split(index: int) -> str:
    return HELD_OUT if index % 3 == 2 else TUNE


def _cases(rows: list[tuple]) -> list[Case]:
    return [
        Case(text=row[2], secrets=tuple(row[3:]), lang=row[0], kind=row[1], split=_split(i))
        for i, row in enumerate(rows)
    ]


def leaked(case: Case, output: str) -> bool:
    """True when any part of a secret is still readable in `output`.

    A secret leaks when it survives whole, or, for a multi-word secret (a
    passphrase), when any of its words of 4+ characters survives that does not
    also occur in the sentence outside the secret.
    """
    for secret in case.secrets:
        if secret in output:
            return True
        words = secret.split()
        if len(words) > 1:
            rest = case.text.replace(secret, " ")
            if any(len(w) >= 4 and w in output and w not in rest for w in words):
                return True
    return False


def changed(case: Case, output: str) -> bool:
    return output != case.text


# (lang, kind, sentence, secret, [secret, ...])
_SECRET_ROWS: list[tuple] = [
    # --- English: passwords said in plain words
    ("en", "password", "wifi name HomeNet, password HomeNet2024!", "HomeNet2024!"),
    ("en", "password", "the pass is tiger77", "tiger77"),
    ("en", "password", "pwd hunter4", "hunter4"),
    ("en", "password", "I use hunter2 as my password everywhere", "hunter2"),
    ("en", "login", "my netflix login: jane / sunshine42", "sunshine42"),
    ("en", "code", "the code to my safe is 2468", "2468"),
    ("en", "password", "My password is Blue-Falcon-88, please remember it", "Blue-Falcon-88"),
    ("en", "password", "password: correcthorse", "correcthorse"),
    ("en", "password", "Gmail password = Qw3rty!!", "Qw3rty!!"),
    ("en", "password", "new wifi password is 'lemonade-stand-9'", "lemonade-stand-9"),
    ("en", "password", "the wifi key is xK9#mPq2", "xK9#mPq2"),
    ("en", "password", "My Facebook password is Sunflower_22", "Sunflower_22"),
    ("en", "password", "pw: moonlight88", "moonlight88"),
    ("en", "password", "passwd=Zebra!Crossing4", "Zebra!Crossing4"),
    ("en", "password", "Her password was 'letmein2019' back then", "letmein2019"),
    ("en", "password", "my password? it's dragonfly99", "dragonfly99"),
    ("en", "password", "I set the password to caterpillar8 for the kids' tablet", "caterpillar8"),
    ("en", "password", "just changed my password to Mango!Tango5", "Mango!Tango5"),
    ("en", "password", "the password for the shared drive is Winter$now1", "Winter$now1"),
    ("en", "password", "If you need the wifi: network CoffeeCorner, key espresso42", "espresso42"),
    ("en", "password", "my apple id is jane.doe@icloud.com and the password is Pineapple#12", "Pineapple#12"),
    ("en", "password", "Password for the NAS: gr8-b1g-d1sk", "gr8-b1g-d1sk"),
    ("en", "password", "our guest wifi password is welcome2home", "welcome2home"),
    ("en", "password", "remember that my laptop password is Kettle&Crumpet7", "Kettle&Crumpet7"),
    ("en", "password", "The admin password is still admin123, I know, I know", "admin123"),
    ("en", "password", "my email password is the same as always: Rosebud1941", "Rosebud1941"),
    ("en", "password", "PS the pass for the router is tplink-9Q4R", "tplink-9Q4R"),
    ("en", "password", "password 'sunflower' (all lowercase)", "sunflower"),
    ("en", "password", "my password is sunshine", "sunshine"),
    ("en", "password", "I keep using Tr1cky-Pony as the password for games", "Tr1cky-Pony"),
    # --- English: login pairs
    ("en", "login", "login for the router: admin / Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("en", "login", "spotify: mike.k / bluejeans77", "bluejeans77"),
    ("en", "login", "Amazon login is sarah.lee@gmail.com / Kp7!vz2q", "Kp7!vz2q"),
    ("en", "login", "work VPN credentials: jdoe / Autumn_Leaves_2023", "Autumn_Leaves_2023"),
    ("en", "login", "user: root, pass: s3cr3tR00t", "s3cr3tR00t"),
    ("en", "login", "username admin password admin2468", "admin2468"),
    ("en", "login", "login: jdoe@corp.example pass: Blossom#45", "Blossom#45"),
    ("en", "login", "Hulu - tom.w / Popcorn2021", "Popcorn2021"),
    ("en", "login", "Disney+ account: kids@family.example / Mickey4ever", "Mickey4ever"),
    ("en", "login", "email mark@proton.example, password tulip-river-42", "tulip-river-42"),
    ("en", "login", "Bank portal: user jsmith78 pw Rx8!kq2L", "Rx8!kq2L"),
    ("en", "login", "my steam account is gamer_girl_93 / Pixel$Storm8", "Pixel$Storm8"),
    ("en", "login", "HBO login: dad@home.example / Dragons&Wine1", "Dragons&Wine1"),
    ("en", "login", "instagram: @lucy.paints, pw lucy1234!", "lucy1234!"),
    # --- English: passphrases and seed phrases
    ("en", "passphrase", "my passphrase is purple monkey dishwasher seven", "purple monkey dishwasher seven"),
    ("en", "passphrase", "the master password for 1Password is 'Granite Harbor Violin 19'", "Granite Harbor Violin 19"),
    ("en", "passphrase", "my passphrase: correct horse battery staple", "correct horse battery staple"),
    ("en", "passphrase", "SSH key passphrase = bluebird-on-a-wire", "bluebird-on-a-wire"),
    ("en", "passphrase", "wallet seed phrase: orbit velvet canyon lemon drift saddle marble quiet plunge ember frost tunnel",
     "orbit velvet canyon lemon drift saddle marble quiet plunge ember frost tunnel"),
    ("en", "passphrase", "the wifi passphrase is \"the quick brown fox 2024\"", "the quick brown fox 2024"),
    # --- English: PINs, door/gate/alarm/safe codes, combinations
    ("en", "pin", "Remember my bank PIN: 4921", "4921"),
    ("en", "pin", "my pin is 0852", "0852"),
    ("en", "pin", "The PIN for my SIM card is 7294", "7294"),
    ("en", "pin", "New PIN: 2207", "2207"),
    ("en", "pin", "my debit card pin 4863", "4863"),
    ("en", "pin", "phone unlock code 258014", "258014"),
    ("en", "code", "The alarm code is 1357, disarm it when you come in", "1357"),
    ("en", "code", "gate code 4410# for the back gate", "4410"),
    ("en", "code", "door code for the building: 7731", "7731"),
    ("en", "code", "the garage door code is 86420", "86420"),
    ("en", "code", "my locker combination is 12-34-56", "12-34-56"),
    ("en", "code", "bike lock combo 3952", "3952"),
    ("en", "code", "The safe combination is 36-24-12", "36-24-12"),
    ("en", "code", "Lockbox code for the Airbnb is 1122", "1122"),
    ("en", "code", "keypad code 8080 for the side entrance", "8080"),
    ("en", "code", "Note to self: the alarm disarm code is 0911", "0911"),
    ("en", "code", "access code to the storage unit is 5546*", "5546"),
    ("en", "code", "the key safe by the door opens with 3307", "3307"),
    # --- English: 2FA, recovery, verification, one-time codes
    ("en", "2fa", "2FA backup codes: 8472-1935, 6620-4418, 3391-0027", "8472-1935", "6620-4418", "3391-0027"),
    ("en", "2fa", "GitHub recovery codes: 4c1e9-8d2f0 77ab3-e51c9", "4c1e9-8d2f0", "77ab3-e51c9"),
    ("en", "2fa", "your verification code is 482913", "482913"),
    ("en", "2fa", "Verification code: 771204. Don't share it.", "771204"),
    ("en", "2fa", "the 2FA code is 339 128", "339 128"),
    ("en", "2fa", "Recovery key: 4F7K-Q9XZ-22MB-P0LE-8HTY", "4F7K-Q9XZ-22MB-P0LE-8HTY"),
    ("en", "2fa", "Backup code 9218 4470 for my google account", "9218 4470"),
    ("en", "2fa", "Authy recovery code: 83kd-0s9f-2mvp", "83kd-0s9f-2mvp"),
    ("en", "2fa", "One-time code 613077, expires in 10 minutes", "613077"),
    ("en", "2fa", "OTP is 480215", "480215"),
    ("en", "2fa", "Use code 550731 to sign in to your account", "550731"),
    ("en", "2fa", "my authenticator setup key is JBSWY3DPEHPK3PXP", "JBSWY3DPEHPK3PXP"),
    ("en", "2fa", "security code sent by SMS: 902 611", "902 611"),
    # --- English: cards and CVVs
    ("en", "cvv", "card 4242 4242 4242 4242 exp 09/27 cvv 317", "4242 4242 4242 4242", "317"),
    ("en", "cvv", "Visa 5555555555554444, security code 842", "5555555555554444", "842"),
    ("en", "cvv", "Mastercard 5105 1051 0510 5100 exp 11/26 CVV 094", "5105 1051 0510 5100", "094"),
    ("en", "cvv", "Amex 3782 822463 10005, CID 7431", "3782 822463 10005", "7431"),
    ("en", "cvv", "card number 4000 0566 5566 5556, CVC: 629", "4000 0566 5566 5556", "629"),
    # --- English/US: social security numbers
    ("en", "ssn", "my SSN is 536-22-8714", "536-22-8714"),
    ("en", "ssn", "Social Security number 412 68 3390", "412 68 3390"),
    ("en", "ssn", "SSN: 298-04-1176 (for the tax form)", "298-04-1176"),
    ("en", "ssn", "my social is 601-38-2245", "601-38-2245"),
    ("en", "ssn", "put 432-19-8870 on the W-4 as the social security number", "432-19-8870"),
    ("en", "ssn", "ssn 215873304", "215873304"),
    # --- Chinese
    ("zh", "password", "我的密码是 abc12345", "abc12345"),
    ("zh", "password", "家里wifi：名字 ChinaNet-5G，密码 qwer1234asdf", "qwer1234asdf"),
    ("zh", "password", "wifi密码：88886666", "88886666"),
    ("zh", "password", "密码是hunter2", "hunter2"),
    ("zh", "password", "我的银行卡密码是135790", "135790"),
    ("zh", "password", "支付宝支付密码：246810", "246810"),
    ("zh", "password", "登录密码：Zhang@2023", "Zhang@2023"),
    ("zh", "password", "开机密码是9527，别告诉别人", "9527"),
    ("zh", "password", "我把密码改成了 Apple@5566", "Apple@5566"),
    ("zh", "password", "保险柜密码是3141", "3141"),
    ("zh", "password", "邮箱 li@qq.example 密码 Li_mail_88", "Li_mail_88"),
    ("zh", "password", "密码是 芝麻开门", "芝麻开门"),
    ("zh", "password", "车库门密码 8520", "8520"),
    ("zh", "password", "手机解锁密码 147258", "147258"),
    ("zh", "login", "账号 lihua88 密码 Lh!2024abc", "Lh!2024abc"),
    ("zh", "login", "微博 lihua / lihua1314", "lihua1314"),
    ("zh", "login", "爱奇艺账号：138xxxx / aiqiyi2023", "aiqiyi2023"),
    ("zh", "passphrase", "口令：芝麻开门2024", "芝麻开门2024"),
    ("zh", "code", "门禁码 2046#", "2046"),
    ("zh", "code", "小区大门的门禁密码是 6173", "6173"),
    ("zh", "pin", "PIN码是0427", "0427"),
    ("zh", "2fa", "验证码是572910，五分钟内有效", "572910"),
    ("zh", "2fa", "【银行】您的验证码为883021，请勿泄露", "883021"),
    ("zh", "2fa", "短信验证码：660913", "660913"),
    ("zh", "2fa", "动态密码 839201", "839201"),
    ("zh", "2fa", "备用码：4821 9930 1187", "4821 9930 1187"),
    ("zh", "2fa", "恢复码是 7KQ2-M9XD-4HTP", "7KQ2-M9XD-4HTP"),
    ("zh", "cvv", "信用卡 4242 4242 4242 4242，有效期 08/27，安全码 392", "4242 4242 4242 4242", "392"),
    ("zh", "id", "我的身份证号是110105198806150016", "110105198806150016"),
    ("zh", "id", "身份证：44030419900101061X", "44030419900101061X"),
    ("zh", "id", "帮我记一下，身份证号码 310115197512034525", "310115197512034525"),
    ("zh", "id", "我妈的身份证 510107199302281874 放在抽屉里", "510107199302281874"),
    ("en", "id", "my Chinese resident ID is 320102198507120060", "320102198507120060"),
    ("zh", "id", "订票用的证件号 370202196611305239", "370202196611305239"),
    ("zh", "id", "33010619870523105X 是我的身份证", "33010619870523105X"),
    ("zh", "id", "身份证号码：650102200002290415", "650102200002290415"),
    ("zh", "id", "请核对 210106199109187635 这个身份证号", "210106199109187635"),
    # --- French
    ("fr", "password", "mot de passe: soleil123", "soleil123"),
    ("fr", "password", "le code wifi c'est Maison2024", "Maison2024"),
    ("fr", "password", "mon mot de passe est Baguette!78", "Baguette!78"),
    ("fr", "login", "identifiant: marie.d / mdp: Chaton!88", "Chaton!88"),
    ("fr", "code", "Le code de la porte est 4B72", "4B72"),
    ("fr", "pin", "mon code PIN est 6631", "6631"),
    ("fr", "2fa", "code de vérification : 551903", "551903"),
    ("fr", "code", "code d'accès du portail: 2580", "2580"),
    ("fr", "code", "le digicode de l'immeuble est 19A45", "19A45"),
    # --- German
    ("de", "password", "Passwort: Sommer2023!", "Sommer2023!"),
    ("de", "password", "mein Kennwort ist Brezel77", "Brezel77"),
    ("de", "pin", "die PIN ist 8812", "8812"),
    ("de", "code", "Türcode 4477", "4477"),
    ("de", "password", "WLAN-Schlüssel: Fritz!Box9988", "Fritz!Box9988"),
    ("de", "2fa", "Bestätigungscode 660142", "660142"),
    ("de", "code", "Zugangscode für das Tor: 1793", "1793"),
    ("de", "login", "Zugangsdaten Sparkasse: mmueller / Apfelbaum#3", "Apfelbaum#3"),
    ("de", "password", "das WLAN-Passwort lautet Kuckuck2021", "Kuckuck2021"),
    # --- Spanish
    ("es", "password", "contraseña: gato1234", "gato1234"),
    ("es", "password", "mi clave es Madrid#2022", "Madrid#2022"),
    ("es", "pin", "el PIN de la tarjeta es 3805", "3805"),
    ("es", "2fa", "código de verificación 928374", "928374"),
    ("es", "password", "la clave del wifi es Casa_Azul_7", "Casa_Azul_7"),
    ("es", "code", "código de la puerta: 5512", "5512"),
    ("es", "login", "usuario: pablo.r / contraseña: Tortilla99", "Tortilla99"),
    # --- Italian
    ("it", "password", "la password è Pizza4Ever", "Pizza4Ever"),
    ("it", "pin", "il PIN del bancomat è 7719", "7719"),
    ("it", "2fa", "codice di verifica: 302948", "302948"),
    ("it", "code", "codice del cancello 6060", "6060"),
    ("it", "passphrase", "parola d'ordine: girasole88", "girasole88"),
    ("it", "password", "la password del wifi è Gelato_Limone3", "Gelato_Limone3"),
    # --- Portuguese
    ("pt", "password", "senha: saudade2020", "saudade2020"),
    ("pt", "password", "a minha senha do banco é Lisboa!77", "Lisboa!77"),
    ("pt", "2fa", "código de verificação 447201", "447201"),
    ("pt", "pin", "o PIN é 9934", "9934"),
    ("pt", "code", "código do portão 3388", "3388"),
    ("pt", "password", "a senha do wifi é Praia2023verao", "Praia2023verao"),
    # --- Dutch
    ("nl", "password", "wachtwoord: tulpen123", "tulpen123"),
    ("nl", "pin", "mijn pincode is 5067", "5067"),
    ("nl", "password", "de wifi-code is Fiets2024!", "Fiets2024!"),
    ("nl", "2fa", "verificatiecode 819273", "819273"),
    ("nl", "code", "toegangscode van de deur: 1470", "1470"),
    ("nl", "password", "mijn wachtwoord is Stroopwafel8", "Stroopwafel8"),
]

# (lang, kind, sentence)
_HARMLESS_ROWS: list[tuple] = [
    # --- technical strings people paste
    ("en", "date", "Meeting moved to 2024-03-15 at 14:30"),
    ("en", "version", "Upgrading to v2.13.0 fixed the crash"),
    ("en", "sha", "The bug came in with commit 3f9a2c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39"),
    ("en", "sha", "short sha a1b2c3d broke the build"),
    ("en", "uuid", "request id 550e8400-e29b-41d4-a716-446655440000 failed"),
    ("en", "digest", "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"),
    ("en", "order", "Order #112-4839201-5573910 has shipped"),
    ("en", "tracking", "tracking number 1Z999AA10123456784"),
    ("en", "colour", "use hex colour #1e90ff for the header"),
    ("en", "colour", "set the background to #FFAA00"),
    ("en", "timestamp", "timestamp 1700000000123 is in milliseconds"),
    ("en", "timestamp", "logged at 2024-05-01T12:34:56.789Z"),
    ("en", "imei", "IMEI 356938035643809"),
    ("en", "imei", "my phone's IMEI is 490154203237518"),
    ("en", "imei", "the IMEI number: 352099001761481, in case it gets stolen"),
    ("zh", "imei", "手机的IMEI是867234012345671"),
    ("en", "serial", "serial number 4539 1488 0343 6467 on the back of the router"),
    ("en", "digest", "docker pull app@sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"),
    ("en", "version", "version 1.2.3-beta.4+build.567 is on staging"),
    ("en", "model", "the model is gpt-4o-2024-08-06"),
    ("en", "port", "port 8080 is already in use"),
    ("en", "ip", "the printer is at 192.168.1.254"),
    ("en", "mac", "MAC address 00:1A:2B:3C:4D:5E"),
    ("en", "isbn", "ISBN 978-3-16-148410-0"),
    ("en", "pr", "PR #4821 was merged yesterday"),
    ("en", "ticket", "JIRA ticket AMB-1234 is blocked"),
    ("en", "invoice", "invoice INV-2024-00877 is overdue"),
    ("en", "invoice", "invoice 123-45-678 was paid on Monday"),
    ("en", "part", "part no. 987-65-4321 is out of stock"),
    ("en", "ref", "reference 666-12-3456 on the parcel"),
    ("en", "epoch", "epoch 1717171717 is in June 2024"),
    ("en", "time", "It's 3:45 pm here"),
    ("en", "price", "the price is 1299.99 EUR"),
    ("en", "flight", "flight LH 454 departs from gate B22"),
    ("en", "room", "room 1204, floor 12"),
    ("en", "zip", "zip code 94103"),
    ("en", "promo", "use promo code SAVE20 at checkout"),
    ("en", "error", "error code 0x80070005 when installing"),
    ("en", "error", "the server returned error code 503"),
    ("en", "error", "exit code 137 usually means out of memory"),
    ("en", "customer", "customer ID 48213 asked for a refund"),
    ("en", "ticket", "support ticket 9876543210 was closed"),
    ("en", "tracking", "tracking 773201958844122091 shows it in Leipzig"),
    ("en", "order", "order number 202403151234567890 was cancelled"),
    ("en", "lottery", "the lottery numbers were 4 8 15 16 23 42"),
    ("en", "measure", "weight 72 kg, height 180 cm"),
    ("en", "hash", "md5 of the file is d41d8cd98f00b204e9800998ecf8427e"),
    ("en", "key", "the public key fingerprint is SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8"),
    ("en", "date", "born 12/03/1988, married 2015"),
    ("en", "date", "deadline: 15.04.2025"),
    ("en", "version", "pip install fastapi==0.110.1"),
    ("en", "version", "node 20.11.1 and npm 10.2.4"),
    ("en", "time", "the run took 00:12:45.331"),
    # --- phone numbers (harmless by default)
    ("en", "phone", "call me at +1 415 555 0132"),
    ("en", "phone", "my number is (212) 555-0187"),
    ("zh", "phone", "我的手机号是 138 1234 5678"),
    ("zh", "phone", "有事打13812345678"),
    ("en", "phone", "the office line is +44 20 7946 0958"),
    ("fr", "phone", "mon numéro: 06 12 34 56 78"),
    ("de", "phone", "erreichbar unter +49 30 1234567"),
    # --- sentences about passwords/codes without a value
    ("en", "talk", "my password is wrong"),
    ("en", "talk", "I changed my password yesterday"),
    ("en", "talk", "I forgot my password again"),
    ("en", "talk", "the password must be at least 12 characters"),
    ("en", "talk", "the reset password link expired"),
    ("en", "talk", "my password is too long for that site"),
    ("en", "talk", "what's a good password manager?"),
    ("en", "talk", "my password expired this morning"),
    ("en", "talk", "the verification code didn't arrive"),
    ("en", "talk", "2FA is enabled on my account now"),
    ("en", "talk", "I lost my backup codes, what do I do?"),
    ("en", "talk", "the door code changed last week"),
    ("en", "talk", "my PIN expired"),
    ("en", "talk", "the CVV is on the back of the card"),
    ("en", "talk", "enter the code shown on the screen"),
    ("en", "talk", "a passphrase should be five words long"),
    ("en", "talk", "the SSN field on the form is optional"),
    ("en", "talk", "the code is on the fridge"),
    ("en", "talk", "the password is in the password manager"),
    ("en", "talk", "my password is the same as my old one"),
    ("en", "talk", "is it safe to reuse a password?"),
    ("en", "talk", "the pass is closed due to snow"),
    ("en", "talk", "Can you pass the salt?"),
    ("en", "talk", "I got a day pass for the museum"),
    ("en", "talk", "my boarding pass is in my email"),
    ("en", "talk", "she passed the exam with 92 points"),
    ("en", "talk", "the code review took 3 hours"),
    ("en", "talk", "I write code in Python 3.12"),
    ("en", "talk", "pin the tab in Chrome"),
    ("en", "talk", "I pinned 4 messages in the channel"),
    ("en", "talk", "the chip has 8 pins"),
    ("en", "talk", "the gate opens at 7:30"),
    ("en", "talk", "boot into safe mode and try again"),
    ("en", "talk", "I passed 3 cars on the hill"),
    ("en", "talk", "my passport expires 2027-09-01"),
    ("en", "talk", "the safe is in the bedroom closet"),
    ("en", "talk", "the code to unlock the achievement is in the guide"),
    ("en", "talk", "what is a good PIN length?"),
    ("en", "talk", "password reset emails go to spam"),
    ("en", "talk", "the login page is broken on mobile"),
    ("en", "talk", "login with Google / GitHub works"),
    ("en", "talk", "the ratio was 3 / 4 in the end"),
    ("en", "talk", "read/write access for user alice"),
    ("en", "talk", "my recovery after surgery took 6 weeks"),
    ("en", "talk", "use the code snippet below"),
    ("en", "talk", "the area code is 415"),
    ("en", "talk", "error: invalid password (code 401)"),
    ("en", "talk", "the postal code 10001 is Manhattan"),
    ("en", "talk", "Netflix raised the price to 15.49 / month"),
    ("en", "talk", "pass the ball to player 7"),
    # --- Chinese
    ("zh", "talk", "我忘记密码了"),
    ("zh", "talk", "密码需要至少8位"),
    ("zh", "talk", "修改密码的链接过期了"),
    ("zh", "talk", "验证码收不到怎么办"),
    ("zh", "talk", "门禁坏了，物业还没来修"),
    ("zh", "talk", "请输入密码"),
    ("zh", "talk", "密码错误三次会被锁定"),
    ("zh", "talk", "我昨天改了密码"),
    ("zh", "talk", "身份证丢了要去派出所补办"),
    ("zh", "talk", "密码太简单不安全"),
    ("zh", "order", "订单号 202403151234567890 已发货"),
    ("zh", "tracking", "快递单号 SF1234567890123"),
    ("zh", "order", "交易单号 420000123420240315 已退款"),
    ("zh", "order", "流水号987654321098765432"),
    ("zh", "date", "会议定在2024年3月15日下午2点"),
    ("zh", "version", "升级到 v3.2.1 之后就好了"),
    ("zh", "zip", "邮编 100080"),
    ("zh", "price", "一共 1288 元"),
    ("zh", "talk", "这个验证码是图片的，看不清"),
    ("zh", "talk", "PIN码忘了怎么办"),
    # --- French
    ("fr", "talk", "J'ai oublié mon mot de passe"),
    ("fr", "talk", "le mot de passe doit contenir 8 caractères"),
    ("fr", "talk", "le mot de passe est incorrect"),
    ("fr", "zip", "code postal 75011"),
    ("fr", "date", "rendez-vous le 14/07/2024 à 10h"),
    ("fr", "talk", "la porte du garage est cassée"),
    # --- German
    ("de", "talk", "Ich habe mein Passwort vergessen"),
    ("de", "talk", "Das Passwort ist falsch"),
    ("de", "zip", "Postleitzahl 10115"),
    ("de", "talk", "die PIN ist gesperrt"),
    ("de", "date", "Termin am 03.05.2024 um 9 Uhr"),
    ("de", "talk", "der Code ist fertig, bitte reviewen"),
    # --- Spanish
    ("es", "talk", "Olvidé mi contraseña"),
    ("es", "talk", "la contraseña es incorrecta"),
    ("es", "zip", "código postal 28013"),
    ("es", "talk", "el código de verificación no llega"),
    ("es", "date", "nos vemos el 21/06/2024"),
    # --- Italian
    ("it", "talk", "ho dimenticato la password"),
    ("it", "talk", "la password è sbagliata"),
    ("it", "zip", "CAP 00184 Roma"),
    ("it", "talk", "il codice è pronto per la revisione"),
    ("it", "date", "ci vediamo il 02/10/2024"),
    # --- Portuguese
    ("pt", "talk", "esqueci a minha senha"),
    ("pt", "talk", "a senha está errada"),
    ("pt", "zip", "CEP 01310-100"),
    ("pt", "talk", "a senha precisa ter 10 caracteres"),
    ("pt", "date", "a reunião é dia 05/11/2024"),
    # --- Dutch
    ("nl", "talk", "ik ben mijn wachtwoord vergeten"),
    ("nl", "talk", "het wachtwoord is onjuist"),
    ("nl", "zip", "postcode 1012 AB Amsterdam"),
    ("nl", "talk", "de pincode is geblokkeerd"),
    ("nl", "date", "afspraak op 12-09-2024"),
]

# With the phone setting on, these numbers must go (lang, kind, sentence, number).
_PHONE_ROWS: list[tuple] = [
    ("en", "phone", "call me at +1 415 555 0132", "+1 415 555 0132"),
    ("en", "phone", "my number is (212) 555-0187", "(212) 555-0187"),
    ("zh", "phone", "我的手机号是 138 1234 5678", "138 1234 5678"),
    ("zh", "phone", "有事打13812345678", "13812345678"),
    ("en", "phone", "the office line is +44 20 7946 0958", "+44 20 7946 0958"),
    ("fr", "phone", "mon numéro: 06 12 34 56 78", "06 12 34 56 78"),
    ("de", "phone", "erreichbar unter +49 30 1234567", "+49 30 1234567"),
]

SECRETS: list[Case] = _cases(_SECRET_ROWS)
HARMLESS: list[Case] = _cases(_HARMLESS_ROWS)
PHONES: list[Case] = _cases(_PHONE_ROWS)


def split(cases: list[Case], name: str) -> list[Case]:
    return [c for c in cases if c.split == name]
