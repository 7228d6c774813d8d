#!/usr/bin/env python3
"""Generate the held-out PII benchmark of `gateway eval -only pii`.

The sentences are labelled with character (code point) spans in the shape of
presidio-research's synthetic dataset: a JSON list of
{"full_text": ..., "spans": [{"entity_type", "start_position", "end_position"}]}.
The values come from Faker (email, phone_number, credit_card_number of every
card type, en_US ssn, iban of many countries, ipv4 public and private, ipv6);
the templates around them are this project's own, written to look like chat
messages, CSV rows, JSON snippets, signatures, log lines and forms, not like
presidio's. About a third of the rows are hard negatives: text that looks like
PII and is not (see NEGATIVES and docs/governance.md, "What counts as PII").

The gateway never runs this script: the generated files are committed and
embedded in the binary, so neither the eval nor the tests need Faker or a
network. Regenerate (deterministic for a given Faker version: the script
fixes Python's hash seed and never asks Faker for a date near "now") from
the repository root:

    pip install --user faker==40.63.0
    python3 governance/eval/piifaker/gen_pii_faker.py

Two splits, each with its own seed: dev (seed 1) is for finding and fixing
problems; test (seed 2) is only measured, never read to design a fix. The
test split also draws from templates of its own (TEST_POSITIVES,
TEST_NEGATIVES), so that it measures other layouts than the dev split's.
"""

import datetime
import ipaddress
import json
import os
import random
import string
import sys

import faker
from faker import Faker

FAKER_VERSION = "40.63.0"
SPLITS = {"dev": 1, "test": 2}
ROWS = 1500

# Locales of the names, phone numbers, e-mail addresses and cards.
LOCALES = ["en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "en_IN", "en_AU", "pt_BR",
           "pl_PL", "sv_SE", "ja_JP", "en_CA", "de_CH"]
# Locales whose iban() is their own country's and whose country is in the
# SWIFT IBAN registry (Faker also makes IBANs for countries that have none).
IBAN_LOCALES = ["de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pt_BR", "pl_PL", "en_GB", "de_AT", "de_CH",
                "nl_BE", "cs_CZ", "da_DK", "fi_FI", "el_GR", "en_IE", "mk_MK", "no_NO", "pt_PT", "ro_RO",
                "sk_SK", "tr_TR", "uk_UA", "az_AZ"]
CARD_TYPES = ["visa13", "visa16", "visa19", "mastercard", "amex", "discover", "diners", "jcb15", "jcb16",
              "maestro"]


class Gen:
    """One split: a seeded random source and seeded Faker instances."""

    def __init__(self, seed):
        self.r = random.Random(seed)
        self.fakers = {}
        for i, loc in enumerate(sorted(set(LOCALES + IBAN_LOCALES))):
            f = Faker(loc)
            f.seed_instance(seed * 1000 + i)
            self.fakers[loc] = f

    def f(self, locales=LOCALES):
        return self.fakers[self.r.choice(locales)]

    # --- PII values -------------------------------------------------------

    def email(self):
        f = self.f()
        v = self.r.choice([f.email, f.free_email, f.company_email, f.ascii_safe_email])()
        return v.upper() if self.r.random() < 0.05 else v

    def phone(self):
        return self.f().phone_number()

    def card(self):
        f = self.f()
        t = self.r.choice(CARD_TYPES)
        d = f.credit_card_number(card_type=t)
        k = self.r.random()
        if k < 0.45 or len(d) == 13:
            return d  # nobody prints Visa's 13 digits in groups
        sep = " " if k < 0.8 else "-"
        if len(d) == 15 and d[:2] in ("34", "37"):
            groups = [d[:4], d[4:10], d[10:]]  # Amex prints 4-6-5
        else:
            groups = [d[i:i + 4] for i in range(0, len(d), 4)]
        return sep.join(groups)

    def ssn(self):
        v = self.fakers["en_US"].ssn()
        k = self.r.random()
        if k < 0.7:
            return v
        if k < 0.85:
            return v.replace("-", " ")
        return v.replace("-", "")

    def iban(self):
        v = self.f(IBAN_LOCALES).iban()
        if self.r.random() < 0.5:
            return v
        return " ".join(v[i:i + 4] for i in range(0, len(v), 4))

    def ip(self):
        f = self.f()
        k = self.r.random()
        if k < 0.4:
            return f.ipv4_public()
        if k < 0.7:
            return f.ipv4_private()
        v = f.ipv6()
        if self.r.random() < 0.5:
            return str(ipaddress.IPv6Address(v))  # the compressed form
        return v

    # --- fillers (never PII) ------------------------------------------------

    def name(self):
        return self.f().name()

    def first(self):
        return self.f().first_name()

    def company(self):
        return self.f().company()

    def city(self):
        return self.f().city()

    def moment(self):
        """A time between 1950 and 2029 from the seeded source: Faker's own
        dates and times end at the clock's now, so they would change with
        the day the script runs."""
        return datetime.datetime(1950, 1, 1) + datetime.timedelta(seconds=self.r.randrange(80 * 365 * 86400))

    def date(self):
        return self.moment().strftime("%Y-%m-%d")

    def amount(self):
        return "%d.%02d" % (self.r.randint(3, 4999), self.r.randint(0, 99))

    def digits(self, n):
        return "".join(self.r.choice(string.digits) for _ in range(n))

    def word(self):
        return self.f(["en_US"]).word()


