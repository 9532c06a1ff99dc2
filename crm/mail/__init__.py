"""Raw inbound mail turned into plain facts (sender, text, attachments, hash); imports no Django.

`parse` builds a `ParsedMail` from raw bytes out of `headers`, `mime` (the part tree),
`charsets` (decoding and guessing) and `text` (clean-up, HTML to text), within the caps of
`MailCaps` (a mail over one is left unread, `ParsedMail.over_cap`); `files` reads raw
messages from `.eml` files, folders and mbox files.
"""

from crm.mail.files import mail_messages_count, mail_messages_from_paths
from crm.mail.parse import (
    CONTENT_HASH_VERSION,
    MAIL_MAX_BYTES,
    MAIL_MAX_PARTS,
    MailCaps,
    MailOverCap,
    ParsedMail,
    mail_parse,
    raw_content_hash,
)

__all__ = [
    "CONTENT_HASH_VERSION",
    "MAIL_MAX_BYTES",
    "MAIL_MAX_PARTS",
    "MailCaps",
    "MailOverCap",
    "ParsedMail",
    "mail_messages_count",
    "mail_messages_from_paths",
    "mail_parse",
    "raw_content_hash",
]
