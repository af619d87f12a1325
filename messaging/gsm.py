"""How long a text message is on the air: the GSM 03.38 (3GPP TS 23.038) 7-bit default alphabet
when every character is in it, else UCS-2 (UTF-16 code units).

One message holds 160 GSM-7 septets or 70 UCS-2 units; a longer text is split into segments of
153 or 67 (the rest carries the concatenation header). A character of the extension table (€, [,
], {, }, \\, ~, ^, |, form feed) takes two septets: an escape and itself.

French is GSM-7 only in part: é è ù à (and É, Ç, ì, ò) are in the basic table, but ê ç â î ô û ë
ï œ are not, and one of them turns the whole message into UCS-2."""

import unicodedata

# The basic character set, in table order (0x00 to 0x7F), 0x1B (the escape) left out.
BASIC = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
# The basic set's extension table: each is sent as the escape and a second septet.
EXTENSION = frozenset("\f^{}\\[~]|€")

GSM7 = "GSM-7"
UCS2 = "UCS-2"
SINGLE = {GSM7: 160, UCS2: 70}
SEGMENT = {GSM7: 153, UCS2: 67}


def is_gsm7(text: str) -> bool:
    return all(c in BASIC or c in EXTENSION for c in text)


def encoding(text: str) -> str:
    return GSM7 if is_gsm7(text) else UCS2


def length(text: str) -> int:
    """Septets (GSM-7) or UTF-16 code units (UCS-2) the text takes."""
    if is_gsm7(text):
        return sum(2 if c in EXTENSION else 1 for c in text)
    return len(text.encode("utf-16-le")) // 2


def fits_one(text: str) -> bool:
    """Whether the text goes in a single message: ≤ 160 GSM-7 or ≤ 70 UCS-2."""
    return length(text) <= SINGLE[encoding(text)]


def segments(text: str) -> int:
    size, kind = length(text), encoding(text)
    if size <= SINGLE[kind]:
        return 1
    return -(-size // SEGMENT[kind])


def to_gsm7(text: str) -> str:
    """The text with each character outside GSM-7 replaced by its letter without the accent
    (ê → e, ç → c, œ → oe), or by "?" when it has none: what a phone shows when a message must
    stay in one GSM-7 segment."""
    out = []
    for c in text:
        if c in BASIC or c in EXTENSION:
            out.append(c)
            continue
        special = {
            "œ": "oe",
            "Œ": "OE",
            "’": "'",
            "‘": "'",
            "«": '"',
            "»": '"',
            "\u00a0": " ",
            "\u202f": " ",
            "–": "-",
            "—": "-",
            "…": "...",
        }.get(c)
        if special is not None:
            out.append(special)
            continue
        base = "".join(b for b in unicodedata.normalize("NFKD", c) if not unicodedata.combining(b))
        out.append(base if base and is_gsm7(base) else "?")
    return "".join(out)