PII = {"email": "EMAIL_ADDRESS", "phone": "PHONE_NUMBER", "card": "CREDIT_CARD", "ssn": "US_SSN",
       "iban": "IBAN_CODE", "ip": "IP_ADDRESS"}

# Positive templates. {email} ... {ip} are PII slots (labelled); {name},
# {company}, {city}, {date}, {amount}, {first}, {word} are fillers.
POSITIVES = [
    # chat
    "hey {first}, my new number is {phone}, text me when you land",
    "you can reach me on {phone} after 6pm",
    "{first}: pls send the invoice to {email} not my old address",
    "lol just email me at {email}",
    "sure, ping me at {email} or {phone}",
    "my card {card} got declined again, can you check?",
    "I paid with {card} but the charge shows twice",
    "the number on the card is {card}, expiry 09/28",
    "here's my SSN for the form: {ssn}",
    "social security number {ssn}, DOB {date}",
    "can u wire it to {iban}? thx",
    "my IBAN is {iban} ({company})",
    "the server at {ip} keeps timing out",
    "try connecting to {ip} instead",
    "{phone}",
    "{first} said to call {phone} if the door is locked",
    "Is {email} still the right address for {name}?",
    "I think the charge on {card} was a mistake",
    "Bitte überweisen Sie den Betrag auf {iban}.",
    "Merci de me rappeler au {phone}.",
    "Mi correo es {email}, escríbeme.",
    "Il mio numero è {phone}",
    "Mijn rekeningnummer: {iban}",
    # CSV rows
    "{name},{email},{phone},{city}",
    "{name};{phone};{iban}",
    "{date},{name},{card},{amount}",
    "\"{name}\",\"{ssn}\",\"{city}\"",
    "{ip},{date},GET /index.html,200",
    # JSON snippets
    "{{\"name\": \"{name}\", \"email\": \"{email}\", \"phone\": \"{phone}\"}}",
    "{{\"user\": \"{first}\", \"last_ip\": \"{ip}\"}}",
    "{{\"iban\": \"{iban}\", \"holder\": \"{name}\"}}",
    "{{\"card_number\": \"{card}\", \"amount\": {amount}}}",
    "{{\"ssn\":\"{ssn}\",\"city\":\"{city}\"}}",
    # signatures
    "Best regards,\n{name}\n{company}\nTel. {phone}\n{email}",
    "--\n{name} | {company}\nM: {phone}",
    "Kind regards, {name} ({email})",
    # log lines
    "{date} 12:04:55 INFO login ok user={first} src={ip}",
    "WARN rejected connection from {ip} port 443",
    "[auth] failed password for {first} from {ip}",
    "sent receipt to {email} status=delivered",
    "payment.captured card={card} amount={amount}",
    "audit: {name} updated payout account to {iban}",
    # forms
    "Name: {name}\nEmail: {email}\nPhone: {phone}",
    "Full name: {name}\nSSN: {ssn}\nCity: {city}",
    "Account holder: {name}\nIBAN: {iban}",
    "Card number: {card}\nName on card: {name}",
    "IP address: {ip}",
    "Contact: {phone}",
    # plain prose without a context word
    "{name} lives in {city}; {phone}.",
    "Forwarding to {email} as discussed.",
    "{card} — {name}",
    "{iban} / {company}",
    "{name} {ssn}",
    "see {ip} for the dashboard",
    "{email}",
]

# Negative templates: nothing in them is PII. Each slot is filled by a
# generator below.
NEGATIVES = [
    "Order #{order} shipped on {date}",
    "your order number is {order}, keep it for returns",
    "tracking number {tracking}",
    "UPS tracking: 1Z{ups}",
    "ISBN {isbn13}",
    "ISBN-10: {isbn10}",
    "request id {uuid} failed",
    "upgrade to version {version} before Friday",
    "firmware v{version} fixes the wifi bug",
    "build {version} is on the release page",
    "meeting at {time} on {date}",
    "timestamp {date} {time}",
    "the total is ${price}",
    "Preis: {eprice} €",
    "part no. {partcode}",
    "SKU {sku} is out of stock",
    "card {badcard} was rejected: invalid number",
    "test card {badcard} fails the checksum",
    "ssn field example {badssn} is not valid",
    "SSN {badssn} (invalid)",
    "IBAN {badiban} has a wrong check digit",
    "invalid IBAN {badiban}",
    "ssh deploy@{host} uptime",
    "logo@2x.png and icon@3x.png are missing",
    "use the @{word} decorator",
    "npm install lodash@{semver}",
    "pinned {word}@{semver} in package.json",
    "ts={epoch} level=info msg=\"cache warm\"",
    "created_at: {epoch}",
    "invoice {invoice} due {date}",
    "reference {order}",
    "ticket #{ticket} closed",
    "case {ticket} reopened by {first}",
    "mac {mac} joined the vlan",
    "coordinates {lat}, {lon}",
    "{count} users, {count2} sessions, {pct}% churn",
    "the score was {score}",
    "gitsha {sha}",
]


# Templates only the test split uses, written after the fixes of the dev
# split and never used to design one: other layouts around the same values
# (markup, query strings, YAML, TSV, ports, angle brackets) and other
# look-alikes, so the test split measures more than a new seed.
TEST_POSITIVES = [
    "From: {name} <{email}>",
    "<td>{name}</td><td>{phone}</td>",
    "https://example.org/signup?email={email}&ref=newsletter",
    "phone: '{phone}'\nemail: {email}",
    "{first}\t{phone}\t{city}",
    "| {name} | {email} | {phone} |",
    "upstream {ip}:8443 is unhealthy",
    "GET /health from [{ip}] 200 3ms",
    "Reply to {email} with the signed copy.",
    "My cell is {phone} – leave a message",
    "Card ending in {card} expired",
    "Taxpayer ID (SSN): {ssn}",
    "SSN#{ssn}",
    "Beneficiary IBAN {iban}, BIC DEUTDEFF",
    "Sehr geehrte Damen und Herren, IBAN: {iban}",
    "wire ${amount} to {iban} by Monday",
    "allowlist: {ip}, {ip}",
    "client_ip={ip} status=403",
    "Please update my phone to {phone} and my email to {email}.",
    "{name} <{email}>; {name} <{email}>",
    "CC: {card} EXP 04/27 CVV 123",
    "ssn={ssn}&dob={date}",
]

TEST_NEGATIVES = [
    "UPC {upc}",
    "ZIP code {zip}",
    "OID {oid}",
    "released {iso} by the CI bot",
    "HTTP/1.1 200 OK in {ms} ms",
    "chmod {mode} deploy.sh",
    "room {room}, building 4",
    "serial number {serial}",
    "{count} followers and {count2} likes",
    "pip install numpy=={semver}",
    "conference call ID {confid} (no PIN)",
    "answer: {expr}",
    "EAN {ean}",
    "see RFC {rfc} section {section}",
    "bank holiday on {date}",
    "Ref: {order}/{ticket}",
    "docker pull nginx@sha256:{sha}",
    "@{word} thanks for the review!",
]


def luhn_ok(d):
    s = 0
    for i, c in enumerate(reversed(d)):
        n = int(c)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        s += n
    return s % 10 == 0


def iban_ok(v):
    r = v[4:] + v[:4]
    return int("".join(str(int(c, 36)) for c in r)) % 97 == 1


class Neg:
    """Fillers of the negative templates."""

    def __init__(self, g):
        self.g = g
        self.r = g.r

    def order(self):
        return self.g.digits(self.r.choice([7, 8, 10, 12]))

    def tracking(self):
        d = self.g.digits(22)
        return " ".join(d[i:i + 4] for i in range(0, 22, 4)) if self.r.random() < 0.5 else d

    def ups(self):
        return "".join(self.r.choice(string.ascii_uppercase + string.digits) for _ in range(16))

    def isbn13(self):
        return self.g.f().isbn13()

    def isbn10(self):
        return self.g.f().isbn10()

    def uuid(self):
        return self.g.f().uuid4()

    def version(self):
        return ".".join(str(self.r.randint(0, 20)) for _ in range(self.r.choice([3, 4])))

    def semver(self):
        return "%d.%d.%d" % (self.r.randint(0, 20), self.r.randint(0, 40), self.r.randint(0, 30))

    def time(self):
        return self.g.moment().strftime("%H:%M:%S")

    def date(self):
        return self.g.moment().strftime(self.r.choice(["%Y-%m-%d", "%d/%m/%Y", "%d.%m.%Y", "%m-%d-%Y"]))

    def price(self):
        return "{:,}.{:02d}".format(self.r.randint(1000, 9999999), self.r.randint(0, 99))

    def eprice(self):
        return "{:,}".format(self.r.randint(1000, 9999999)).replace(",", ".") + ",%02d" % self.r.randint(0, 99)

    def partcode(self):
        return "%s-%s-%s" % (self.g.digits(2), self.g.digits(4), self.g.digits(3))

    def sku(self):
        return "%s-%s-%s" % (self.g.digits(3), self.g.digits(4), self.g.digits(3))

    def badcard(self):
        d = self.g.f().credit_card_number(card_type="visa16")
        d = d[:-1] + str((int(d[-1]) + self.r.randint(1, 9)) % 10)
        assert not luhn_ok(d)
        return " ".join(d[i:i + 4] for i in range(0, 16, 4)) if self.r.random() < 0.5 else d

    def badssn(self):
        area = self.r.choice(["000", "666", str(self.r.randint(900, 999))])
        if self.r.random() < 0.3:
            return "%s-00-%s" % (self.g.digits(3).replace("0", "1"), self.g.digits(4))
        return "%s-%s-%s" % (area, self.g.digits(2), self.g.digits(4))

    def badiban(self):
        v = self.g.f(IBAN_LOCALES).iban()
        v = v[:2] + "%02d" % ((int(v[2:4]) + self.r.randint(1, 90)) % 100) + v[4:]
        if iban_ok(v):
            return self.badiban()
        return " ".join(v[i:i + 4] for i in range(0, len(v), 4)) if self.r.random() < 0.5 else v

    def host(self):
        return self.r.choice(["buildbox", "staging", "db-primary", "localhost", "ci-runner-3"])

    def word(self):
        return self.g.word()

    def epoch(self):
        return str(self.r.randint(1500000000, 1800000000)) + (self.g.digits(3) if self.r.random() < 0.5 else "")

    def invoice(self):
        return "INV-%s" % self.g.digits(8)

    def ticket(self):
        return self.g.digits(self.r.choice([5, 6, 7]))

    def mac(self):
        return ":".join("%02x" % self.r.randint(0, 255) for _ in range(6))

    def lat(self):
        return "%.6f" % self.r.uniform(-90, 90)

    def lon(self):
        return "%.6f" % self.r.uniform(-180, 180)

    def count(self):
        return "{:,}".format(self.r.randint(1000, 999999))

    def count2(self):
        return "{:,}".format(self.r.randint(1000, 9999999))

    def pct(self):
        return "%.1f" % self.r.uniform(0, 100)

    def score(self):
        return "%d-%d" % (self.r.randint(0, 9), self.r.randint(0, 9))

    def upc(self):
        return self.g.f().ean(length=13)[1:]

    def ean(self):
        return self.g.f().ean13()

    def zip(self):
        return "%s-%s" % (self.g.digits(5), self.g.digits(4))

    def oid(self):
        return "1.3.6.1.4.1.%d.%d.%d" % (self.r.randint(1, 60000), self.r.randint(1, 20), self.r.randint(1, 20))

    def iso(self):
        return self.g.moment().isoformat() + "Z"

    def ms(self):
        return str(self.r.randint(1, 2000))

    def mode(self):
        return self.r.choice(["755", "644", "0600", "0755"])

    def room(self):
        return "%s-%s" % (self.g.digits(2), self.g.digits(3))

    def serial(self):
        return "%s-%s-%s" % (self.g.digits(4), self.g.digits(4), self.g.digits(4))

    def confid(self):
        return "%s %s %s" % (self.g.digits(3), self.g.digits(3), self.g.digits(4))

    def expr(self):
        return "%d * %d = %d" % (self.r.randint(100, 999), self.r.randint(100, 999), self.r.randint(10000, 999999))

    def rfc(self):
        return str(self.r.randint(700, 9999))

    def section(self):
        return "%d.%d.%d" % (self.r.randint(1, 9), self.r.randint(1, 9), self.r.randint(1, 9))

    def sha(self):
        return "".join(self.r.choice("0123456789abcdef") for _ in range(40))


def fill(template, values):
    """Fill template's {slots}: values(slot) gives the text. Returns the text
    and the spans of PII slots in code points."""
    out, spans, i = [], [], 0
    n = 0  # code points written so far
    while i < len(template):
        if template.startswith("{{", i) or template.startswith("}}", i):
            out.append(template[i])
            n += 1
            i += 2
            continue
        if template[i] == "{":
            j = template.index("}", i)
            slot = template[i + 1:j]
            v = values(slot)
            if slot in PII:
                spans.append({"entity_type": PII[slot], "entity_value": v, "start_position": n,
                              "end_position": n + len(v)})
            out.append(v)
            n += len(v)
            i = j + 1
            continue
        out.append(template[i])
        n += 1
        i += 1
    return "".join(out), spans


def split(seed, positives, negatives):
    g = Gen(seed)
    neg = Neg(g)

    def values(slot):
        return getattr(g, slot)() if hasattr(g, slot) else getattr(neg, slot)()

    rows = []
    for _ in range(ROWS):
        if g.r.random() < 0.35:
            t = g.r.choice(negatives)
            # Negative fillers first: their dates vary the formats.
            text, spans = fill(t, lambda s: getattr(neg, s)() if hasattr(neg, s) else values(s))
            assert not spans
        else:
            t = g.r.choice(positives)
            text, spans = fill(t, values)
        rows.append({"full_text": text, "spans": spans})
    return rows


def main():
    if os.environ.get("PYTHONHASHSEED") != "0":
        # Some of Faker's providers pick from sets, whose order changes with
        # the hash seed of each run: fix it so a seed gives the same files.
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable] + sys.argv)
    if faker.VERSION != FAKER_VERSION:
        sys.exit("want faker==%s, have %s: pip install --user faker==%s" % (FAKER_VERSION, faker.VERSION,
                                                                           FAKER_VERSION))
    out = os.path.dirname(os.path.abspath(__file__))
    templates = {"dev": (POSITIVES, NEGATIVES),
                 "test": (POSITIVES + TEST_POSITIVES, NEGATIVES + TEST_NEGATIVES)}
    for name, seed in SPLITS.items():
        path = os.path.join(out, "faker_%s.json" % name)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("[\n")
            rows = split(seed, *templates[name])
            fh.write(",\n".join(json.dumps(r, ensure_ascii=False) for r in rows))
            fh.write("\n]\n")
        print("wrote %s (%d rows, seed %d)" % (path, len(rows), seed))
    # What the eval prints under the tables.
    meta = {"faker": FAKER_VERSION, "seeds": SPLITS, "rows": ROWS, "locales": LOCALES, "iban_locales": IBAN_LOCALES,
            "templates": {k: {"positive": len(p), "negative": len(n)} for k, (p, n) in templates.items()}}
    with open(os.path.join(out, "faker_meta.json"), "w", encoding="utf-8") as fh:
        json.dump(meta, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
